"""Fixtures of the games tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from games.services import dealing


@pytest.fixture
def fixed_decks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[str]], None]]:
    """Queue fixed orders for the hands dealt automatically after one ends (the first comes from ``deck=``):
    each sets the order the cards are dealt in (after the cut), and such a hand is committed at its deal.

    Replaces only where the dealt order comes from; every other part runs for real.
    """
    queue: list[list[str]] = []

    def next_deck() -> list[str] | None:
        return queue.pop(0) if queue else None

    monkeypatch.setattr(dealing, "fixed_dealt_order", next_deck)
    yield queue.append
