"""Asynchronous play on the table page: each waiting clock, advance actions, timeouts in the log.

``{% turn_clocks %}``: who the hand waits for and when each clock runs out (the absolute time in
the member's zone, made a live countdown by static/js/clock.js), with "away" badges; while a sealed
decision is open, only the member's own clock (presenters.turn_clocks_for).
``{% advance_panel %}``: the member's own advance actions and the form to set one; rendered only
for that member (games/services/advance.py: never in a view, a group message or another member's page).
``{% marked_log log hand as lines %}``: the hand's log with each timeout marked as one, but a sealed
decision's only once the decisions are open (presenters.log_with_timeouts).
"""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from games import engine, presenters
from games.models import Hand
from games.selectors.advance import advance_for, advance_split
from games.selectors.hands import hand_seat_of
from games.selectors.snapshot import TableSnapshot
from games.services import advance

register = template.Library()


def _user(context: Any) -> User | None:
    request = context.get("request")
    user = getattr(request, "user", None)
    return user if isinstance(user, User) else None


def _snapshot(context: Any, hand: Hand | None) -> TableSnapshot | None:
    """The context's table snapshot (presenters.hand_page puts it there) when it shows ``hand``."""
    snapshot = context.get("snapshot")
    return snapshot if isinstance(snapshot, TableSnapshot) and hand is not None and snapshot.hand is hand else None


@register.inclusion_tag("games/_turn_clocks.html", takes_context=True)
def turn_clocks(context: Any) -> dict[str, Any]:
    hand = context.get("hand")
    return {"clocks": presenters.turn_clocks_for(hand=hand, user=_user(context), snapshot=_snapshot(context, hand))}


@register.inclusion_tag("games/_advance.html", takes_context=True)
def advance_panel(context: Any) -> dict[str, Any]:
    hand: Hand | None = context.get("hand")
    user = _user(context)
    table = context.get("table")
    club = context.get("club")
    out: dict[str, Any] = {"show": False, "table": table, "hand": hand, "csrf_token": context.get("csrf_token"),
                           "urls": context.get("urls")}
    if hand is None or user is None or hand.is_finished:
        return out
    seat = hand_seat_of(hand=hand, user=user)
    if seat is None:
        return out
    currency = getattr(club, "currency", "USD")
    snapshot = _snapshot(context, hand)
    if snapshot is not None:
        state = snapshot.state
        mine = advance_split(snapshot.advance_rows_of(user.pk))
    else:
        state = engine.state_from_json(hand.state)
        mine = advance_for(hand=hand, user=user)
    view = context.get("view")  # the member's own view, already made for their area
    choices = advance.choices_for(state, seat, currency, view=view if isinstance(view, engine.HandView) else None)
    out.update({
        "show": bool(choices or mine["pending"] or mine["cancelled"]),
        "choices_bet": [c for c in choices if c.kind == advance.BET],
        "choices_sealed": [c for c in choices if c.kind == advance.SEALED],
        "pending": [advance.describe(r, currency) for r in mine["pending"]],
        "cancelled": [(advance.describe(r, currency), r.reason) for r in mine["cancelled"]],
        "away": user.away,
    })
    return out


@register.simple_tag(takes_context=True)
def marked_log(context: Any, lines: list[str], hand: Hand | None) -> list[str]:
    """``lines`` (one per event of the hand, in order) with each timeout marked, as
    ``presenters.log_with_timeouts`` allows (not a sealed decision's before the reveal)."""
    snapshot = _snapshot(context, hand)
    return presenters.log_with_timeouts(hand=hand, lines=lines, steps=snapshot.steps if snapshot else None)
