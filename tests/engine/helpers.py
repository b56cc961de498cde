"""Helpers for engine tests: stacked decks and short ways to write hands.

Short names for actions (CHECK, FOLD, HIGH, ...) are the engine's own: engine.actions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from engine import Card, parse_cards
from engine.cards import FULL_DECK
from engine.piles import turned


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def stack_deck(hole: Sequence[str], shared: str, *, per_player: int) -> list[str]:
    """A deck dealing ``hole[k]`` to the k-th seat after the button, then the shared cards in order.

    Cards are dealt one at a time clockwise from the seat after the button
    (engine/piranha.py / piles.py docstrings); the rest of the deck
    follows in a fixed order.
    """
    hands = [[c.code for c in parse_cards(h)] for h in hole]
    n = len(hands)
    assert all(len(h) == per_player for h in hands)
    deck = [hands[k % n][k // n] for k in range(per_player * n)]
    deck += [c.code for c in parse_cards(shared)]
    assert len(set(deck)) == len(deck), "a card is stacked twice"
    rest = [c for c in FULL_DECK if c not in deck]
    return deck + rest


def visible_cards(state: Any, seat: int | None) -> set[str]:
    """Every card ``seat`` may see in ``state`` (None: a spectator): its own hole, the board cards
    turned, the hands shown at the showdown. Worked out from the state, not from ``view``: the
    oracle the no-leak checks hold views against."""
    seen: set[str] = set()
    if seat in state.seats:
        seen |= set(state.hole[state.seats.index(seat)])
    if state.game == "piranha":
        seen |= set(state.board[: state.board_up])
    else:
        up = turned(state)
        seen |= set(state.square1[: up["square1"]]) | set(state.square2[: up["square2"]]) | set(state.row[: up["row"]])
    for shown in state.outcome.hands if state.outcome is not None else ():
        seen |= set(shown.hole)
    return seen


def mutable_parts(value: object, path: str = "state") -> list[str]:
    """Where a value holds something another caller could change or that is free-form: a list,
    dict, set or any mapping, or a record that is not frozen. Empty for a typed, frozen state."""
    if isinstance(value, (list, dict, set, bytearray, Mapping)):
        return [path]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        own = [] if type(value).__dataclass_params__.frozen else [path]  # type: ignore[attr-defined]
        return own + [
            p for f in dataclasses.fields(value) for p in mutable_parts(getattr(value, f.name), f"{path}.{f.name}")
        ]
    if isinstance(value, tuple):
        return [p for k, v in enumerate(value) for p in mutable_parts(v, f"{path}[{k}]")]
    return []
