"""A finished hand told in words on its page, one line per event: the deal's, then each action's."""

from __future__ import annotations

from typing import Any

import engine
from games.models import Hand
from games.presentation.presenters import TIMEOUT_MARK, action_label
from games.presentation.words import event_words
from games.selectors.hands import hand_actions, sealed_action_hidden


def hand_story(*, hand: Hand, names: dict[int, str], currency: str) -> list[dict[str, Any]]:
    """The finished hand told one line per event, in order: the deal's, then each action's.

    Each line is ``{"text", "timeout"}``; the first line of an action the clock took is marked
    ``timeout`` (and says so). A sealed decision ("Ann has decided.") is told with its choice, which
    is public once the decisions were opened; one a table's closing stopped before the opening stays
    "has decided.", unmarked (``sealed_action_hidden``). Only call this for a finished hand.
    """
    lines = [
        {"text": event_words(engine.event_from_json(e), names=names, currency=currency), "timeout": False}
        for e in hand.deal_events or []
    ]
    for row in hand_actions(hand=hand):
        who = names.get(row.seat, f"Seat {row.seat}")
        events = [engine.event_from_json(e) for e in row.events or []]
        hidden = sealed_action_hidden(hand=hand, row=row, seat=None)
        if hidden:
            told = [event_words(e, names=names, currency=currency) for e in events]
        else:
            action = engine.action_from_dict(row.action)
            told = [
                decision_words(action, who=who)
                if isinstance(e, engine.Decided)
                else event_words(e, names=names, currency=currency)
                for e in events
            ]
            if not told:  # every action logs an event; never lose one if it did not
                told = [f"{who}: {action_label(action, currency)}."]
        for k, text in enumerate(told):
            timeout = bool(row.is_timeout and k == 0 and not hidden)
            lines.append({"text": f"{text} {TIMEOUT_MARK}" if timeout else text, "timeout": timeout})
    return lines


def decision_words(action: engine.Action, *, who: str) -> str:
    """A sealed decision told after the hand: 'Ann declares pig (both ways).', 'Ben stays in.'."""
    kind = action.type
    if kind == "declare":
        choice = {"high": "high", "low": "low", "pig": "pig (both ways)"}.get(str(action.choice), "")
        return f"{who} declares {choice}." if choice else f"{who} declares."
    if kind == "in":
        return f"{who} stays in."
    if kind == "out":
        return f"{who} drops out."
    return f"{who} has decided."
