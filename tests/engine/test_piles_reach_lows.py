"""The hand helper's search for a low (engine/reach.py ``piles_reach``) looks only at the ways of the cards a low
may use (none above its top rank): at every stage of random boards, with any number of places still face down, it
finds a low exactly when some way of all the cards does."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import reach
from engine.cards import FULL_DECK, card
from engine.hand_view import PilesBoard


def _low_over_every_way(hole: tuple[str, ...], board: PilesBoard, variant: bool) -> bool:
    mine = [card(c) for c in hole]
    piles = [[card(c) for c in pile if c is not None] for pile in (board.square1, board.square2, board.row)]
    down = [sum(1 for c in pile if c is None) for pile in (board.square1, board.square2, board.row)]
    seen = {*mine, *(c for pile in piles for c in pile)}
    pool = [c for c in (card(x) for x in FULL_DECK) if c not in seen]
    unseen = reach._Unseen(set(pool), Counter(c.rank for c in pool))
    return any(reach._low_within(known, free, unseen, variant) for known, free in reach._ways(mine, piles, down))


@pytest.mark.parametrize("variant", [False, True])
def test_the_low_found_among_the_low_cards_is_the_low_found_among_all(variant: bool) -> None:
    rng = random.Random(61206)
    found: Counter[bool] = Counter()
    for _ in range(300):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hole, places = tuple(deck[:5]), list[str | None](deck[5:18])
        for k in rng.sample(range(13), rng.randrange(14)):  # from every place face down to none
            places[k] = None
        board = PilesBoard(tuple(places[:4]), tuple(places[4:8]), tuple(places[8:]))
        low = reach.piles_reach(hole, board, variant).low
        assert low == _low_over_every_way(hole, board, variant), (hole, places)
        found[low] += 1
    assert found[True] > 20 and found[False] > 20  # both answers, many times
