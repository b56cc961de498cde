"""Hand evaluation: the rankings, Piranha's any-mix best five, Piles' legal hands and lows."""

from __future__ import annotations

import pytest

from engine import CardError, HandValue, LowValue, piles_best_high, piles_best_low, piranha_best
from tests.engine.helpers import cards

# ---- the worked examples first ------------------------------------------------------------


def test_piranha_example_any_mix_kings_full_beats_sevens_full():
    """piranha.txt Article 4 Example: board 7c 7d Kh + 2s 9c; A: Kd Ks 4h 5h; B: 7s 8c 3d 3h."""
    board = cards("7c 7d Kh 2s 9c")
    a = piranha_best(cards("Kd Ks 4h 5h"), board)
    b = piranha_best(cards("7s 8c 3d 3h"), board)
    assert a.name == "kings full of sevens"
    assert sorted(c.rank for c in a.cards) == [7, 7, 13, 13, 13]  # K-K-K-7-7
    assert b.name == "sevens full of threes"
    assert sorted(c.rank for c in b.cards) == [3, 3, 7, 7, 7]  # 7-7-7-3-3
    # B uses three hole cards and two board cards, which Omaha would forbid
    assert len(set(b.cards) & set(cards("7s 8c 3d 3h"))) == 3
    assert a > b


def test_piles_example_one_hand_both_ways():
    """piles.txt worked example "One hand, both ways": four jacks with a nine, and 5-4-3-2-A."""
    pile1, pile2 = cards("3d 8s Jh Jc"), cards("Ac 4s 9h Qd")
    row = cards("5h Jd 2c Ks 7d")
    hole = cards("Js 9c 6d 3h 2s")
    high = piles_best_high(hole, pile1, pile2, row)
    low = piles_best_low(hole, pile1, pile2, row)
    assert high is not None and low is not None
    assert high.name == "four jacks"
    assert high.full_name == "four jacks with a nine"
    assert set(high.cards) == set(cards("Js 9c Jh Jc Jd"))
    assert low.name == "5-4-3-2-A low"
    assert set(low.cards) == set(cards("3h 2s Ac 4s 5h"))


# ---- the rankings ----------------------------------------------------------------------

RANKED = [  # best first: the hand rankings line of both documents
    ("As Ks Qs Js Ts", "royal flush", "royal flush"),
    ("9h 8h 7h 6h 5h", "straight flush", "nine-high straight flush"),
    ("5d 4d 3d 2d Ad", "straight flush", "five-high straight flush"),
    ("Jc Jd Jh Js 9c", "four of a kind", "four jacks"),
    ("Kc Kd Kh 7s 7c", "full house", "kings full of sevens"),
    ("Ah Jh 9h 6h 3h", "flush", "ace-high flush"),
    ("Ac Kd Qh Js Tc", "straight", "ace-high straight"),
    ("5c 4d 3h 2s Ac", "straight", "five-high straight"),
    ("6c 6d 6h Ks 2c", "three of a kind", "three sixes"),
    ("Kc Kd 7h 7s 2c", "two pair", "two pair, kings and sevens"),
    ("Ac Ad 9h 7s 2c", "one pair", "pair of aces"),
    ("Ac Qd 9h 7s 2c", "high card", "ace high"),
]


@pytest.mark.parametrize(("text", "category", "name"), RANKED)
def test_hand_rankings_line_names_each_category(text, category, name):
    """Both documents' last line: the hand rankings, high to low."""
    value = piranha_best(cards(text), [])
    assert value.category == category
    assert value.name == name


def test_hand_rankings_line_orders_the_categories():
    values = [piranha_best(cards(t), []) for t, _, _ in RANKED]
    assert values == sorted(values, reverse=True)
    assert all(a > b for a, b in zip(values, values[1:], strict=False))


def test_the_wheel_is_the_lowest_straight():
    wheel = piranha_best(cards("5c 4d 3h 2s Ac"), [])
    six = piranha_best(cards("6c 5d 4h 3s 2c"), [])
    trips = piranha_best(cards("Ac Ad Ah Ks Qc"), [])
    assert trips < wheel < six
    assert [c.rank for c in wheel.cards] == [5, 4, 3, 2, 14]


def test_suits_never_break_ties():
    """Both documents: "Suits never break ties"."""
    a = piranha_best(cards("Ac Kd Qh Js 9c"), [])
    b = piranha_best(cards("As Kh Qd Jc 9d"), [])
    assert a == b
    assert hash(a) == hash(b)
    assert not a < b and not b < a


def test_kickers_decide_within_a_category():
    assert piranha_best(cards("Ac Ad Kh 7s 2c"), []) > piranha_best(cards("Ac Ad Qh Js Tc"), [])
    assert piranha_best(cards("Kc Kd 7h 7s Ac"), []) > piranha_best(cards("Kc Kd 7h 7s Qc"), [])
    assert piranha_best(cards("Jc Jd Jh Js 9c"), []).full_name == "four jacks with a nine"


# ---- Piranha: best five of up to nine, any mix --------------------------------------------


def test_piranha_1_2_best_five_from_any_mix_even_no_hole_card():
    """piranha.txt 1.2 and FAQ "Do you have to use two hole cards?": no, any combination."""
    board = cards("9h 8h 7h 6h 5h")
    value = piranha_best(cards("2c 3d Ks As"), board)
    assert value.name == "nine-high straight flush"
    assert set(value.cards) == set(board)
    four_hole = piranha_best(cards("Ac Ad Ah As"), cards("2c 7d 9s"))
    assert four_hole.name == "four aces"


def test_piranha_best_uses_the_flush_in_nine_cards_when_it_beats_the_rest():
    value = piranha_best(cards("2h 9h Kc Kd"), cards("4h 7h Jh Ks 3c"))
    assert value.name == "jack-high flush"
    assert {c.suit for c in value.cards} == {"h"}


def test_piranha_prefers_full_house_over_flush_and_quads_over_full_house():
    assert piranha_best(cards("Kc Kd 2h 3h"), cards("Kh 7h 9h 2d 2s")).name == "kings full of twos"
    assert piranha_best(cards("Kc Kd Ks 3h"), cards("Kh 7h 7d 7s 2s")).name == "four kings"


def test_piranha_hand_helper_works_before_the_turn_with_seven_cards():
    """piranha.txt Article 5: the three face-up cards are known before the drop."""
    value = piranha_best(cards("Kd Ks 4h 5h"), cards("7c 7d Kh"))
    assert value.name == "kings full of sevens"


def test_piranha_best_refuses_too_few_cards_and_repeated_cards():
    with pytest.raises(CardError):
        piranha_best(cards("Kd Ks"), cards("7c 7d"))
    with pytest.raises(CardError):
        piranha_best(cards("Kd Ks 4h 5h"), cards("Kd 7d Kh"))


# ---- Piles: the legal hand --------------------------------------------------------------


def test_piles_2_3_high_uses_exactly_two_hole_two_of_one_square_one_row():
    """piles.txt 2.3: three hole kings cannot play; squares cannot be mixed."""
    hole = cards("Kc Kd Kh 2s 3d")
    sq1 = cards("Ks 4c 9d Th")
    sq2 = cards("As Ah 8c 6d")
    row = cards("Ac Jd 5h 7s Qc")
    value = piles_best_high(hole, sq1, sq2, row)
    assert value is not None
    # best legal: K-K (hole) + A-A (square 2) + A (row) = aces full of kings
    assert value.name == "aces full of kings"
    used = set(value.cards)
    assert len(used & set(hole)) == 2
    assert len(used & set(row)) == 1
    assert len(used & set(sq1)) in (0, 2) and len(used & set(sq2)) in (0, 2)


def test_piles_2_2_squares_are_not_mixed_for_a_flush():
    """piles.txt 2.2(a)-(b), 2.3: two cards of ONE square; a heart in each square makes no flush."""
    hole = cards("Ah Kh 2c 3d 4s")
    sq1 = cards("Qh 5c 6d 7s")
    sq2 = cards("Jh 8c 9d Ts")
    row = cards("2h 3c 4c 5d 6s")
    value = piles_best_high(hole, sq1, sq2, row)
    assert value is not None and value.category != "flush"


def test_piles_flush_and_straight_flush_from_legal_cards():
    hole = cards("9s 8s 2c 3d 4h")
    sq1 = cards("7s 6s Kd Kc")
    sq2 = cards("Ah Ad Ac 2d")
    row = cards("5s Qc Jd Th 3s")
    value = piles_best_high(hole, sq1, sq2, row)
    assert value is not None and value.name == "nine-high straight flush"


def test_piles_partial_board_returns_none_until_a_legal_five_exists():
    hole = cards("Js 9c 6d 3h 2s")
    assert piles_best_high(hole, cards("3d 8s"), [], []) is None
    assert piles_best_low(hole, cards("3d 8s"), [], []) is None
    value = piles_best_high(hole, cards("3d 8s"), cards("Ac 4s"), cards("5h"))
    assert value is not None and value.name == "five-high straight"
    low = piles_best_low(hole, cards("3d 8s"), cards("Ac 4s"), cards("5h"))
    assert low is not None and low.name == "5-4-3-2-A low"


def test_piles_refuses_a_card_given_twice():
    with pytest.raises(CardError):
        piles_best_high(cards("Js 9c 6d 3h 2s"), cards("Js 8s"), [], cards("5h"))


# ---- lows -------------------------------------------------------------------------------


def test_piles_1_3_low_is_ace_to_five_straights_and_flushes_do_not_count():
    """piles.txt 1.3: 5-4-3-2-A (even all hearts) is the best low."""
    hole = cards("Ah 2h 9c Tc Jc")
    low = piles_best_low(hole, cards("3h 4h Kd Qd"), cards("Ks Qs Js Ts"), cards("5h 9d"))
    assert low is not None and low.name == "5-4-3-2-A low"


def test_piles_4_4_low_needs_five_different_ranks_eight_or_lower():
    """piles.txt 4.4: all five different and eight or lower."""
    sq = cards("2c 3c Kd Qd")
    assert piles_best_low(cards("9h 4d Ts Js Qs"), sq, [], cards("5h")) is None  # only one low hole card
    assert piles_best_low(cards("Ah As Kc Qc Jc"), sq, [], cards("5h")) is None  # a pair does not qualify
    low = piles_best_low(cards("8h 7s Kc Qc Jc"), sq, [], cards("4h"))
    assert low is not None and low.name == "8-7-4-3-2 low"


def test_piles_4_4_no_low_when_the_row_has_nothing_below_nine():
    """piles.txt 4.4: if the row has no card below nine, no low is possible."""
    assert (
        piles_best_low(cards("Ah 2h 3c 4c 5c"), cards("6d 7d 8d Kd"), cards("2s 3s 4s 5s"), cards("9h Tc Jd Qs Kh"))
        is None
    )


def test_piles_4_4_no_low_when_neither_square_has_two_different_low_cards():
    """piles.txt 4.4: neither square with two different cards below nine means no low."""
    assert (
        piles_best_low(cards("Ah 2h 3c 4c 5c"), cards("6d 6h Kd Qd"), cards("7s 7c Js Ts"), cards("8h 2c 3d 4s 5s"))
        is None
    )


def test_low_names_and_order_compare_from_the_highest_card_down():
    hole = cards("Ah 2h Kc Kd Ks")
    low_a = piles_best_low(hole, cards("4c 6d"), [], cards("8s"))
    low_b = piles_best_low(hole, cards("3c 7d"), [], cards("6s"))
    assert low_a is not None and low_b is not None
    assert low_a.name == "8-6-4-2-A low"
    assert low_b.name == "7-6-3-2-A low"
    assert low_b > low_a  # the better low compares greater
    assert isinstance(low_a, LowValue)


def test_piles_5_1_variant_low_allows_repeats_and_needs_five_or_lower():
    """piles.txt 5.1, 5.1(a) and docs/design.md: 4-3-2-2-A beats 5-4-3-2-A; best A-A-A-A-2; worst 5-5-5-5-4."""
    hole = cards("Ah As Kc Kd Ks")
    best = piles_best_low(hole, cards("Ac Ad"), [], cards("2h"), variant=True)
    assert best is not None and best.name == "2-A-A-A-A low"
    worst = piles_best_low(cards("5h 5s Kc Kd Ks"), cards("5c 5d"), [], cards("4h"), variant=True)
    assert worst is not None and worst.name == "5-5-5-5-4 low"
    a = piles_best_low(cards("4h 3s Kc Kd Ks"), cards("2c Ad"), [], cards("2h"), variant=True)
    b = piles_best_low(cards("5h 4s Kc Kd Ks"), cards("3c Ad"), [], cards("2h"), variant=True)
    assert a is not None and b is not None and a > b
    assert a.name == "4-3-2-2-A low"
    assert best > a and b > worst
    # a six anywhere disqualifies the variant low
    assert piles_best_low(cards("6h 3s Kc Kd Ks"), cards("2c Ad"), [], cards("2h"), variant=True) is None


def test_piles_5_1_variant_high_must_be_a_full_house_or_better():
    """piles.txt 5.1: under the variation a high hand must be a full house or better."""
    hole = cards("Js 9c 6d 3h 2s")
    sq1, sq2, row = cards("3d 8s Jh Jc"), cards("Ac 4s 9h Qd"), cards("5h Jd 2c Ks 7d")
    quads = piles_best_high(hole, sq1, sq2, row, variant=True)
    assert quads is not None and quads.name == "four jacks"
    weak = cards("Qs Tc 6d 3h 2s")
    plain = piles_best_high(weak, sq1, sq2, row)
    assert plain is not None and plain.name == "five-high straight"
    assert piles_best_high(weak, sq1, sq2, row, variant=True) is None


def test_hand_values_are_hashable_and_equal_by_value():
    a = piranha_best(cards("Ac Kd Qh Js 9c"), [])
    assert isinstance(a, HandValue)
    assert {a, piranha_best(cards("As Kh Qd Jc 9d"), [])} == {a}
