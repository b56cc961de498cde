"""Hand evaluation (stub; being implemented)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card


class HandValue:  # placeholder
    pass


class LowValue:  # placeholder
    pass


def piranha_best(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    raise NotImplementedError


def piles_best_high(hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card],
                    row: Sequence[Card], variant: bool = False) -> HandValue | None:
    raise NotImplementedError


def piles_best_low(hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card],
                   row: Sequence[Card], variant: bool = False) -> LowValue | None:
    raise NotImplementedError
