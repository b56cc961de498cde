"""Asynchronous play on the table page: each waiting clock, advance actions, timeouts in the log.

``{% turn_clocks %}``: who the hand waits for and when each clock runs out (the absolute time in
the member's zone, made a live countdown by static/js/clock.js), with "away" badges.
``{% advance_panel %}``: the member's own advance actions and the form to set one; rendered only
for that member (games/advance.py: never in a view, a group message or another member's page).
``{% marked_log log hand as lines %}``: the hand's log with each timeout marked as one.
"""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from games import advance, engine, selectors
from games.models import Hand, HandAction
from games.services.hands import clock_deadline

register = template.Library()


def _user(context: Any) -> User | None:
    request = context.get("request")
    user = getattr(request, "user", None)
    return user if isinstance(user, User) else None


@register.inclusion_tag("games/_turn_clocks.html", takes_context=True)
def turn_clocks(context: Any) -> dict[str, Any]:
    hand: Hand | None = context.get("hand")
    user = _user(context)
    clocks = []
    if hand is not None and not hand.is_finished:
        names = selectors.hand_player_names(hand=hand)
        away = set(User.objects.filter(pk__in=[int(u) for u in hand.players.values()], away=True)
                   .values_list("pk", flat=True))
        for seat in selectors.hand_to_act(hand=hand):
            entry = (hand.clocks or {}).get(str(seat))
            deadline = clock_deadline(entry) if entry else hand.deadline
            user_id = int(hand.players.get(str(seat), 0))
            clocks.append({"seat": seat, "name": names.get(seat, f"Seat {seat}"), "deadline": deadline,
                           "is_me": user is not None and user_id == user.pk, "away": user_id in away})
    return {"clocks": clocks}


@register.inclusion_tag("games/_advance.html", takes_context=True)
def advance_panel(context: Any) -> dict[str, Any]:
    hand: Hand | None = context.get("hand")
    user = _user(context)
    table = context.get("table")
    club = context.get("club")
    out: dict[str, Any] = {"show": False, "table": table, "hand": hand, "csrf_token": context.get("csrf_token")}
    if hand is None or user is None or hand.is_finished:
        return out
    seat = selectors.hand_seat_of(hand=hand, user=user)
    if seat is None:
        return out
    currency = getattr(club, "currency", "USD")
    state = engine.state_from_json(hand.state)
    mine = advance.advance_for(hand=hand, user=user)
    choices = advance.choices_for(state, seat, currency)
    out.update({
        "show": bool(choices or mine["pending"] or mine["cancelled"]),
        "choices_bet": [c for c in choices if c.kind == advance.BET],
        "choices_sealed": [c for c in choices if c.kind == advance.SEALED],
        "pending": [advance.describe(r, currency) for r in mine["pending"]],
        "cancelled": [(advance.describe(r, currency), r.reason) for r in mine["cancelled"]],
        "away": user.away,
    })
    return out


@register.simple_tag
def marked_log(lines: list[str], hand: Hand | None) -> list[str]:
    """``lines`` (one per event of the hand, in order: the deal's, then each action's) with the first
    line of every timed-out action marked "(clock ran out)"."""
    if hand is None or not lines:
        return lines
    out = list(lines)
    index = len(hand.deal_events or [])
    for row in HandAction.objects.filter(hand=hand).order_by("sequence").only("events", "is_timeout"):
        if row.is_timeout and index < len(out):
            out[index] = f"{out[index]} (clock ran out)"
        index += len(row.events or [])
    return out
