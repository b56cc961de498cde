"""What a Piles hand can still become (engine/reach.py), for the hand helper's words: exact against playing
out every way the cards still face down could turn, and the worked example of the low variant (piles.txt
5.1) where no full house can be made once both squares are up, though the row is still to come."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from engine.cards import FULL_DECK, card
from engine.evaluate import piles_best_high, piles_best_low
from engine.hand_view import PilesBoard
from engine.reach import Reach, piles_high_made, piles_reach

SQUARE1 = ("3d", "8s", "Jh", "Jc")
SQUARE2 = ("Ac", "4s", "9h", "Qd")
ROW = ("5h", "Jd", "2c", "Ks", "7d")
ANN = ("Kd", "9s", "7s", "6s", "Tc")
OLIVE = ("2h", "3c", "6d", "Td", "9d")


def _board(places: list[str | None]) -> PilesBoard:
    return PilesBoard(tuple(places[:4]), tuple(places[4:8]), tuple(places[8:]))


def _by_every_turn(hole: tuple[str, ...], places: list[str | None], variant: bool) -> Reach:
    """Turn the face-down places every way the seat's unseen cards allow, and look."""
    seen = set(hole) | {c for c in places if c is not None}
    pool = [c for c in FULL_DECK if c not in seen]
    down = [k for k, c in enumerate(places) if c is None]
    high = low = False
    for fill in permutations(pool, len(down)):
        full = list(places)
        for k, c in zip(down, fill, strict=True):
            full[k] = c
        sq1, sq2, row = [card(c) for c in full[:4]], [card(c) for c in full[4:8]], [card(c) for c in full[8:]]
        hand = [card(c) for c in hole]
        high = high or piles_best_high(hand, sq1, sq2, row, variant) is not None
        low = low or piles_best_low(hand, sq1, sq2, row, variant) is not None
        if high and low:
            break
    return Reach(high=high, low=low)


def test_the_low_variant_high_is_out_of_reach_once_both_squares_are_up() -> None:
    squares_up = _board([*SQUARE1, *SQUARE2, None, None, None, None, None])
    assert piles_reach(ANN, squares_up, True) == Reach(high=False, low=False)
    assert piles_reach(OLIVE, squares_up, True) == Reach(high=False, low=True)
    one_square = _board([*SQUARE1, "Ac", "4s", None, None, None, None, None, None, None])
    assert piles_reach(ANN, one_square, True).high  # a king and a jack to come could still fill it


def test_without_the_variant_any_legal_five_is_a_high() -> None:
    assert piles_reach(ANN, _board([*SQUARE1, *SQUARE2, *ROW]), False) == Reach(high=True, low=True)  # 7-6-5-4-A


def test_the_high_made_is_named_whether_or_not_it_qualifies() -> None:
    assert piles_high_made(ANN, _board([*SQUARE1, *SQUARE2, *ROW])) == "ace-high straight"
    assert piles_high_made(ANN, _board([*SQUARE1, *SQUARE2, None, None, None, None, None])) is None


@pytest.mark.parametrize("variant", [False, True])
def test_reach_equals_turning_every_way(variant: bool) -> None:
    rng = random.Random(20261206)
    for _ in range(40):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hole, shared = tuple(deck[:5]), deck[5:18]
        places: list[str | None] = list(shared)
        for k in rng.sample(range(13), rng.choice([1, 2])):
            places[k] = None
        assert piles_reach(hole, _board(places), variant) == _by_every_turn(hole, places, variant), (hole, places)
