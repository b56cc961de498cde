"""What a Piles hand can still become: whether some cards still face down could give a seat a
qualifying high or low, judged from what that seat sees (its hole cards and the shared cards turned).

A legal hand is two hole cards, two cards of one square and one of the row (piles.txt 2.3). Each way
of choosing those uses some cards turned already and some places still face down; a face-down place
may turn up any card the seat has not seen (the others' hands are as unknown to it as the deck).
Only ranks matter for quads, a full house and a low; a straight flush is checked suit by suit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

from .cards import FULL_DECK, Card, card
from .evaluate import piles_best_high
from .hand_view import PilesBoard

_RANKS = tuple(range(2, 15))
# the five ranks of each straight, ace low first (piles.txt: standard hand rankings)
_STRAIGHTS = ((14, 2, 3, 4, 5), *(tuple(range(low, low + 5)) for low in range(2, 11)))


@dataclass(frozen=True, slots=True)
class Reach:
    """Whether a qualifying high (the low variant: a full house or better; else any legal five) and a
    qualifying low can still be made, now or with cards still face down."""

    high: bool
    low: bool


def piles_reach(hole: Sequence[str], board: PilesBoard, variant: bool) -> Reach:
    """What ``hole`` may still make on ``board`` (None: a card face down) under the house rules'
    ``variant`` (piles.txt 5.1). Pure and exact over the cards this seat cannot see."""
    mine = [card(c) for c in hole]
    piles = [[card(c) for c in pile if c is not None] for pile in (board.square1, board.square2, board.row)]
    down = [sum(1 for c in pile if c is None) for pile in (board.square1, board.square2, board.row)]
    seen = {*mine, *(c for pile in piles for c in pile)}
    pool = [c for c in (card(x) for x in FULL_DECK) if c not in seen]
    unseen = _Unseen(set(pool), Counter(c.rank for c in pool))
    high = not variant or any(_high_within(known, free, unseen) for known, free in _ways(mine, piles, down))
    # A low uses no card above its top rank: the ways of the low cards alone are all that may make one (a tenth
    # or fewer of all the ways, and this search runs for every seat at every card turned).
    top = _low_top(variant)
    lows = [[c for c in cards if _low_rank(c) <= top] for cards in (mine, *piles)]
    low = any(_low_within(known, free, unseen, variant) for known, free in _ways(lows[0], lows[1:], down))
    return Reach(high=high, low=low)


@dataclass(frozen=True, slots=True)
class _Unseen:
    """The cards a seat has not seen, and how many of each rank."""

    cards: set[Card]
    ranks: Counter[int]


def _ways(mine: list[Card], piles: list[list[Card]], down: list[int]) -> set[tuple[frozenset[Card], int]]:
    """Each legal choice as (the cards turned it uses, how many face-down places it uses)."""
    row_choices: list[tuple[tuple[Card, ...], int]] = [((c,), 0) for c in piles[2]]
    if down[2]:
        row_choices.append(((), 1))
    ways: set[tuple[frozenset[Card], int]] = set()
    for pair in combinations(mine, 2):
        for square, hidden in ((piles[0], down[0]), (piles[1], down[1])):
            for k in range(3):
                if 2 - k > hidden:
                    continue
                for known in combinations(square, k):
                    for row, row_free in row_choices:
                        ways.add((frozenset((*pair, *known, *row)), 2 - k + row_free))
    return ways


def _high_within(known: frozenset[Card], free: int, unseen: _Unseen) -> bool:
    """The low variant's high (piles.txt 5.1): a full house or better. (Without the variant any legal five
    is a high, and a way exists, so one will be made.)"""
    return _full_house_within(known, free, unseen) or _straight_flush_within(known, unseen)


def _full_house_within(known: frozenset[Card], free: int, unseen: _Unseen) -> bool:
    """Four of a kind or a full house: five cards of at most two ranks, the rest of each from ``pool``."""
    base = Counter(c.rank for c in known)
    if len(base) > 2:
        return False
    counts = unseen.ranks
    shapes = [set(base)] if len(base) == 2 else [{*base, other} for other in _RANKS]
    for ranks in shapes:
        for extra in combinations_with_replacement(sorted(ranks), free):
            wanted = Counter(extra)
            if any(counts[r] < n for r, n in wanted.items()):
                continue
            shape = sorted((base + wanted).values(), reverse=True)
            if shape[0] >= 4 or shape[:2] == [3, 2]:
                return True
    return False


def _straight_flush_within(known: frozenset[Card], unseen: _Unseen) -> bool:
    suits = {c.suit for c in known}
    if len(suits) > 1:
        return False
    pool_set = unseen.cards
    for suit in suits or set("cdhs"):
        for ranks in _STRAIGHTS:
            five = {Card(r, suit) for r in ranks}
            if known <= five and all(c in pool_set for c in five - known):
                return True
    return False


def _low_rank(c: Card) -> int:
    return 1 if c.rank == 14 else c.rank


def _low_top(variant: bool) -> int:
    """piles.txt 4.4: a low's ranks are eight or lower; 5.1(a), the variant: five or lower."""
    return 5 if variant else 8


def _low_within(known: frozenset[Card], free: int, unseen: _Unseen, variant: bool) -> bool:
    """piles.txt 4.4: five different ranks, eight or lower; 5.1(a), the variant: five or lower, ranks
    may repeat."""
    top = _low_top(variant)
    ranks = [_low_rank(c) for c in known]
    if any(r > top for r in ranks):
        return False
    if variant:
        return sum(n for r, n in unseen.ranks.items() if r <= top or r == 14) >= free
    if len(set(ranks)) < len(ranks):
        return False
    open_ranks = {1 if r == 14 else r for r, n in unseen.ranks.items() if n and (r <= top or r == 14)} - set(ranks)
    return len(open_ranks) >= free


def piles_high_made(hole: Sequence[str], board: PilesBoard) -> str | None:
    """The name of the best legal high on the cards turned, qualifying or not (the low variant's high must
    be a full house or better, piles.txt 5.1: this names one that falls short); None: no legal five yet."""
    sq1, sq2, row = ([card(c) for c in pile if c is not None] for pile in (board.square1, board.square2, board.row))
    value = piles_best_high([card(c) for c in hole], sq1, sq2, row, False)
    return value.name if value is not None else None
