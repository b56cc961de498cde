"""Player actions and their JSON form.

{"type": "check"}, {"type": "bet"}, {"type": "call"}, {"type": "fold"},
{"type": "raise"} (each with an optional "amount" that must equal the fixed
limit), {"type": "in"}, {"type": "out"} (the Piranha drop) and
{"type": "declare", "choice": "high" | "low" | "pig"} (the Piles
declaration; {"type": "fold"} is also valid there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import IllegalAction


class ActionKind(StrEnum):
    """What an action does: its ``type`` in the JSON form. A kind equals, hashes and prints as its string, so
    an ``Action.type`` compares with it and the stored JSON stays the same."""

    CHECK = "check"
    BET = "bet"
    CALL = "call"
    RAISE = "raise"
    FOLD = "fold"
    IN = "in"
    OUT = "out"
    DECLARE = "declare"


ACTION_TYPES = tuple(ActionKind)
CHOICES = ("high", "low", "pig")


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat.

    ``amount`` (cents) is optional on bet/call/raise: in fixed limit it is
    implied, and when given it must equal the limit. ``choice`` is required on
    declare and forbidden elsewhere.
    """

    type: str
    amount: int | None = None
    choice: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return action_to_dict(self)


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action: only the keys that are set."""
    out: dict[str, Any] = {"type": action.type}
    if action.amount is not None:
        out["amount"] = action.amount
    if action.choice is not None:
        out["choice"] = action.choice
    return out


def action_from_dict(data: Mapping[str, Any] | Any) -> Action:
    """Read an action from its JSON form; raises IllegalAction when malformed."""
    if not isinstance(data, Mapping):
        raise IllegalAction('An action must be an object like {"type": "check"}')
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise IllegalAction(f"Unknown action {kind!r}: use one of {', '.join(ACTION_TYPES)}")
    unknown = set(data) - {"type", "amount", "choice"}
    if unknown:
        raise IllegalAction(f"Unexpected field in action: {', '.join(sorted(map(str, unknown)))}")
    amount = data.get("amount")
    if amount is not None:
        if kind not in ("bet", "call", "raise"):
            raise IllegalAction(f"A {kind} carries no amount")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise IllegalAction("An amount must be a positive whole number of cents")
    choice = data.get("choice")
    if kind == "declare":
        if choice not in CHOICES:
            raise IllegalAction("Declare high, low or pig")
    elif choice is not None:
        raise IllegalAction(f"A {kind} carries no choice")
    return Action(str(kind), amount, choice if isinstance(choice, str) else None)


CHECK = Action("check")
BET = Action("bet")
CALL = Action("call")
RAISE = Action("raise")
FOLD = Action("fold")
IN = Action("in")
OUT = Action("out")
HIGH = Action("declare", choice="high")
LOW = Action("declare", choice="low")
PIG = Action("declare", choice="pig")
