"""Hypothesis over whole random hands, and whole random games of chained hands, of both games
with every house-rule option (docs/design.md "Quality bars"): chips are conserved (within a hand and
across a game), no view holds a card its seat may not see nor a sealed decision before the
reveal, replay equals state, state JSON round-trips."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import (
    PilesRules,
    PiranhaRules,
    apply,
    is_over,
    legal_actions,
    new_hand,
    replay,
    result,
    state_from_json,
    state_to_json,
    timeout_action,
    to_act,
    view,
    view_to_json,
)
from engine.cards import FULL_DECK
from engine.events import PAY_KINDS
from tests.engine.helpers import mutable_parts, visible_cards

CODES = frozenset(FULL_DECK)
SEALED_CHOICES = {"in", "out", "high", "low", "pig"}

piranha_rules = st.builds(
    PiranhaRules,
    ante=st.sampled_from([0, 1, 25]),
    ante_each_hand=st.booleans(),
    match_cap=st.sampled_from([None, 1, 40]),
    betting_round=st.booleans(),
    bet_size=st.sampled_from([1, 25]),
    max_raises=st.integers(0, 3),
    nobody_in=st.sampled_from(["carry", "split"]),
)
piles_rules = st.builds(
    PilesRules,
    forced=st.sampled_from(["ante", "blinds"]),
    ante=st.sampled_from([0, 25]),
    small_blind=st.sampled_from([0, 10]),
    big_blind=st.sampled_from([10, 25]),
    stage_bets=st.sampled_from([(25, 25, 25, 25, 25, 25, 50, 50, 100), (1, 2, 3, 4, 5, 6, 7, 8, 9)]),
    max_raises=st.integers(0, 3),
    low_variant=st.booleans(),
    pig_tie_counts=st.booleans(),
    declare_timeout=st.sampled_from(["fold", "high"]),
)


def card_codes(value):
    """Every card code anywhere in a JSON-ready value."""
    if isinstance(value, str):
        return {value} & CODES
    if isinstance(value, dict):
        return set().union(*(card_codes(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_codes(v) for v in value)) if value else set()
    return set()


def check_views(state):
    sealed = state.phase in ("drop", "declare")
    for seat in (None, *state.seats):
        v = view(state, seat)
        printed = json.loads(json.dumps(view_to_json(v)))  # every card the JSON view sent to a socket holds
        leaked = card_codes(printed) - visible_cards(state, seat)
        assert not leaked, f"seat {seat} sees {leaked}"
        if sealed:
            for s in v.seats:
                if s.seat != seat:
                    assert s.decision in ("waiting", "decided", None)
                    assert s.last_action not in SEALED_CHOICES
            kinds = {e.kind for e in v.events}
            assert not kinds & {"drop_open", "declare_open", "showdown"}


def check_frozen(state):
    assert mutable_parts(state) == [], "a state holds a mutable or free-form part"


def check_chips(state):
    assert all(e.amount for e in state.events if e.kind in (*PAY_KINDS, "award")), "a 0-cent chip event"
    paid_in = state.carry_pot + sum(
        e.amount for e in state.events if e.kind in ("ante", "blind", "bet", "match_payment")
    )
    awarded = sum(e.amount for e in state.events if e.kind == "award")
    assert sum(state.paid) + state.carry_pot == paid_in
    if is_over(state):
        res = result(state)
        assert paid_in == awarded + res.next_pot
        assert sum(p.amount for p in res.payouts) == awarded
        carried = sum(e.amount for e in state.events if e.kind == "carry")
        if state.game == "piles":
            assert carried == res.next_pot
    else:
        assert awarded == 0 and paid_in == state.pot


def play(data, rules):
    n = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seats = sorted(data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n, unique=True), label="seats"))
    button = data.draw(st.sampled_from(seats + [13]), label="button")
    carry_pot = data.draw(st.integers(0, 500), label="carry")
    hand_number = data.draw(st.integers(1, 3), label="hand number")
    return play_hand(data, rules, seats=seats, button=button, carry_pot=carry_pot, hand_number=hand_number)


def play_hand(data, rules, *, seats, button, carry_pot, hand_number):
    """Deal one hand with a random deck and play random legal actions and timeouts to its end,
    checking chips, views, the JSON round trip after every step and replay at the end."""
    deck = data.draw(st.permutations(FULL_DECK), label="deck")
    deal = {"seats": seats, "button": button, "deck": deck, "carry_pot": carry_pot, "hand_number": hand_number}
    state, events = new_hand(rules, **deal)
    assert state.events == tuple(events)
    check_chips(state)
    check_frozen(state)
    check_views(state)
    log = []
    while not is_over(state):
        waiting = to_act(state)
        assert waiting
        for s in state.seats:
            assert bool(legal_actions(state, s)) == (s in waiting)
        seat = data.draw(st.sampled_from(waiting), label="seat")
        if data.draw(st.integers(0, 9), label="timeout?") == 0:
            action = timeout_action(state, seat)
            assert action in legal_actions(state, seat)
        else:
            actions = legal_actions(state, seat)
            if state.phase == "betting" and data.draw(st.integers(0, 24), label="fold?") != 0:
                actions = [a for a in actions if a.type != "fold"]  # reach the showdown often
            action = data.draw(st.sampled_from(actions), label="action")
        previous = state
        state, events = apply(state, seat, action)
        assert state.events == previous.events + tuple(events)
        log.append((seat, action))
        check_chips(state)
        check_frozen(state)
        check_views(state)
        assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
    assert to_act(state) == ()
    assert replay(rules, log=log, **deal) == state
    return state


def paid_in(state):
    """Cents the seats paid into the pot during the hand (not the pot carried in)."""
    return sum(e.amount for e in state.events if e.kind in PAY_KINDS)


def awarded(state):
    return sum(e.amount for e in state.events if e.kind == "award")


def play_game(data, rules, max_hands):
    """Chain hands of one game: each hand's next_pot is the next hand's carry_pot, the hand
    number advances and the button moves one seat among the players (docs/design.md), until the
    game is over or ``max_hands`` are played. After every hand the whole game's chips are
    conserved: everything the seats paid in was awarded or sits in the pot carried on."""
    n = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seats = sorted(data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n, unique=True), label="seats"))
    button = data.draw(st.sampled_from(seats), label="first button")
    carry_pot, total_in, total_out = 0, 0, 0
    hands = []
    for hand_number in range(1, max_hands + 1):
        state = play_hand(data, rules, seats=seats, button=button, carry_pot=carry_pot, hand_number=hand_number)
        assert state.carry_pot == carry_pot and state.button == button and state.hand_number == hand_number
        antes = [e for e in state.events if e.kind == "ante"]
        if state.game == "piranha":
            # docs/design.md: an ante each hand, or (option) on the first hand of a game only
            assert bool(antes) == bool(rules.ante and (rules.ante_each_hand or hand_number == 1))
        res = result(state)
        total_in += paid_in(state)
        total_out += awarded(state)
        assert total_in == total_out + res.next_pot
        hands.append(state)
        if res.game_over:
            assert res.next_pot == 0
            break
        carry_pot = res.next_pot
        button = seats[(seats.index(button) + 1) % len(seats)]  # docs/design.md: one seat each hand
    return hands


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piranha_rules)
def test_random_piranha_hands_conserve_chips_hide_cards_and_replay(data, rules):
    state = play(data, rules)
    res = result(state)
    assert res.game_over == (res.reason in ("uncontested", "nobody_in_split"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piles_rules)
def test_random_piles_hands_conserve_chips_hide_cards_and_replay(data, rules):
    state = play(data, rules)
    assert result(state).game_over is False


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piranha_rules)
def test_random_piranha_games_chain_hands_and_conserve_chips_to_the_end(data, rules):
    hands = play_game(data, rules, max_hands=6)
    event(f"hands played: {len(hands)}")
    over = [result(h).game_over for h in hands]
    assert not any(over[:-1])  # the game goes on until a hand ends it
    assert [h.button for h in hands] == [
        hands[0].seats[(hands[0].seats.index(hands[0].button) + k) % len(hands[0].seats)] for k in range(len(hands))
    ]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piles_rules)
def test_random_piles_games_chain_hands_and_conserve_chips(data, rules):
    play_game(data, rules, max_hands=3)
