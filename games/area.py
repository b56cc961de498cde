"""The live table area (templates/jinja2/games/area.jinja): its parts, and how the socket side renders it.

The page includes the area whole; each table socket pushes it anew for its member after every version
(games/live.py). To render it once per version rather than once per member, it is made of two kinds
of part:

``{% call public_part("name") %}...{% endcall %}`` (or ``public_part("name", key)``: one part per value of
``key``, e.g. a seat number): rendered for the first member whose area is made from a snapshot
(games/selectors/snapshot.py), and the same text is inserted for every other member's area made from
it, in the same time zone and language. So it must use only what is the same for everyone who may see
the table: public facts of the table and hand (the log, the board, the previous hand), never the member
(``user``, ``view.you``, own cards, own actions, ``row.is_me``) or their access. Without a snapshot in
the context it is simply rendered. ``public_part("name", lasting=true)``: a part that shows nothing but
the table row, the seats' names and the last finished hand is kept for the next versions of the same
hand (``TableSnapshot.lasting``).

``{{ member_part("name") }}``: the opposite, a part that is the member's own (their seat, cards,
actions, clocks, links), in templates/jinja2/games/area/<name>.jinja. The socket side renders the area
once per snapshot with each member part left as a mark (``area_shared``), and per member only these
parts (``area_fill``), so everything outside them must be the same for every viewer, and every
condition around one of them too: a member part sits directly in the area, not inside a loop.
"""

from __future__ import annotations

import functools
import re
import secrets
import zoneinfo
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from django.template import engines
from django.template.defaultfilters import date
from django.utils import timezone, translation
from jinja2 import Template, pass_context
from markupsafe import Markup

from accounts.models import User
from games import engine, presenters
from games.models import Hand
from games.selectors.advance import advance_for, advance_split
from games.selectors.hands import hand_seat_of
from games.selectors.snapshot import TableSnapshot
from games.services import advance
from games.words import seat_state_words

AREA = "games/area.jinja"
SEAT_ROW = "games/_seat_row.jinja"


def jinja_template(name: str) -> Template:
    """The compiled Jinja2 template ``name`` (templates/jinja2/). Kept here once compiled unless the
    environment reloads changed files (``DEBUG``): its own cache takes a lock and more on every look-up,
    and the area looks up a few templates per member on every version."""
    found = _compiled.get(name)
    if found is None:
        env = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend's
        found = env.get_template(name)
        if not env.auto_reload:
            _compiled[name] = found
    return found


_compiled: dict[str, Template] = {}


# ---- parts rendered once for every viewer ------------------------------------------------------

@pass_context
def public_part(context: Any, name: str, key: Any = None, lasting: bool = False, caller: Any = None) -> Markup:
    """``{% call public_part("name") %}``: see the module's docstring."""
    return Markup(public_text(context, name, key, lambda: str(caller()), lasting=lasting))  # noqa: S704 - rendered, escaped there


def public_text(context: Mapping[str, Any], name: str, part: Any, render: Callable[[], str], *,
                lasting: bool = False) -> str:
    """Part ``name`` (``part``: which one) of the snapshot in ``context``: ``render()`` the first time in
    this time zone and language, the same text after; rendered each time without a snapshot.
    ``lasting``: the part shows only the table row, the seats' names and the last finished hand, so the
    next versions of the same hand keep it (``TableSnapshot.lasting``)."""
    snapshot = context.get("snapshot")
    if not isinstance(snapshot, TableSnapshot):
        return render()
    key = ("public_part", name, part, *_locale(context), bool(context.get(_SHARED)))  # shared: member parts left as marks
    store = snapshot.lasting if lasting else snapshot.derived
    found = store.get(key)
    if found is None:
        found = store[key] = render()
    return str(found)


def _locale(context: Mapping[str, Any]) -> tuple[str, str | None]:
    """The time zone and language a part is rendered in (read once per area: ``part_locale``)."""
    found: tuple[str, str | None] = context.get("part_locale") or (timezone.get_current_timezone_name(),
                                                                   translation.get_language())
    return found


def lasting_text(context: Mapping[str, Any], slot: Any, inputs: Any, render: Callable[[], str]) -> str:
    """A public part that several versions of a hand may share: ``slot`` (e.g. a seat) keeps the text
    rendered for ``inputs`` (hashable: everything the part shows) while they stay the same; new inputs
    render it anew. Rendered each time without a snapshot."""
    snapshot = context.get("snapshot")
    if not isinstance(snapshot, TableSnapshot):
        return render()
    key = ("lasting_text", slot, *_locale(context))
    kept = snapshot.lasting.get(key)
    if kept is None or kept[0] != inputs:
        kept = snapshot.lasting[key] = (inputs, render())
    return str(kept[1])


# ---- the member's own parts --------------------------------------------------------------------

_SHARED = "area_shared_render"  # set in the context of the shared render only
_MARK = f"\x00member-part-{secrets.token_hex(8)}:"  # never in rendered text: random, and NUL is not
_SPLIT = re.compile(re.escape(_MARK) + r"([a-z_]+)\x00")
_PART_NAME = re.compile(r"[a-z_]+")


def _part(name: str) -> Template:
    if not _PART_NAME.fullmatch(name):
        raise ValueError(f"A member part's name is a-z and _: {name!r}")
    return jinja_template(f"games/area/{name}.jinja")


@pass_context
def member_part(context: Any, name: str) -> Markup:
    """``{{ member_part("name") }}``: see the module's docstring."""
    if context.get(_SHARED):
        return Markup(f"{_MARK}{name}\x00")  # noqa: S704 - a mark, replaced before anything is sent
    return Markup(_part(name).render(context.get_all()))  # noqa: S704 - rendered, escaped there


def area_shared(values: dict[str, Any]) -> tuple[str, ...]:
    """The area rendered once for every viewer (``values``: what they all see), as pieces: text, the
    name of a member part, text, ... (``area_fill`` puts a member's own parts in)."""
    return tuple(_SPLIT.split(jinja_template(AREA).render({**values, _SHARED: True})))


def area_fill(pieces: tuple[str, ...], values: dict[str, Any]) -> str:
    """A member's area: the shared ``pieces`` with each member part rendered from ``values`` (theirs)."""
    names = {**jinja_template(AREA).globals, **values}  # once for all their parts (``render_with``)
    return "".join(piece if i % 2 == 0 else render_with(_part(piece), names) for i, piece in enumerate(pieces))


def render_with(template: Template, names: dict[str, Any]) -> str:
    """``template`` rendered with ``names`` as they are, the environment's globals among them. Jinja's own
    ``render`` copies the globals and the values into a new dict for every render; the area renders a
    few parts per member and a row per seat, so it merges them once and shares the dict."""
    return template.environment.concat(
        template.root_render_func(template.new_context(names, shared=True)))


# ---- what the parts show -----------------------------------------------------------------------

def _user(context: Mapping[str, Any]) -> User | None:
    user = context.get("user")
    return user if isinstance(user, User) else None


def _snapshot(context: Mapping[str, Any], hand: Hand | None) -> TableSnapshot | None:
    """The context's table snapshot (presenters.hand_page puts it there) when it shows ``hand``."""
    snapshot = context.get("snapshot")
    return snapshot if isinstance(snapshot, TableSnapshot) and hand is not None and snapshot.hand is hand else None


@pass_context
def clock_time(context: Any, moment: Any, fmt: str) -> str:
    """``{{ deadline|clock_time("H:i") }}``: Django's ``date`` filter in the viewer's zone and language,
    worked out once per moment, format, zone and language (each awaited seat's deadline is shown on
    every screen at the table, every version)."""
    if moment in (None, ""):
        return ""
    return _clock_words(moment, str(fmt), *_locale(context))


@functools.lru_cache(maxsize=2048)
def _clock_words(moment: Any, fmt: str, zone: str, language: str | None) -> str:  # language: part of the key
    if isinstance(moment, datetime) and timezone.is_aware(moment):
        moment = moment.astimezone(zoneinfo.ZoneInfo(zone))
    return str(date(moment, fmt))


def clock_of(clocks: list[dict[str, Any]] | None, seat: int) -> dict[str, Any] | None:
    return next((c for c in clocks or [] if c.get("seat") == seat), None)


def seat_state(row: dict[str, Any]) -> str:
    return seat_state_words(row.get("view"), is_me=bool(row.get("is_me")))


def around(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The seats by side of the table, the member's own (else the first) at the bottom and the others
    clockwise: left, top, right; on a phone the sides stack under the board."""
    if not rows:
        return []
    start = next((i for i, r in enumerate(rows) if r.get("is_me")), 0)
    ring = rows[start:] + rows[:start]
    rest = ring[1:]
    n = len(rest)
    left = (n + 2) // 4 if n > 2 else 0
    right = left
    top = n - left - right
    return [("bottom", ring[:1]), ("left", list(reversed(rest[:left]))),
            ("top", rest[left:left + top]), ("right", rest[left + top:])]


@pass_context
def seat_ring(context: Any, clocks: list[dict[str, Any]]) -> Markup:
    """The seats around the board (``around``), each drawn by games/_seat_row.jinja. Another's seat looks
    the same to every viewer but its own player, so it is rendered once per snapshot (a public part);
    the member's own row is theirs alone. Each is kept for the next versions of the hand while all it
    shows (the row, the seat, its clock and money) stays the same."""
    row_template = jinja_template(SEAT_ROW)
    money = context.get("seat_money") or {}
    club = context.get("club")
    currency = getattr(club, "currency", None)
    viewer = getattr(context.get("user"), "pk", None)
    names = {**row_template.globals, "club": club, "clocks": clocks, "seat_money": money,
             "part_locale": _locale(context)}

    def row_html(row: dict[str, Any]) -> str:
        return render_with(row_template, {**names, "row": row})

    def kept_row(row: dict[str, Any]) -> str:
        seat = row.get("seat")
        clock = clock_of(clocks, row["number"]) if row.get("to_act") else None
        inputs = (tuple((k, v) for k, v in row.items() if k != "seat"), currency,
                  (seat.user_id, seat.sitting_out, seat.user.away, money.get(seat.user_id)) if seat else None,
                  clock["deadline"] if clock else None)
        slot = ("own_seat", viewer) if row.get("is_me") else ("seat", row["number"])  # one's own: kept for them
        return lasting_text(context, slot, inputs, partial(row_html, row))

    # Another's row: once per snapshot, zone and language for every member's ring (a public part, looked
    # up once per ring rather than once per row), then kept as it was.
    snapshot = context.get("snapshot")
    others: dict[int, str] = (snapshot.derived.setdefault(("seat_rows", *names["part_locale"]), {})
                              if isinstance(snapshot, TableSnapshot) else {})

    def another(row: dict[str, Any]) -> str:
        found = others.get(row["number"])
        if found is None:
            found = others[row["number"]] = kept_row(row)
        return found

    out = []
    for side, rows in around(context.get("seat_rows") or []):
        out.append(f'<ul class="ring ring-{side}" aria-label="Seats">')
        out.extend(kept_row(row) if row.get("is_me") else another(row) for row in rows)
        out.append("</ul>")
    return Markup("\n".join(out))  # noqa: S704 - rendered templates, escaped there


_KEYS = {"check": "k", "call": "c", "bet": "b", "raise": "r", "fold": "f", "in": "i", "out": "o",
         "declare:high": "h", "declare:low": "l", "declare:pig": "p"}


def shortcut_key(kind: str, value: str) -> str:
    """The key that presses an action's button (static/js/table.js; not while typing)."""
    return _KEYS.get(str(value)) or _KEYS.get(str(kind), "")


@pass_context
def advance_panel(context: Any) -> Markup:
    """The member's own advance actions and the form to set one (games/_advance.jinja); shown only to
    that member (games/services/advance.py: never in a view, a group message or another member's page)."""
    hand: Hand | None = context.get("hand")
    user = _user(context)
    if hand is None or user is None or hand.is_finished:
        return Markup("")
    seat = hand_seat_of(hand=hand, user=user)
    if seat is None:
        return Markup("")
    currency = getattr(context.get("club"), "currency", "USD")
    snapshot = _snapshot(context, hand)
    if snapshot is not None:
        state = snapshot.state
        mine = advance_split(snapshot.advance_rows_of(user.pk))
    else:
        state = engine.state_from_json(hand.state)
        mine = advance_for(hand=hand, user=user)
    view = context.get("view")  # the member's own view, already made for their area
    choices = advance.choices_for(state, seat, currency, view=view if isinstance(view, engine.HandView) else None)
    if not (choices or mine["pending"] or mine["cancelled"]):
        return Markup("")
    return Markup(jinja_template("games/_advance.jinja").render(  # noqa: S704 - rendered, escaped there
        hand=hand, csrf_token=context.get("csrf_token"), urls=context.get("urls"),
        choices_bet=[c for c in choices if c.kind == advance.BET],
        choices_sealed=[c for c in choices if c.kind == advance.SEALED],
        pending=[advance.describe(r, currency) for r in mine["pending"]],
        cancelled=[(advance.describe(r, currency), r.reason) for r in mine["cancelled"]]))


@pass_context
def marked_log(context: Any, lines: list[str], hand: Hand | None) -> list[str]:
    """``lines`` (one per event of the hand, in order) with each timeout marked, as
    ``presenters.log_with_timeouts`` allows (not a sealed decision's before the reveal)."""
    snapshot = _snapshot(context, hand)
    return presenters.log_with_timeouts(hand=hand, lines=lines, steps=snapshot.steps if snapshot else None)
