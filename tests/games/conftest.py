"""Fixtures of the games tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from games.services import dealing


@pytest.fixture
def fixed_decks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[str]], None]]:
    """Queue fixed decks for the hands dealt automatically after one ends (the first comes from ``deck=``).

    Replaces only where the next deck comes from; every other part runs for real.
    """
    queue: list[list[str]] = []
    real = dealing.deck_for_new_hand

    def next_deck() -> list[str]:
        return queue.pop(0) if queue else real()

    monkeypatch.setattr(dealing, "deck_for_new_hand", next_deck)
    yield queue.append
