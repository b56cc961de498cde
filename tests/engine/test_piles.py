"""Piles, paragraph by paragraph (piles.txt; its paragraphs are cited in reading order, see
engine/piles.py), and the docs/design.md rulings and options."""

from __future__ import annotations

import pytest

from engine import (
    Decision,
    EngineError,
    IllegalAction,
    Payout,
    PilesBoard,
    PilesRules,
    apply,
    event_to_json,
    is_over,
    legal_actions,
    new_hand,
    result,
    timeout_action,
    to_act,
    view,
)
from engine.actions import BET, CALL, CHECK, FOLD, HIGH, LOW, PIG, RAISE
from tests.engine.helpers import stack_deck

EXAMPLE_PILES = "3d 8s Jh Jc  Ac 4s 9h Qd  5h Jd 2c Ks 7d"  # piles.txt worked example
EXAMPLE_HOLE = "Js 9c 6d 3h 2s"
KINGS_FULL = "Kc Kd Qh Qs Th"  # kings full of jacks with this board
WORSE_LOW = "8d 6c Td Ts 9d"  # 8-6-5-4-A
SAME_LOW = "3c 2h Kh Ts 9d"  # 5-4-3-2-A as well


def deal(rules=None, hole=(EXAMPLE_HOLE, KINGS_FULL, WORSE_LOW), piles=EXAMPLE_PILES, seats=(1, 2, 3), button=3, **kw):
    deck = stack_deck(hole, piles, per_player=5)
    return new_hand(rules or PilesRules(), seats=list(seats), button=button, deck=deck, **kw)


def check_down(state):
    """Everyone checks every remaining betting round."""
    while state.phase == "betting":
        state, _ = apply(state, to_act(state)[0], CHECK)
    return state


def declare(state, choices):
    for seat, action in choices.items():
        state, _ = apply(state, seat, action)
    return state


def payouts(state):
    return {p.seat: p.amount for p in result(state).payouts}


def test_piles_example_the_holder_declares_pig_and_takes_the_pot():
    """piles.txt worked example: four jacks with a nine and 5-4-3-2-A: "may reasonably declare pig"."""
    state, _ = deal()
    state = declare(check_down(state), {1: PIG, 2: HIGH, 3: LOW})
    res = result(state)
    assert payouts(state) == {1: 75}
    hand = next(h for h in res.hands if h.seat == 1)
    assert hand.high.full_name == "four jacks with a nine"
    assert hand.low.name == "5-4-3-2-A low"
    assert res.failed_pigs == ()


def test_piles_1_1_two_to_seven_players():
    """piles.txt 1.1: five hole cards each and thirteen shared allow at most seven players."""
    deck = stack_deck([], "", per_player=5)
    state, _ = new_hand(PilesRules(), seats=list(range(7)), button=0, deck=deck)
    assert len(state.hole) == 7
    with pytest.raises(EngineError, match="2 to 7"):
        new_hand(PilesRules(), seats=list(range(8)), button=0, deck=deck)


def test_piles_1_2_the_pot_splits_between_best_high_and_best_qualifying_low():
    """piles.txt 1.2, 4.2: high half to the best high declared, low half to the best qualifying low."""
    state, _ = deal(carry_pot=1)
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: LOW})
    res = result(state)
    assert res.high_winners == (1,) and res.low_winners == (3,)
    assert payouts(state) == {1: 38, 3: 38}  # 76 cents: 38 and 38


def test_odd_cent_between_the_halves_goes_to_high():
    """docs/design.md is silent on an odd pot split between the halves: the odd cent goes to high."""
    state, _ = deal(carry_pot=2)  # pot 77
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: LOW})
    assert payouts(state) == {1: 39, 3: 38}


def test_a_three_way_tie_for_a_half_gives_every_odd_cent_to_the_first_tied_winner_after_the_dealer():
    """docs/design.md: ties split a pot equally; odd cents go to the first tied winner clockwise from
    the dealer (all of them to that one winner). Within the halves the same: the odd cent of the
    halving goes to high, then the low half of 53 is 19, 17, 17."""
    third_wheel = "3s 2d Qc Tc 8c"  # 5-4-3-2-A too
    state, _ = deal(
        hole=(SAME_LOW, third_wheel, KINGS_FULL, EXAMPLE_HOLE), seats=(1, 2, 3, 4), button=1, carry_pot=7
    )  # dealt 2, 3, 4, 1; pot 107: high 54, low 53
    state = declare(check_down(state), {1: LOW, 2: LOW, 3: LOW, 4: HIGH})
    res = result(state)
    assert res.low_winners == (2, 3, 1) and res.high_winners == (4,)
    assert res.payouts == (Payout(2, 19), Payout(3, 17), Payout(4, 54), Payout(1, 17))


def test_piles_1_3_high_follows_the_standard_ranking():
    """piles.txt 1.3: four jacks beat kings full."""
    state, _ = deal()
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: FOLD})
    assert result(state).high_winners == (1,)


def test_piles_2_1_antes_by_default_and_five_cards_each():
    """piles.txt 2.1; docs/design.md: ante 25 cents by default."""
    state, events = deal()
    assert [(e.kind, e.seat, e.amount) for e in events if e.kind == "ante"] == [
        ("ante", 1, 25),
        ("ante", 2, 25),
        ("ante", 3, 25),
    ]
    assert all(len(h) == 5 for h in state.hole)
    assert state.hole[0] == ("Js", "9c", "6d", "3h", "2s")


def test_piles_2_1_blinds_are_live_and_the_first_round_starts_after_the_big_blind():
    """piles.txt 2.1 (antes or blinds); the big blind may raise when called round to it."""
    rules = PilesRules(forced="blinds", small_blind=10, big_blind=25)
    state, events = deal(rules)
    assert [(e.kind, e.seat, e.amount, e.blind) for e in events if e.kind == "blind"] == [
        ("blind", 1, 10, "small"),
        ("blind", 2, 25, "big"),
    ]
    assert to_act(state) == (3,)
    assert [a.to_dict() for a in legal_actions(state, 3)] == [
        {"type": "call", "amount": 25},
        {"type": "raise", "amount": 25},
        {"type": "fold"},
    ]
    state, _ = apply(state, 3, CALL)
    state, events = apply(state, 1, CALL)
    assert [(e.kind, e.amount) for e in events] == [("bet", 15)]
    assert [a.type for a in legal_actions(state, 2)] == ["check", "raise", "fold"]
    state, _ = apply(state, 2, CHECK)
    assert state.stage == 2 and to_act(state) == (1,)  # later rounds start after the button
    assert state.pot == 75


def test_heads_up_blinds_the_button_posts_the_big_blind():
    rules = PilesRules(forced="blinds")
    state, events = deal(rules, hole=(EXAMPLE_HOLE, KINGS_FULL), seats=(1, 2), button=2)
    assert [(e.seat, e.blind) for e in events if e.kind == "blind"] == [(1, "small"), (2, "big")]
    assert to_act(state) == (1,)


def test_piles_2_2_the_shared_cards_start_face_down_in_two_squares_and_a_row():
    """piles.txt 2.2(a), 2.2(b), 2.2(c)."""
    state, _ = deal()
    board = view(state, None).board
    assert board == PilesBoard(square1=("3d", "8s", None, None), square2=(None,) * 4, row=(None,) * 5)
    assert (state.square1, state.square2, state.row) == (
        ("3d", "8s", "Jh", "Jc"),
        ("Ac", "4s", "9h", "Qd"),
        ("5h", "Jd", "2c", "Ks", "7d"),
    )


def test_piles_2_3_the_showdown_uses_only_legal_hands():
    """piles.txt 2.3: three hole kings could make four kings, but only two hole cards play."""
    state, _ = deal(
        hole=("Kc Kd Kh 2d 3s", "Ah 3h 6h 7h 8h", "2h Tc Jc Qc Qd"), piles="Ks 4c 9d Th  5c 6d 7s 8c  Ac Jd 5h 2c Qs"
    )
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: FOLD})
    hand = next(h for h in result(state).hands if h.seat == 1)
    assert hand.high.name == "three kings"


def test_piles_3_1_nine_stages_turn_in_the_order_of_the_stage_table():
    """piles.txt 3.1 stage table, 3.2: a betting round after each stage, nine in all."""
    state, events = deal()
    turns = [e for e in events if e.kind == "turn"]
    rounds = 1
    while state.phase == "betting":
        stage = state.stage
        state, events = apply(state, to_act(state)[0], CHECK)
        turns += [e for e in events if e.kind == "turn"]
        rounds += state.stage != stage
    assert rounds == 9
    assert [(t.stage, t.where, t.cards) for t in turns] == [
        (1, "square1", ("3d", "8s")),
        (2, "square2", ("Ac", "4s")),
        (3, "square1", ("Jh", "Jc")),
        (4, "square2", ("9h", "Qd")),
        (5, "row", ("5h",)),
        (6, "row", ("Jd",)),
        (7, "row", ("2c",)),
        (8, "row", ("Ks",)),
        (9, "row", ("7d",)),
    ]
    assert state.phase == "declare"


def test_piles_3_1_bet_sizes_rise_by_stage():
    """piles.txt 3.1 suggested bets (docs/design.md defaults): 25 x6, 50, 50, 100 cents."""
    state, _ = deal()
    sizes = []
    while state.phase == "betting":
        seat = to_act(state)[0]
        bet = next(a for a in legal_actions(state, seat) if a.type == "bet")
        sizes.append(bet.amount)
        state, _ = apply(state, seat, BET)
        state, _ = apply(state, to_act(state)[0], CALL)
        state, _ = apply(state, to_act(state)[0], CALL)
    assert sizes == [25, 25, 25, 25, 25, 25, 50, 50, 100]
    assert state.pot == 75 + 3 * 350


def test_piles_3_3_the_table_sets_its_own_stakes():
    """piles.txt 3.3: the suggested amounts are examples; the table may set its own."""
    rules = PilesRules(stage_bets=(10, 10, 20, 20, 40, 40, 80, 80, 160), ante=5)
    state, _ = deal(rules)
    assert legal_actions(state, 1)[1].to_dict() == {"type": "bet", "amount": 10}
    with pytest.raises(IllegalAction, match="Fixed limit: the bet this round is 10 cents"):
        apply(state, 1, BET.__class__("bet", amount=25))


def test_fourth_raise_is_refused():
    """docs/design.md: at most three raises a round (house rule)."""
    state, _ = deal()
    state, _ = apply(state, 1, BET)
    state, _ = apply(state, 2, RAISE)
    state, _ = apply(state, 3, RAISE)
    state, _ = apply(state, 1, RAISE)
    with pytest.raises(IllegalAction, match="Piles: at most 3 raises a round"):
        apply(state, 2, RAISE)
    state, _ = apply(state, 2, CALL)
    state, _ = apply(state, 3, CALL)
    assert state.stage == 2 and state.pot == 75 + 3 * 100


def test_all_but_one_fold_the_last_player_takes_the_pot_without_declaring():
    """docs/design.md: if all but one fold, the last player takes the pot without declaring."""
    state, _ = deal()
    state, _ = apply(state, 1, BET)
    state, _ = apply(state, 2, FOLD)
    state, events = apply(state, 3, FOLD)
    res = result(state)
    assert is_over(state) and payouts(state) == {1: 100}
    assert res.hands == () and "showdown" not in [e.kind for e in events]
    assert view(state, 2).seats[0].cards is None  # never shown


def test_piles_4_1_declarations_are_sealed_and_opened_together():
    """piles.txt 4.1."""
    state = check_down(deal()[0])
    assert set(to_act(state)) == {1, 2, 3}
    state, events = apply(state, 3, LOW)
    assert [event_to_json(e) for e in events] == [{"kind": "decided", "seat": 3}]
    assert {s.seat: s.decision for s in view(state, 1).seats} == {1: "waiting", 2: "waiting", 3: "decided"}
    assert {s.seat: s.decision for s in view(state, 3).seats}[3] == "low"
    state, _ = apply(state, 1, HIGH)
    state, events = apply(state, 2, HIGH)
    opened = next(e for e in events if e.kind == "declare_open")
    assert opened.decisions == (Decision(1, "high"), Decision(2, "high"), Decision(3, "low"))


def test_piles_4_3_a_pig_that_ties_a_half_fails_and_the_halves_go_on_without_it():
    """piles.txt 4.3 and FAQ: a pig must win both halves or wins nothing; docs/design.md: outright."""
    state, _ = deal(hole=(EXAMPLE_HOLE, KINGS_FULL, SAME_LOW))
    state = declare(check_down(state), {1: PIG, 2: HIGH, 3: LOW})
    res = result(state)
    assert res.failed_pigs == (1,)
    assert res.high_winners == (2,) and res.low_winners == (3,)
    assert payouts(state) == {2: 38, 3: 37}


def test_pig_tie_counts_option_lets_a_tying_pig_share_the_half():
    """docs/design.md option: a tie for a half counts for a pig."""
    state, _ = deal(PilesRules(pig_tie_counts=True), hole=(EXAMPLE_HOLE, KINGS_FULL, SAME_LOW))
    state = declare(check_down(state), {1: PIG, 2: HIGH, 3: LOW})
    res = result(state)
    assert res.failed_pigs == () and res.high_winners == (1,) and set(res.low_winners) == {1, 3}
    assert payouts(state) == {1: 38 + 19, 3: 18}


def test_a_pig_beaten_for_high_wins_nothing():
    state, _ = deal(hole=(KINGS_FULL, EXAMPLE_HOLE, WORSE_LOW))
    state = declare(check_down(state), {1: PIG, 2: HIGH, 3: LOW})
    res = result(state)
    assert res.failed_pigs == (1,) and payouts(state) == {2: 38, 3: 37}


def test_piles_4_4_a_low_that_does_not_qualify_wins_nothing_and_high_takes_all():
    """piles.txt 4.4; docs/design.md: a half with no qualifying claimant goes to the other half."""
    state, _ = deal(hole=(EXAMPLE_HOLE, KINGS_FULL, "Kh Qc Td Ts 9d"))
    state = declare(check_down(state), {1: HIGH, 2: FOLD, 3: LOW})
    res = result(state)
    assert res.low_winners == () and payouts(state) == {1: 75}
    assert next(h for h in res.hands if h.seat == 3).low is None


def test_unclaimed_high_half_goes_to_the_low():
    state, _ = deal()
    state = declare(check_down(state), {1: LOW, 2: FOLD, 3: LOW})
    assert payouts(state) == {1: 75}


def test_neither_half_claimed_carries_the_pot():
    """docs/design.md: if neither half has a qualifying claimant, the pot carries to the next hand."""
    state, _ = deal(hole=(EXAMPLE_HOLE, KINGS_FULL, "Kh Qc Td Ts 9d"))
    state = declare(check_down(state), {1: FOLD, 2: FOLD, 3: LOW})
    res = result(state)
    assert res.payouts == () and res.next_pot == 75
    assert [(e.kind, e.amount) for e in state.events if e.kind == "carry"] == [("carry", 75)]


def test_piles_5_1_variant_high_needs_a_full_house_and_low_five_or_lower():
    """piles.txt 5.1, 5.1(a) under the low_variant house rule."""
    rules = PilesRules(low_variant=True)
    state, _ = deal(rules, hole=(EXAMPLE_HOLE, "Qh 8d 6c Tc 4d", SAME_LOW))
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: LOW})
    res = result(state)
    hands = {h.seat: h for h in res.hands}
    assert hands[2].high is None  # three jacks: not a full house
    assert hands[3].low.name == "4-3-2-2-A low"
    assert res.high_winners == (1,) and res.low_winners == (3,)


def test_piles_5_1_variant_four_three_two_two_ace_beats_the_wheel():
    """piles.txt 5.1(a) and docs/design.md: 4-3-2-2-A beats 5-4-3-2-A."""
    rules = PilesRules(low_variant=True)
    state, _ = deal(rules, hole=(EXAMPLE_HOLE, KINGS_FULL, "3c 2h Kh Ts 9d"))
    state = declare(check_down(state), {1: LOW, 2: HIGH, 3: LOW})
    res = result(state)
    lows = {h.seat: h.low.name for h in res.hands if h.low}
    assert lows[1] == "4-3-2-2-A low" and lows[3] == "4-3-2-2-A low"
    assert set(res.low_winners) == {1, 3}


def test_piles_faq_nine_betting_rounds_and_two_cards_of_one_square():
    """piles.txt FAQ: two cards of one square + one of the row + two of your own; nine rounds."""
    state, _ = deal()
    state = declare(check_down(state), {1: HIGH, 2: FOLD, 3: FOLD})
    hand = result(state).hands[0].high.cards
    assert len(set(hand) & {"3d", "8s", "Jh", "Jc"}) in (0, 2)
    assert len(set(hand) & {"Ac", "4s", "9h", "Qd"}) in (0, 2)
    assert len(set(hand) & {"5h", "Jd", "2c", "Ks", "7d"}) == 1


def test_declaration_timeout_folds_by_default_or_declares_high():
    """docs/design.md: a Piles declaration defaults to fold (option: high)."""
    state = check_down(deal()[0])
    assert timeout_action(state, 1) == FOLD
    state = check_down(deal(PilesRules(declare_timeout="high"))[0])
    assert timeout_action(state, 1) == HIGH


def test_piles_final_authority_chips_are_conserved_so_a_ruling_can_reverse_them():
    """piles.txt "Final authority": every chip movement is an event the ledger can reverse."""
    state, _ = deal(carry_pot=3)
    state = declare(check_down(state), {1: HIGH, 2: HIGH, 3: LOW})
    moved_in = sum(e.amount for e in state.events if e.kind in ("ante", "blind", "bet"))
    moved_out = sum(e.amount for e in state.events if e.kind == "award")
    assert state.carry_pot + moved_in == moved_out + result(state).next_pot


def test_a_pot_of_nothing_makes_no_award_event():
    """events.py: every chip event moves chips; the last player left with an empty pot gets no
    0-cent award."""
    state, _ = deal(PilesRules(ante=0))
    state, _ = apply(state, 1, FOLD)
    state, events = apply(state, 2, FOLD)
    res = result(state)
    assert res.winners == (3,) and res.payouts == ()
    assert [e for e in state.events if getattr(e, "amount", None) == 0] == []


def test_the_helpers_best_hands_are_worked_out_once_for_the_same_cards(monkeypatch):
    """Every seated member's view asks for their best high and low on every version of the hand; they
    change only when a card is turned, so they are worked out once per hole cards and cards seen."""
    from engine import piles as piles_engine

    worked_out = []
    best_high = piles_engine.piles_best_high
    monkeypatch.setattr(piles_engine, "piles_best_high", lambda *args: worked_out.append(args) or best_high(*args))
    piles_engine._best_so_far.cache_clear()
    state, _ = deal()
    first = view(state, 1).my_hand
    state, _ = apply(state, to_act(state)[0], CHECK)  # a new version, no card turned
    assert view(state, 1).my_hand == first and len(worked_out) == 1
    view(state, 2)  # another player's cards: worked out for them
    assert len(worked_out) == 2
    state = check_down(state)  # every card turned: worked out anew, as the showdown works it out
    assert state.phase == "declare"
    shown = view(state, 1).my_hand
    assert len(worked_out) == 3
    assert shown == piles_engine._high_low(*piles_engine._values(state, 0))
