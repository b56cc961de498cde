"""The evaluator against independent references: pokerkit, treys and a brute force.

High hands: pokerkit (ordering and category of 40,000 hands in 20,000 deals;
best-of-nine on a smaller sample, since its best-of-game API does about 900
hands a second), and treys over all five-card subsets for best-ness on all
20,000 deals. Lows: an independent brute force over every legal combination.
"""

from __future__ import annotations

import random
from itertools import combinations

from pokerkit import StandardHighHand
from treys import Card as TreysCard
from treys import Evaluator

from engine import Card, piles_best_high, piles_best_low, piranha_best
from engine.cards import FULL_DECK, card

TREYS = Evaluator()
_FIVE = TREYS.hand_size_map[5]


def _pk(cards: list[Card] | tuple[Card, ...]) -> StandardHighHand:
    return StandardHighHand("".join(c.code for c in cards))


def _treys_best(cards: list[Card]) -> int:
    ints = [TreysCard.new(c.code) for c in cards]
    return min(map(_FIVE, combinations(ints, 5)))  # treys: lower is better


def _treys(cards: tuple[Card, ...] | list[Card]) -> int:
    return _FIVE([TreysCard.new(c.code) for c in cards])


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def test_high_hands_agree_with_pokerkit_on_20000_deals():
    """Orderings between two players' best hands, and categories, as pokerkit ranks the five used."""
    rng = random.Random(610)
    for _ in range(20_000):
        deal = [card(c) for c in rng.sample(FULL_DECK, 13)]
        board = deal[8:]
        a = piranha_best(deal[:4], board)
        b = piranha_best(deal[4:8], board)
        pa, pb = _pk(a.cards), _pk(b.cards)
        assert a.category.replace("royal flush", "straight flush") == pa.entry.label.value.lower()
        assert _sign((a > b) - (a < b)) == _sign((pa > pb) - (pa < pb)), (a, b, pa, pb)


def test_piranha_best_of_nine_is_the_best_subset_on_20000_deals_by_treys():
    rng = random.Random(611)
    for _ in range(20_000):
        deal = [card(c) for c in rng.sample(FULL_DECK, 9)]
        ours = piranha_best(deal[:4], deal[4:])
        assert set(ours.cards) <= set(deal)
        assert _treys(ours.cards) == _treys_best(deal), (deal, ours)


def test_piranha_best_of_nine_matches_pokerkit_best_hand_on_1000_deals():
    rng = random.Random(612)
    for _ in range(1_000):
        deal = [card(c) for c in rng.sample(FULL_DECK, 9)]
        ours = piranha_best(deal[:4], deal[4:])
        theirs = StandardHighHand.from_game("".join(c.code for c in deal[:4]), "".join(c.code for c in deal[4:]))
        assert _pk(ours.cards) == theirs


def test_piranha_with_seven_and_eight_cards_is_the_best_subset():
    rng = random.Random(613)
    for size in (5, 6, 7, 8):
        for _ in range(1_000):
            deal = [card(c) for c in rng.sample(FULL_DECK, size)]
            ours = piranha_best(deal[:4], deal[4:])
            assert _treys(ours.cards) == _treys_best(deal)


def _legal_fives(hole, sq1, sq2, row):
    """Every legal Piles five (piles.txt 2.3), written independently of the engine."""
    for h in combinations(hole, 2):
        for sq in (sq1, sq2):
            for s in combinations(sq, 2):
                for r in row:
                    yield (*h, *s, r)


def _piles_deal(rng: random.Random, deck=FULL_DECK):
    d = [card(c) for c in rng.sample(deck, 18)]
    return d[:5], d[5:9], d[9:13], d[13:18]


def test_piles_high_is_the_best_legal_five_by_treys_brute_force():
    rng = random.Random(554)
    for _ in range(1_000):
        hole, sq1, sq2, row = _piles_deal(rng)
        ours = piles_best_high(hole, sq1, sq2, row)
        assert ours is not None
        best = min(_treys(f) for f in _legal_fives(hole, sq1, sq2, row))
        assert _treys(ours.cards) == best
        assert len(set(ours.cards) & set(hole)) == 2 and len(set(ours.cards) & set(row)) == 1
        assert len(set(ours.cards) & set(sq1)) in (0, 2) and len(set(ours.cards) & set(sq2)) in (0, 2)


def test_piles_high_matches_pokerkit_over_the_legal_fives():
    rng = random.Random(555)
    for _ in range(60):
        hole, sq1, sq2, row = _piles_deal(rng)
        ours = piles_best_high(hole, sq1, sq2, row)
        assert ours is not None
        theirs = max(_pk(f) for f in _legal_fives(hole, sq1, sq2, row))
        assert _pk(ours.cards) == theirs


def _brute_low(hole, sq1, sq2, row, variant):
    best = None
    for five in _legal_fives(hole, sq1, sq2, row):
        ranks = sorted((1 if c.rank == 14 else c.rank for c in five), reverse=True)
        ok = ranks[0] <= 5 if variant else (ranks[0] <= 8 and len(set(ranks)) == 5)
        if ok and (best is None or ranks < best):
            best = ranks
    return best


LOW_DECK = tuple(c for c in FULL_DECK if c[0] in "A2345678") + ("9c", "Td", "Jh", "Ks")
VARIANT_DECK = tuple(c for c in FULL_DECK if c[0] in "A2345") + ("6c", "7d", "9h", "Ks", "Qc", "Jd")


def test_both_lows_agree_with_an_independent_brute_force():
    rng = random.Random(5541)
    decks = (FULL_DECK, LOW_DECK, VARIANT_DECK)
    qualified = {False: 0, True: 0}
    for k in range(1_500):
        hole, sq1, sq2, row = _piles_deal(rng, decks[k % 3])
        for variant in (False, True):
            ours = piles_best_low(hole, sq1, sq2, row, variant=variant)
            expected = _brute_low(hole, sq1, sq2, row, variant)
            if expected is None:
                assert ours is None
                continue
            qualified[variant] += 1
            assert ours is not None and list(ours.ranks) == expected
            assert sorted((1 if c.rank == 14 else c.rank for c in ours.cards), reverse=True) == expected
            assert len(set(ours.cards) & set(hole)) == 2 and len(set(ours.cards) & set(row)) == 1
    assert qualified[False] > 300 and qualified[True] > 300  # the sample exercises both lows


def test_low_ordering_agrees_with_the_brute_force_comparison():
    rng = random.Random(5542)
    for _ in range(500):
        a_deal = _piles_deal(rng, LOW_DECK)
        b_deal = _piles_deal(rng, LOW_DECK)
        a, b = piles_best_low(*a_deal), piles_best_low(*b_deal)
        ea, eb = _brute_low(*a_deal, False), _brute_low(*b_deal, False)
        if a is None or b is None:
            continue
        assert (a > b) == (ea < eb) and (a == b) == (ea == eb)
