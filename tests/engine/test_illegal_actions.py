"""Illegal actions raise IllegalAction with a message that names the rule."""

from __future__ import annotations

import pytest

from engine import (
    Action,
    EngineError,
    IllegalAction,
    PilesRules,
    PiranhaRules,
    action_from_dict,
    action_to_dict,
    apply,
    legal_actions,
    new_hand,
    state_from_json,
    state_to_json,
    to_act,
)
from engine.actions import BET, CALL, CHECK, FOLD, HIGH, IN, OUT, RAISE
from tests.engine.helpers import stack_deck


def piles(rules=None):
    return new_hand(rules or PilesRules(), seats=[1, 2, 3], button=3, deck=stack_deck([], "", per_player=5))[0]


def piranha(rules=None):
    return new_hand(rules or PiranhaRules(), seats=[1, 2, 3], button=3, deck=stack_deck([], "", per_player=4))[0]


def test_acting_out_of_turn_is_refused():
    with pytest.raises(IllegalAction, match="It is not your turn"):
        apply(piles(), 2, CHECK)
    assert legal_actions(piles(), 2) == []


def test_a_seat_not_dealt_in_cannot_act():
    with pytest.raises(IllegalAction, match="Seat 9 is not dealt in"):
        apply(piles(), 9, CHECK)


def test_wrong_amount_is_refused_in_fixed_limit():
    with pytest.raises(IllegalAction, match="Fixed limit: the bet this round is 25 cents"):
        apply(piles(), 1, Action("bet", amount=50))
    state, _ = apply(piles(), 1, BET)
    with pytest.raises(IllegalAction, match="Fixed limit: the bet this round is 25 cents"):
        apply(state, 2, Action("raise", amount=75))
    with pytest.raises(IllegalAction, match="Fixed limit: it costs 25 cents to call"):
        apply(state, 2, Action("call", amount=10))
    state, _ = apply(state, 2, Action("raise", amount=25))  # the limit itself is fine
    assert state.betting.current == 50


def test_the_stage_seven_limit_is_fifty_cents():
    state = piles()
    while state.stage < 7:
        state, _ = apply(state, to_act(state)[0], CHECK)
    with pytest.raises(IllegalAction, match="Fixed limit: the bet this round is 50 cents"):
        apply(state, 1, Action("bet", amount=25))


def test_acting_after_folding_is_refused():
    state, _ = apply(piles(), 1, FOLD)
    with pytest.raises(IllegalAction, match="You have folded"):
        apply(state, 1, CHECK)
    state, _ = apply(piranha(PiranhaRules(betting_round=True)), 1, FOLD)
    with pytest.raises(IllegalAction, match="folding in the betting round is dropping out"):
        apply(state, 1, IN)


def test_declaring_during_betting_is_refused():
    with pytest.raises(IllegalAction, match="Piles: you declare after the ninth betting round"):
        apply(piles(), 1, HIGH)


def test_the_drop_during_betting_and_betting_at_the_drop_are_refused():
    with pytest.raises(IllegalAction, match="the drop comes after the betting round"):
        apply(piranha(PiranhaRules(betting_round=True)), 1, IN)
    with pytest.raises(IllegalAction, match="either in or out"):
        apply(piranha(), 1, CHECK)
    with pytest.raises(IllegalAction, match="Piles has no drop"):
        apply(piles(), 1, OUT)


def test_check_bet_call_raise_out_of_place_are_refused():
    with pytest.raises(IllegalAction, match="There is no bet to call"):
        apply(piles(), 1, CALL)
    with pytest.raises(IllegalAction, match="There is no bet to raise"):
        apply(piles(), 1, RAISE)
    state, _ = apply(piles(), 1, BET)
    with pytest.raises(IllegalAction, match="You cannot check: it costs 25 cents to call"):
        apply(state, 2, CHECK)
    with pytest.raises(IllegalAction, match="There is already a bet"):
        apply(state, 2, BET)


def test_zero_raise_cap_allows_only_the_bet():
    state, _ = apply(piles(PilesRules(max_raises=0)), 1, BET)
    assert [a.type for a in legal_actions(state, 2)] == ["call", "fold"]
    with pytest.raises(IllegalAction, match="at most 0 raises"):
        apply(state, 2, RAISE)


def test_declaring_twice_or_badly_is_refused():
    state = piles()
    while state.phase == "betting":
        state, _ = apply(state, to_act(state)[0], CHECK)
    with pytest.raises(IllegalAction, match="declare high, low or pig"):
        apply(state, 1, CHECK)
    state, _ = apply(state, 1, HIGH)
    with pytest.raises(IllegalAction, match="already declared"):
        apply(state, 1, HIGH)


def test_acting_when_the_hand_is_over_is_refused():
    state = piranha()
    for seat in (1, 2, 3):
        state, _ = apply(state, seat, OUT)
    with pytest.raises(IllegalAction, match="The hand is over"):
        apply(state, 1, IN)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "check",
        {},
        {"type": "shove"},
        {"type": "raise", "amount": -5},
        {"type": "raise", "amount": "25"},
        {"type": "raise", "amount": True},
        {"type": "check", "amount": 25},
        {"type": "declare"},
        {"type": "declare", "choice": "both"},
        {"type": "fold", "choice": "high"},
        {"type": "check", "extra": 1},
    ],
)
def test_malformed_action_dicts_raise_illegal_action_never_key_error(data):
    with pytest.raises(IllegalAction):
        action_from_dict(data)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "check"},
        {"type": "bet"},
        {"type": "raise", "amount": 50},
        {"type": "fold"},
        {"type": "call"},
        {"type": "in"},
        {"type": "out"},
        {"type": "declare", "choice": "pig"},
    ],
)
def test_action_dicts_round_trip(data):
    assert action_to_dict(action_from_dict(data)) == data


def test_apply_refuses_what_is_not_an_action():
    with pytest.raises(IllegalAction):
        apply(piles(), 1, {"type": "check"})  # type: ignore[arg-type]


@pytest.mark.parametrize("broken", [{}, {"game": "chess"}, {"game": "piles"}, {"game": "piranha", "seats": "x"}])
def test_malformed_state_json_raises_engine_error(broken):
    with pytest.raises(EngineError):
        state_from_json(broken)


def test_state_json_with_a_wrong_type_raises_engine_error():
    data = state_to_json(piles())
    data["pot"] = "lots"
    with pytest.raises(EngineError):
        state_from_json(data)


def test_bad_deals_are_refused():
    deck = stack_deck([], "", per_player=5)
    with pytest.raises(EngineError, match="52 cards"):
        new_hand(PilesRules(), seats=[1, 2], button=1, deck=deck[:51])
    with pytest.raises(EngineError, match="different seat numbers"):
        new_hand(PilesRules(), seats=[1, 1], button=1, deck=deck)
    with pytest.raises(EngineError, match="big blind"):
        new_hand(PilesRules(big_blind=0), seats=[1, 2], button=1, deck=deck)
