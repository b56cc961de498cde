"""The five cards that make each shown hand, in the typed outcome (issue 29: how each hand is made),
for the worked examples of piranha.txt Article 4 and piles.txt "One hand, both ways"."""

from __future__ import annotations

from engine import PiranhaOutcome, result
from engine.actions import HIGH, IN, LOW, OUT, PIG
from engine.plain import from_plain, to_plain
from tests.engine.test_piles import check_down, declare
from tests.engine.test_piles import deal as deal_piles
from tests.engine.test_piranha import deal as deal_piranha
from tests.engine.test_piranha import drop


def test_piranha_example_names_the_five_of_nine_each_shown_hand_plays():
    """A makes K-K-K-7-7 with two hole cards and three board cards; B 7-7-7-3-3 with three and two."""
    state, _ = deal_piranha()
    res = result(state := drop(state, {1: IN, 2: IN, 3: OUT}))
    five = {h.seat: set(h.cards) for h in res.hands}
    assert five == {1: {"Kd", "Ks", "Kh", "7c", "7d"}, 2: {"7s", "7c", "7d", "3d", "3h"}}
    assert all(len(h.cards) == 5 for h in res.hands)
    assert state.phase == "over"


def test_piles_example_names_two_hole_two_from_one_square_and_one_row_card_high_and_low_apart():
    """High: J♠9♣ from hand, J♥J♣ from pile 1, J♦ from pile 3. Low: 3♥2♠, A♣4♠ from pile 2, 5♥ from pile 3."""
    state, _ = deal_piles()
    res = result(declare(check_down(state), {1: PIG, 2: HIGH, 3: LOW}))
    hand = next(h for h in res.hands if h.seat == 1)
    assert hand.high is not None and hand.low is not None
    assert set(hand.high.cards) == {"Js", "9c", "Jh", "Jc", "Jd"}
    assert set(hand.low.cards) == {"3h", "2s", "Ac", "4s", "5h"}


def test_an_outcome_stored_without_the_five_cards_still_reads_with_none():
    state, _ = deal_piranha()
    res = result(drop(state, {1: IN, 2: IN, 3: OUT}))
    stored = to_plain(res)
    for shown in stored["hands"]:
        del shown["cards"]
    again = from_plain(PiranhaOutcome, stored)
    assert [h.cards for h in again.hands] == [(), ()]
    assert [h.name for h in again.hands] == [h.name for h in res.hands]
