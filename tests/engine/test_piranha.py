"""Piranha, article by article (piranha.txt), and the docs/design.md rulings and options."""

from __future__ import annotations

import pytest

from engine import (
    Carry,
    Decision,
    EngineError,
    IllegalAction,
    Payout,
    PiranhaRules,
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
from engine.actions import BET, CALL, CHECK, FOLD, IN, OUT, RAISE
from tests.engine.helpers import stack_deck

SEATS = [1, 2, 3]
BUTTON = 3  # so seats 1, 2, 3 are dealt in that order
EXAMPLE_BOARD = "7c 7d Kh 2s 9c"


def deal(
    rules=None,
    hole=("Kd Ks 4h 5h", "7s 8c 3d 3h", "2c 4d 6h Jc"),
    board=EXAMPLE_BOARD,
    seats=SEATS,
    button=BUTTON,
    **kw,
):
    rules = rules or PiranhaRules()
    deck = stack_deck(hole, board, per_player=4)
    return new_hand(rules, seats=seats, button=button, deck=deck, **kw)


def drop(state, choices):
    for seat, action in choices.items():
        state, _ = apply(state, seat, action)
    return state


def kinds(events):
    return [e.kind for e in events]


def test_piranha_example_a_wins_and_b_matches_the_pot():
    """piranha.txt Article 4 Example: kings full beats sevens full, so A wins; B must match it."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    res = result(state)
    assert res.winners == (1,)
    assert res.payouts == (Payout(1, 75),)
    assert res.match_payments == (Payout(2, 75),)
    assert res.next_pot == 75
    assert res.game_over is False
    names = {h.seat: h.name for h in res.hands}
    assert names == {1: "kings full of sevens", 2: "sevens full of threes"}


def test_piranha_1_1_up_to_eleven_players():
    """piranha.txt 1.1 (docs/design.md: 2 to 11)."""
    deck = stack_deck([], "", per_player=4)
    state, _ = new_hand(PiranhaRules(), seats=list(range(11)), button=0, deck=deck)
    assert len(state.hole) == 11
    with pytest.raises(EngineError, match="2 to 11"):
        new_hand(PiranhaRules(), seats=list(range(12)), button=0, deck=deck)
    with pytest.raises(EngineError):
        new_hand(PiranhaRules(), seats=[1], button=1, deck=deck)


def test_piranha_1_2_any_mix_plays_at_the_showdown():
    """piranha.txt 1.2: B's sevens full uses three hole cards."""
    state, _ = deal()
    state = drop(state, {1: OUT, 2: IN, 3: IN})
    res = result(state)
    assert res.winners == (2,)
    hand = next(h for h in res.hands if h.seat == 2)
    assert len(set(hand.cards) & {"7s", "8c", "3d", "3h"}) == 3


def test_piranha_1_3_and_4_3_every_loser_pays_the_pot_up_to_the_cap():
    """piranha.txt 1.3, 4.3: each losing player pays an amount equal to the pot, up to the agreed maximum."""
    state, _ = deal(PiranhaRules(match_cap=50))
    state = drop(state, {1: IN, 2: IN, 3: IN})
    res = result(state)
    assert res.pot == 75
    assert res.match_payments == (Payout(2, 50), Payout(3, 50))
    assert res.next_pot == 100
    no_cap, _ = deal()
    no_cap = drop(no_cap, {1: IN, 2: IN, 3: IN})
    assert result(no_cap).next_pot == 150


def test_piranha_4_3_the_match_payments_form_the_next_pot():
    """piranha.txt 4.3: the carried pot opens the next hand."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    nxt, events = deal(carry_pot=result(state).next_pot, hand_number=2, button=1)
    assert nxt.pot == 75 + 3 * 25
    assert kinds(events) == ["deal", "ante", "ante", "ante", "turn"]


def test_piranha_2_1_each_player_antes():
    """piranha.txt 2.1 and docs/design.md: every player dealt in antes, each hand by default."""
    state, events = deal()
    antes = [(e.seat, e.amount) for e in events if e.kind == "ante"]
    assert antes == [(1, 25), (2, 25), (3, 25)]
    assert state.pot == 75
    later, events = deal(hand_number=2)
    assert [e.kind for e in events].count("ante") == 3


def test_ante_only_on_the_first_hand_is_a_house_rule():
    """docs/design.md option: ante on the first hand of a game only."""
    rules = PiranhaRules(ante_each_hand=False)
    first, events = deal(rules)
    assert kinds(events).count("ante") == 3
    later, events = deal(rules, hand_number=2, carry_pot=40)
    assert "ante" not in kinds(events)
    assert later.pot == 40


def test_piranha_2_2_four_hole_cards_and_three_of_five_board_cards_face_up():
    """piranha.txt 2.2: four cards each, then five community cards, three up and two down."""
    state, events = deal()
    assert all(len(h) == 4 for h in state.hole)
    assert state.hole[0] == ("Kd", "Ks", "4h", "5h")
    v = view(state, 1)
    assert v.board == ("7c", "7d", "Kh", None, None)
    turn = [e for e in events if e.kind == "turn"]
    assert turn[0].cards == ("7c", "7d", "Kh")


def test_piranha_3_1_the_drop_is_sealed_until_all_have_decided():
    """piranha.txt 3.1: decisions in closed hands, opened at the same time."""
    state, _ = deal()
    assert set(to_act(state)) == {1, 2, 3}
    state, events = apply(state, 2, IN)
    assert kinds(events) == ["decided"]
    assert [event_to_json(e) for e in events] == [{"kind": "decided", "seat": 2}]
    seen_by_1 = {s.seat: s.decision for s in view(state, 1).seats}
    assert seen_by_1 == {1: "waiting", 2: "decided", 3: "waiting"}
    assert {s.seat: s.decision for s in view(state, 2).seats}[2] == "in"
    assert set(to_act(state)) == {1, 3}
    with pytest.raises(IllegalAction, match="already decided"):
        apply(state, 2, OUT)
    state, _ = apply(state, 3, OUT)
    state, events = apply(state, 1, IN)
    opened = next(e for e in events if e.kind == "drop_open")
    assert opened.decisions == (Decision(1, "in"), Decision(2, "in"), Decision(3, "out"))


def test_piranha_3_2_players_who_drop_out_pay_nothing_more():
    """piranha.txt 3.2."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    assert state.paid[2] == 25  # the ante only
    assert all(p.seat != 3 for p in result(state).match_payments)
    assert legal_actions(state, 3) == []


def test_piranha_3_3_one_player_in_wins_uncontested_and_the_game_ends():
    """piranha.txt 3.3 and FAQ "How does a game of Piranha end?"."""
    state, _ = deal()
    state = drop(state, {1: OUT, 2: IN, 3: OUT})
    res = result(state)
    assert res.winners == (2,) and res.payouts == (Payout(2, 75),)
    assert res.game_over is True and res.next_pot == 0
    assert res.hands == ()  # an uncontested hand is not shown
    assert view(state, 1).board[3:] == (None, None)  # the last two cards are never turned


def test_piranha_3_4_nobody_in_carries_the_pot_to_a_fresh_deal():
    """piranha.txt 3.4 and docs/design.md: nobody in, the pot carries (default)."""
    state, _ = deal(carry_pot=30)
    state = drop(state, {1: OUT, 2: OUT, 3: OUT})
    res = result(state)
    assert res.next_pot == 105 and res.game_over is False and res.payouts == ()
    carry = [e for e in state.events if e.kind == "carry"]
    assert [(type(e), e.amount) for e in carry] == [(Carry, 105)]  # a carry names no seat


def test_nobody_in_split_option_ends_the_game_and_splits_among_those_dealt_in():
    """piranha.txt 3.4, docs/design.md option 'split'; odd cents to the first clockwise from the dealer."""
    state, _ = deal(PiranhaRules(nobody_in="split"), carry_pot=2)
    state = drop(state, {1: OUT, 2: OUT, 3: OUT})
    res = result(state)
    assert res.game_over is True and res.next_pot == 0
    # 77 three ways: both odd cents to seat 1, the first after the button (seat 3)
    assert res.payouts == (Payout(1, 27), Payout(2, 25), Payout(3, 25))


def test_piranha_3_4_optional_betting_round_is_fixed_limit_and_folding_drops_out():
    """piranha.txt 3.4 (a group may add a betting round) and docs/design.md: one fixed-limit round."""
    state, _ = deal(PiranhaRules(betting_round=True, bet_size=50))
    assert to_act(state) == (1,)
    assert [a.to_dict() for a in legal_actions(state, 1)] == [
        {"type": "check"},
        {"type": "bet", "amount": 50},
        {"type": "fold"},
    ]
    state, events = apply(state, 1, BET)
    assert [(e.kind, e.seat, e.amount) for e in events] == [("bet", 1, 50)]
    state, _ = apply(state, 2, CALL)
    state, _ = apply(state, 3, FOLD)
    assert state.phase == "drop" and set(to_act(state)) == {1, 2}
    assert legal_actions(state, 3) == []
    state = drop(state, {1: IN, 2: IN})
    res = result(state)
    assert res.pot == 175 and res.winners == (1,)
    assert res.match_payments == (Payout(2, 175),)


def test_betting_round_where_all_but_one_fold_leaves_one_player_in():
    """piranha.txt 3.3: the only player left in takes the pot and the game ends."""
    state, _ = deal(PiranhaRules(betting_round=True))
    state, _ = apply(state, 1, BET)
    state, _ = apply(state, 2, FOLD)
    state, _ = apply(state, 3, FOLD)
    res = result(state)
    assert is_over(state) and res.winners == (1,) and res.game_over is True
    assert res.payouts == (Payout(1, 100),)


def test_betting_round_allows_a_bet_and_three_raises():
    state, _ = deal(PiranhaRules(betting_round=True))
    state, _ = apply(state, 1, BET)
    state, _ = apply(state, 2, RAISE)
    state, _ = apply(state, 3, RAISE)
    state, _ = apply(state, 1, RAISE)
    assert [a.type for a in legal_actions(state, 2)] == ["call", "fold"]
    with pytest.raises(IllegalAction, match="at most 3 raises"):
        apply(state, 2, RAISE)
    state, _ = apply(state, 2, CALL)
    state, _ = apply(state, 3, CALL)
    assert state.phase == "drop" and state.pot == 75 + 3 * 100


def test_piranha_4_1_two_or_more_in_turn_the_last_two_board_cards():
    """piranha.txt 4.1."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    turns = [e for e in state.events if e.kind == "turn"]
    assert turns[-1].cards == ("2s", "9c")
    assert view(state, None).board == ("7c", "7d", "Kh", "2s", "9c")


def test_piranha_4_2_the_highest_hand_wins_and_ties_split_with_odd_cents_clockwise():
    """piranha.txt 4.2; docs/design.md: ties split equally, odd cents to the first tied winner after the dealer."""
    # the board plays for everyone: a royal flush on the board
    state, _ = deal(hole=("2c 3d 4h 5s", "2d 3h 4s 5c", "2h 3s 4c 5d"), board="As Ks Qs Js Ts", carry_pot=2)
    state = drop(state, {1: IN, 2: IN, 3: IN})
    res = result(state)
    assert res.winners == (1, 2, 3)
    assert res.payouts == (Payout(1, 27), Payout(2, 25), Payout(3, 25))
    assert res.match_payments == () and res.next_pot == 0


def test_odd_cents_start_after_the_button_not_at_the_lowest_seat():
    state, _ = deal(hole=("2c 3d 4h 5s", "2d 3h 4s 5c", "2h 3s 4c 5d"), board="As Ks Qs Js Ts", carry_pot=2, button=1)
    state = drop(state, {1: IN, 2: IN, 3: IN})
    assert result(state).payouts == (Payout(2, 27), Payout(3, 25), Payout(1, 25))


def test_every_odd_cent_of_a_tie_goes_to_the_first_tied_winner_clockwise_from_the_dealer():
    """docs/design.md "Rulings where the rule documents are silent": "Ties split a pot equally; odd
    cents go to the first tied winner clockwise from the dealer" -- all of them to that one
    winner, not one each to the first few: 103 four ways is 28, 25, 25, 25."""
    state, _ = deal(
        hole=("2c 3d 4h 5s", "2d 3h 4s 5c", "2h 3s 4c 5d", "6c 6d 6h 7s"),
        board="As Ks Qs Js Ts",
        seats=(1, 2, 3, 4),
        button=2,
        carry_pot=3,
    )
    state = drop(state, {1: IN, 2: IN, 3: IN, 4: IN})
    res = result(state)
    assert res.pot == 103 and res.winners == (3, 4, 1, 2)
    assert res.payouts == (Payout(3, 28), Payout(4, 25), Payout(1, 25), Payout(2, 25))
    awards = [(e.seat, e.amount) for e in state.events if e.kind == "award"]
    assert awards == [(3, 28), (4, 25), (1, 25), (2, 25)]


def test_piranha_article_5_the_last_two_cards_can_change_the_result():
    """piranha.txt Article 5: before the drop the helper shows the hand with the cards seen so far."""
    state, _ = deal(hole=("Kd Ks 4h 5h", "7s 8c 3d 3h", "2c 4d 6h Jc"), board="7c 7d Kh 7h 9c")
    assert view(state, 1).my_hand.name == "kings full of sevens"
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    assert result(state).winners == (2,)  # four sevens after the turn


def test_piranha_faq_a_loser_pays_the_pot_for_the_next_hand():
    """piranha.txt Article 6 FAQ "What happens if you lose in Piranha?"."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: IN})
    assert [(e.kind, e.seat, e.amount) for e in state.events if e.kind == "match_payment"] == [
        ("match_payment", 2, 75),
        ("match_payment", 3, 75),
    ]


def test_timeouts_default_to_out_at_the_drop_and_check_or_fold_when_betting():
    """docs/design.md: a sealed Piranha drop defaults to out; check if free, else fold."""
    state, _ = deal()
    assert timeout_action(state, 2) == OUT
    betting, _ = deal(PiranhaRules(betting_round=True))
    assert timeout_action(betting, 1) == CHECK
    betting, _ = apply(betting, 1, BET)
    assert timeout_action(betting, 2) == FOLD
    with pytest.raises(IllegalAction, match="not your turn"):
        timeout_action(betting, 3)


def test_piranha_final_authority_the_hand_is_reproducible_for_a_ruling():
    """piranha.txt "Final authority" (Rob is right): an organiser's ruling can reverse a hand exactly,
    because every chip movement is an event and the state rebuilds from the deal and the log."""
    state, _ = deal()
    state = drop(state, {1: IN, 2: IN, 3: OUT})
    moved_in = sum(e.amount for e in state.events if e.kind in ("ante", "bet", "match_payment"))
    moved_out = sum(e.amount for e in state.events if e.kind == "award")
    assert state.carry_pot + moved_in == moved_out + result(state).next_pot


def test_a_pot_of_nothing_makes_no_award_event():
    """events.py: every chip event moves chips; a winner of an empty pot gets no 0-cent award."""
    state, _ = deal(PiranhaRules(ante=0))
    state = drop(state, {1: IN, 2: OUT, 3: OUT})
    res = result(state)
    assert res.winners == (1,) and res.payouts == () and res.game_over is True
    assert [e for e in state.events if getattr(e, "amount", None) == 0] == []


def test_a_tie_for_fewer_cents_than_winners_awards_only_the_cents_there_are():
    state, _ = deal(
        PiranhaRules(ante=0), hole=("2c 3d 4h 5s", "2d 3h 4s 5c", "2h 3s 4c 5d"), board="As Ks Qs Js Ts", carry_pot=1
    )
    state = drop(state, {1: IN, 2: IN, 3: IN})
    res = result(state)
    assert res.winners == (1, 2, 3) and res.payouts == (Payout(1, 1),)
    assert [
        (e.kind, getattr(e, "seat", None), e.amount) for e in state.events if getattr(e, "amount", None) is not None
    ] == [("award", 1, 1)]
