"""The rules engine: a pure library (no Django, no I/O, no clock, no global random).

Public API (others code against these names):

cards       Card, parse_cards, format_cards, shuffled_deck, deck_commitment,
            new_salt, verify_commitment
evaluation  HandValue, LowValue, piranha_best, piles_best_high, piles_best_low
rules       PiranhaRules, PilesRules (to_dict/from_dict/validate), rules_from_dict
play        new_hand, legal_actions, apply, to_act, timeout_action, view, is_over,
            result, replay, state_to_json, state_from_json
actions     Action, action_to_dict, action_from_dict
events      Event
errors      EngineError, IllegalAction, CardError

Every play function dispatches on ``state.game`` ("piranha" or "piles") to
the module of that variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .actions import Action, action_from_dict, action_to_dict
from .cards import (
    Card,
    deck_commitment,
    format_cards,
    new_salt,
    parse_cards,
    shuffled_deck,
    verify_commitment,
)
from .errors import CardError, EngineError, IllegalAction
from .evaluate import HandValue, LowValue, piles_best_high, piles_best_low, piranha_best
from .events import Event
from .rules import PilesRules, PiranhaRules, Rules, rules_from_dict

State = Any  # PiranhaState | PilesState once the state machines land


def new_hand(rules: Rules, *, seats: Sequence[int], button: int, deck: Sequence[str],
             carry_pot: int = 0, hand_number: int = 1) -> tuple[State, list[Event]]:
    """Deal a hand and post the forced bets; return the state and the events of the deal."""
    raise NotImplementedError


def legal_actions(state: State, seat: int) -> list[Action]:
    """The actions ``seat`` may take now; empty when it is not that seat's decision."""
    raise NotImplementedError


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; raise IllegalAction naming the rule broken."""
    raise NotImplementedError


def to_act(state: State) -> tuple[int, ...]:
    """Seats whose decision is awaited now; empty when the hand is over."""
    raise NotImplementedError


def timeout_action(state: State, seat: int) -> Action:
    """The default action when ``seat``'s clock runs out (DESIGN.md)."""
    raise NotImplementedError


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (None: the public view), JSON-ready."""
    raise NotImplementedError


def is_over(state: State) -> bool:
    raise NotImplementedError


def result(state: State) -> dict[str, Any] | None:
    raise NotImplementedError


def state_to_json(state: State) -> dict[str, Any]:
    raise NotImplementedError


def state_from_json(data: Mapping[str, Any]) -> State:
    raise NotImplementedError


def replay(rules: Rules, *, seats: Sequence[int], button: int, deck: Sequence[str],
           carry_pot: int = 0, hand_number: int = 1,
           log: Sequence[tuple[int, Action]] = ()) -> State:
    """Rebuild a hand from its deal and action log; equals the stored state."""
    raise NotImplementedError


__all__ = [
    "Action", "Card", "CardError", "EngineError", "Event", "HandValue", "IllegalAction",
    "LowValue", "PilesRules", "PiranhaRules", "Rules", "State", "action_from_dict",
    "action_to_dict", "apply", "deck_commitment", "format_cards", "is_over",
    "legal_actions", "new_hand", "new_salt", "parse_cards", "piles_best_high",
    "piles_best_low", "piranha_best", "replay", "result", "rules_from_dict",
    "shuffled_deck", "state_from_json", "state_to_json", "timeout_action", "to_act",
    "verify_commitment", "view",
]
