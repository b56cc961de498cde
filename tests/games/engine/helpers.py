"""Helpers for engine tests: stacked decks and short ways to write hands.

Short names for actions (CHECK, FOLD, HIGH, ...) are the engine's own: games.engine.actions."""

from __future__ import annotations

from collections.abc import Sequence

from games.engine import Card, parse_cards
from games.engine.cards import FULL_DECK


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def stack_deck(hole: Sequence[str], shared: str, *, per_player: int) -> list[str]:
    """A deck dealing ``hole[k]`` to the k-th seat after the button, then the shared cards in order.

    Cards are dealt one at a time clockwise from the seat after the button
    (games/engine piranha.py / piles.py docstrings); the rest of the deck
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

