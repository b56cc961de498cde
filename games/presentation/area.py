"""The template helpers of the live table area (templates/jinja2/games/area.jinja, a Jinja2 template): the
seat ring, the clocks, the advance panel.

The page renders the area whole for its member; the live table renders it once per version for no one in
particular (the public frame) and the member's own parts for those whose part changed (games/live/render.py,
docs/live.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

from django.template import engines
from django.template.defaultfilters import date
from django.utils import timezone
from jinja2 import Template, pass_context
from markupsafe import Markup

import engine
from games.models import Hand, Seat
from games.presentation.presenters import PreviousHand
from games.presentation.words import advance_words, seat_state_words
from games.selectors.advance import BET, SEALED, advance_split, choices_for
from kernel.pools import ProcessCache

AREA = "games/area.jinja"
SEAT_ROW = "games/_seat_row.jinja"
PREVIOUS_HAND = "games/_previous_hand.jinja"


def jinja_template(name: str) -> Template:
    """The compiled Jinja2 template ``name`` (templates/jinja2/)."""
    template: Template = engines["jinja2"].env.get_template(name)  # type: ignore[attr-defined]  # the Jinja2 backend's
    return template


# ---- what the parts show -----------------------------------------------------------------------


# What Django's ``date`` writes for these formats in the site's English, without its locale lookups (a tenth of
# a ms each; tests/games/test_clock_words.py compares them).
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_PLAIN: dict[str, Callable[[datetime], str]] = {
    "c": datetime.isoformat,
    "H:i": lambda moment: f"{moment:%H:%M}",
    "D j M, H:i:s": lambda m: f"{_DAYS[m.weekday()]} {m.day} {_MONTHS[m.month - 1]}, {m:%H:%M:%S}",
}


def clock_time(moment: Any, fmt: str) -> str:
    """``{{ deadline|clock_time("H:i") }}``: Django's ``date`` filter in the current time zone (the member's on
    the page, UTC in the public frame: the page's script writes it in the member's own)."""
    if moment in (None, ""):
        return ""
    if isinstance(moment, datetime) and timezone.is_aware(moment):
        moment = timezone.localtime(moment)
        if fmt in _PLAIN:
            return _PLAIN[fmt](moment)
    return str(date(moment, fmt))


def clock_of(clocks: list[dict[str, Any]] | None, seat: int) -> dict[str, Any] | None:
    return next((c for c in clocks or [] if c.get("seat") == seat), None)


def seat_state(view: engine.SeatView, is_me: bool) -> str:
    return seat_state_words(view, is_me=is_me)


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
    return [
        ("bottom", ring[:1]),
        ("left", list(reversed(rest[:left]))),
        ("top", rest[left : left + top]),
        ("right", rest[left + top :]),
    ]


@pass_context
def seat_ring(context: Any, clocks: list[dict[str, Any]]) -> Markup:
    """The seats around the board (``around``), each drawn by games/_seat_row.jinja."""
    out = []
    for side, rows in around(context.get("seat_rows") or []):
        out.append(f'<ul class="ring ring-{side}" aria-label="Seats">')
        out.extend(seat_row_html(context, row, clocks) for row in rows)
        out.append("</ul>")
    return Markup("\n".join(out))  # noqa: S704 - rendered templates, escaped there


class SeatShown(NamedTuple):
    """What one seat of the ring shows: all that games/_seat_row.jinja's macro is given (its parameters, in this
    order) and reads beside the time zone its clock is written in, so equal ``SeatShown`` draw the same markup."""

    number: int
    name: str
    is_me: bool
    is_button: bool
    away: bool
    sitting_out: bool
    left: bool
    view: engine.SeatView | None  # frozen: compared by its values
    matched: int  # a loser's match paid into the next pot, counted in the view's "paid"
    to_act: bool
    clocked: bool  # while awaited: its clock is among those shown to the viewer
    deadline: datetime | None  # that clock's
    balance: int | None  # the seated member's club balance; None: no money shown for the seat
    sitting_net: int  # their net at the table since they sat
    currency: str


def seat_shown(row: Mapping[str, Any], club: Any, clocks: Any, seat_money: Any) -> SeatShown:
    """What the seat of ``row`` shows (the presenters' row, or the replay's), with its clock among ``clocks``
    and its member's money in ``seat_money`` (user id -> ledger.selectors.SeatMoney), where given."""
    seat: Seat | None = row.get("seat")
    to_act = bool(row.get("to_act"))
    clock = clock_of(clocks, row["number"]) if to_act else None
    shows_money = seat is not None and bool(seat_money)
    money = seat_money.get(seat.user_id) if seat is not None and shows_money else None
    return SeatShown(
        number=row["number"],
        name=row["name"],
        is_me=bool(row.get("is_me")),
        is_button=bool(row.get("is_button")),
        away=bool(row.get("away")),
        sitting_out=bool(row.get("sitting_out")),
        left=bool(row.get("left")),
        view=row.get("view"),
        matched=row.get("matched") or 0,
        to_act=to_act,
        clocked=clock is not None,
        deadline=clock["deadline"] if clock is not None else None,
        balance=((money.balance if money else None) or 0) if shows_money else None,
        sitting_net=(money.sitting_net if money else None) or 0,
        currency=str(getattr(club, "currency", None) or "USD"),  # as the money filter reads a missing one
    )


# The ring's seats as every viewer sees them (not a member's own: those are theirs alone, and change at nearly
# every frame they are rendered in) by what they show and the time zone their clock is written in: a seat is
# drawn again only when something it shows changed, not at every version of the hand (most actions change two
# seats of six).
_SEAT_ROWS: ProcessCache[tuple[SeatShown, str | None], str] = ProcessCache("seat rows", held=4096)


def seat_row_html(values: Mapping[str, Any], row: dict[str, Any], clocks: list[dict[str, Any]]) -> str:
    """One seat of the ring: ``values``, the area's (its club and the seats' money). The template's macro, called:
    no new context per seat, as a render of the template makes (seven a version)."""
    shown = seat_shown(row, values.get("club"), clocks, values.get("seat_money"))
    if shown.is_me:
        return _seat_row(shown)
    key = (shown, timezone.get_current_timezone_name() if shown.deadline else None)
    html = _SEAT_ROWS.get(key)
    if html is None:
        html = _seat_row(shown)
        _SEAT_ROWS.put(key, html)
    return html


def _seat_row(shown: SeatShown) -> str:
    seat_row = jinja_template(SEAT_ROW).module.seat_row  # type: ignore[attr-defined]  # the template's macro
    return str(seat_row(*shown))  # its parameters are SeatShown's fields, in order: read as names, not attributes


# The last hand's section by everything it is built from (``PreviousHand.key``) and the time zone it is written
# in (the public frame's UTC, a page's member's own): rendered once, not at every version of the next hand.
_PREVIOUS_HANDS: ProcessCache[tuple[Any, ...], str] = ProcessCache("previous hands", held=512)


@pass_context
def previous_hand(context: Any, previous: PreviousHand) -> Markup:
    """The last hand's section of the area (games/_previous_hand.jinja), the same for every viewer."""
    key = (*previous.key, timezone.get_current_timezone_name())
    html = _PREVIOUS_HANDS.get(key)
    if html is None:
        html = jinja_template(PREVIOUS_HAND).render(
            previous=previous.shown, club=context.get("club"), table=context.get("table"), hand=context.get("hand")
        )
        _PREVIOUS_HANDS.put(key, html)
    return Markup(html)  # noqa: S704 - rendered, escaped there


_KEYS = {
    "check": "k",
    "call": "c",
    "bet": "b",
    "raise": "r",
    "fold": "f",
    "in": "i",
    "out": "o",
    "declare:high": "h",
    "declare:low": "l",
    "declare:pig": "p",
}


def shortcut_key(kind: str, value: str) -> str:
    """The key that presses an action's button (static/js/table.js; not while typing)."""
    return _KEYS.get(str(value)) or _KEYS.get(str(kind), "")


@pass_context
def advance_panel(context: Any) -> Markup:
    """The member's own advance actions and the form to set one (games/_advance.jinja); shown only to
    that member (games/services/advance.py: never in a view, a group message or another member's page)."""
    hand: Hand | None = context.get("hand")
    view = context.get("view")  # the member's own view (``you``: their seat), or the public one
    if hand is None or hand.is_finished or not isinstance(view, engine.HandView) or view.you is None:
        return Markup("")
    currency = context["club"].currency
    snapshot = context["snapshot"]
    mine = advance_split(snapshot.advance_rows_of(context["user"].pk))  # this member's rows only
    choices = choices_for(snapshot.state, view.you, currency, view=view)
    if not (choices or mine["pending"] or mine["cancelled"]):
        return Markup("")
    return Markup(  # noqa: S704 - rendered, escaped there
        jinja_template("games/_advance.jinja").render(
            hand=hand,
            csrf_token=context.get("csrf_token"),
            urls=context.get("urls"),
            choices_bet=[c for c in choices if c.kind == BET],
            choices_sealed=[c for c in choices if c.kind == SEALED],
            pending=[advance_words(r, currency) for r in mine["pending"]],
            cancelled=[(advance_words(r, currency), r.reason) for r in mine["cancelled"]],
        )
    )
