"""The template helpers of the live table area (templates/jinja2/games/area.jinja, a Jinja2 template): the
seat ring, the clocks, the advance panel, the log's timeout marks.

The page renders the area whole for its member; the live table renders it once per version for no one in
particular (the public frame) and the member's own parts for those whose part changed (games/live/render.py,
docs/live.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.template import engines
from django.template.defaultfilters import date
from django.utils import timezone
from jinja2 import Template, pass_context
from markupsafe import Markup

import engine
from accounts.models import User
from games.models import Hand
from games.presentation import presenters
from games.presentation.words import seat_state_words
from games.selectors.advance import advance_split
from games.selectors.hands import hand_seat_of
from games.selectors.snapshot import TableSnapshot
from games.services import advance

AREA = "games/area.jinja"
SEAT_ROW = "games/_seat_row.jinja"


def jinja_template(name: str) -> Template:
    """The compiled Jinja2 template ``name`` (templates/jinja2/)."""
    template: Template = engines["jinja2"].env.get_template(name)  # type: ignore[attr-defined]  # the Jinja2 backend's
    return template


# ---- what the parts show -----------------------------------------------------------------------


def _user(context: Mapping[str, Any]) -> User | None:
    user = context.get("user")
    return user if isinstance(user, User) else None


def _snapshot(context: Mapping[str, Any]) -> TableSnapshot:
    """The context's table snapshot: presenters.hand_page puts it there, showing the context's ``hand``."""
    snapshot = context["snapshot"]
    assert isinstance(snapshot, TableSnapshot)
    return snapshot


# What Django's ``date`` writes for these formats, without its locale lookups (a tenth of a ms each).
_PLAIN: dict[str, Callable[[datetime], str]] = {"c": datetime.isoformat, "H:i": lambda moment: f"{moment:%H:%M}"}


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


def seat_row_html(values: Mapping[str, Any], row: dict[str, Any], clocks: list[dict[str, Any]]) -> str:
    """One seat of the ring: ``values``, the area's (its club and the seats' money)."""
    return jinja_template(SEAT_ROW).render(
        club=values.get("club"), clocks=clocks, row=row, seat_money=values.get("seat_money") or {}
    )


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
    user = _user(context)
    if hand is None or user is None or hand.is_finished:
        return Markup("")
    seat = hand_seat_of(hand=hand, user=user)
    if seat is None:
        return Markup("")
    currency = getattr(context.get("club"), "currency", "USD")
    snapshot = _snapshot(context)
    state = snapshot.state
    mine = advance_split(snapshot.advance_rows_of(user.pk))  # this member's rows only
    view = context.get("view")  # the member's own view, already made for their area
    choices = advance.choices_for(state, seat, currency, view=view if isinstance(view, engine.HandView) else None)
    if not (choices or mine["pending"] or mine["cancelled"]):
        return Markup("")
    return Markup(  # noqa: S704 - rendered, escaped there
        jinja_template("games/_advance.jinja").render(
            hand=hand,
            csrf_token=context.get("csrf_token"),
            urls=context.get("urls"),
            choices_bet=[c for c in choices if c.kind == advance.BET],
            choices_sealed=[c for c in choices if c.kind == advance.SEALED],
            pending=[advance.describe(r, currency) for r in mine["pending"]],
            cancelled=[(advance.describe(r, currency), r.reason) for r in mine["cancelled"]],
        )
    )


def marked_log(lines: list[str], hand: Hand | None) -> list[str]:
    """``lines`` (one per event of the hand, in order) with each timeout marked, as
    ``presenters.log_with_timeouts`` allows (not a sealed decision's before the reveal)."""
    return presenters.log_with_timeouts(hand=hand, lines=lines)
