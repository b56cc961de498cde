"""Computer players (engine/players): every action legal, nothing hidden read, the obvious
decisions right, and the coach's advice. Plain pytest, seeded loops, no database.

How well they play is measured by bench/players.py (bench/RESULTS.md "Computer players")."""

from __future__ import annotations

import random

import pytest

from engine import (
    HandView,
    IllegalAction,
    PilesRules,
    PiranhaRules,
    apply,
    is_over,
    legal_actions,
    new_hand,
    parse_cards,
    replay,
    to_act,
    view,
)
from engine.actions import BET, CALL, CHECK, HIGH, PIG, RAISE, Action
from engine.cards import FULL_DECK
from engine.players import BEGINNER, PLAYERS, RANDOM, SOLID, STRONG, Player, TableReads, advise, player
from engine.players.estimate import hand_ranges, piranha_estimate
from engine.players.reads import SeatReads
from tests.engine.helpers import stack_deck, visible_cards

EVERYONE = (*PLAYERS, RANDOM)
RULE_SETS = [
    PiranhaRules(),
    PiranhaRules(match_cap=100, betting_round=True, max_raises=2, nobody_in="split"),
    PiranhaRules(ante=1, ante_each_hand=False, betting_round=True, bet_size=1, max_raises=0),
    PilesRules(),
    PilesRules(forced="blinds", low_variant=True, pig_tie_counts=True, max_raises=0),
    PilesRules(stage_bets=(1, 2, 3, 4, 5, 6, 7, 8, 9), declare_timeout="high"),
]


def shuffled(rng):
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


def random_hand(rules, rng):
    """A fresh hand of 2 to 7 seats, each given a player at random."""
    seats = list(range(1, rng.randint(2, 7) + 1))
    state, _ = new_hand(
        rules,
        seats=seats,
        button=rng.choice(seats),
        deck=shuffled(rng),
        carry_pot=rng.choice([0, 0, 300]),
        hand_number=rng.randint(1, 3),
    )
    return state, {s: rng.choice(EVERYONE) for s in seats}


def play_out(state, at, rules, rng, on_decision=None):
    """Play the hand to its end, each seat's player deciding on its seat's view; return the log."""
    log = []
    while not is_over(state):
        seat = rng.choice(to_act(state))
        seen = view(state, seat)
        if on_decision is not None:
            on_decision(state, seat, seen, log)
        action = at[seat].act(seen, rules, rng)
        assert action in legal_actions(state, seat), (at[seat].strength, seen.phase, action)
        state, _ = apply(state, seat, action)
        log.append((seat, action))
    return state, log


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.game}-{RULE_SETS.index(r)}")
def test_every_action_a_player_returns_is_legal(rules):
    rng = random.Random(f"legal {rules}")
    for _ in range(8):
        state, at = random_hand(rules, rng)
        state, _ = play_out(state, at, rules, rng)
        assert is_over(state)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.game}-{RULE_SETS.index(r)}")
def test_a_player_never_reads_the_deck_nor_another_seats_hidden_cards(rules):
    """Two hands that differ only in what the seat may not see (the others' hole cards, the cards
    face down, the undealt deck) get the same action from every player given the same seed."""
    rng = random.Random(f"hidden {rules}")
    compared = 0

    def compare(state, seat, seen, log):
        nonlocal compared
        if rng.random() < 0.75:
            return
        other = replay(
            rules,
            seats=state.seats,
            button=state.button,
            deck=_hidden_shuffled(state, seat, rng),
            carry_pot=state.carry_pot,
            hand_number=state.hand_number,
            log=log,
        )
        other_view = view(other, seat)
        assert other.hole != state.hole and other_view.my_cards == seen.my_cards
        assert other_view.board == seen.board
        for p in EVERYONE:
            seed = rng.getrandbits(32)
            assert p.act(seen, rules, random.Random(seed)) == p.act(other_view, rules, random.Random(seed)), p.name
        seed = rng.getrandbits(32)
        assert advise(seen, rules, random.Random(seed)) == advise(other_view, rules, random.Random(seed))
        compared += 1

    for _ in range(20):
        state, at = random_hand(rules, rng)
        play_out(state, at, rules, rng, on_decision=compare)
        if compared >= 4:
            break
    assert compared >= 4


def _hidden_shuffled(state, seat, rng):
    """The hand's deck with every card ``seat`` cannot see dealt again among the same places."""
    seen = visible_cards(state, seat)
    places = [k for k, c in enumerate(state.deck) if c not in seen]
    cards = [state.deck[k] for k in places]
    rng.shuffle(cards)
    deck = list(state.deck)
    for k, c in zip(places, cards, strict=True):
        deck[k] = c
    return deck


def test_a_player_leaves_the_global_random_alone():
    rules = PilesRules()
    state, _ = new_hand(rules, seats=[1, 2, 3], button=3, deck=shuffled(random.Random(5)))
    seat = to_act(state)[0]
    random.seed(30)
    before = random.getstate()
    for p in EVERYONE:
        p.act(view(state, seat), rules, random.Random(1))
    advise(view(state, seat), rules, random.Random(1))
    assert random.getstate() == before


def test_a_player_refuses_when_it_is_not_its_turn():
    rules = PilesRules()
    state, _ = new_hand(rules, seats=[1, 2, 3], button=3, deck=shuffled(random.Random(6)))
    waiting = next(s for s in state.seats if s not in to_act(state))
    for p in EVERYONE:
        with pytest.raises(IllegalAction):
            p.act(view(state, waiting), rules, random.Random(1))


def test_three_strengths_and_the_random_yardstick_each_have_a_name_and_a_character():
    assert [p.strength for p in PLAYERS] == ["beginner", "solid", "strong"]
    assert player("strong") is STRONG and player("random") is RANDOM
    for p in EVERYONE:
        assert p.name and p.character.endswith(".") and len(p.character) < 100
    assert len({p.name for p in EVERYONE}) == 4


# ---- Piranha: obvious decisions ----------------------------------------------------------------

NUTS = "Js Ts 2c 3d"  # a royal flush with the three up cards below: nothing beats it
UP = "As Ks Qs 7h 4d"
RAGS = "2h 3c 4s 8d"  # nine high: no pair, no draw that matters on this board
KQ_BOARD = "Kd Qc 9h 6s 5c"


def others(hole, shared, players, per_player):
    """Hands for the other seats from the cards not stacked yet, in deck order."""
    used = set(parse_cards(f"{hole} {shared}"))
    rest = [c for c in FULL_DECK if parse_cards(c)[0] not in used]
    return [" ".join(rest[k * per_player : (k + 1) * per_player]) for k in range(players - 1)]


def piranha_deal(hole, board, rules=None, players=2):
    deck = stack_deck([hole, *others(hole, board, players, 4)], board, per_player=4)
    seats = list(range(1, players + 1))
    state, _ = new_hand(rules or PiranhaRules(), seats=seats, button=players, deck=deck)
    return state


@pytest.mark.parametrize("p", [BEGINNER, SOLID, STRONG], ids=lambda p: p.strength)
def test_piranha_every_player_stays_in_holding_the_nuts(p):
    state = piranha_deal(NUTS, UP, players=6)
    assert p.act(view(state, 1), state.rules, random.Random(1)).type == "in"


def test_piranha_the_strong_player_builds_the_pot_with_the_nuts_in_the_betting_round():
    state = piranha_deal(NUTS, UP, rules=PiranhaRules(betting_round=True), players=4)
    assert STRONG.act(view(state, 1), state.rules, random.Random(1)).type == "bet"


def test_piranha_the_strong_player_drops_rags_against_a_full_table():
    state = piranha_deal(RAGS, KQ_BOARD, players=7)
    assert STRONG.act(view(state, 1), state.rules, random.Random(1)).type == "out"


def test_piranha_the_cap_makes_a_big_pot_worth_a_thinner_stay():
    """With the pot far above the cap, a loser pays little of it: even a weak hand stays in."""
    hole = "8c 7d 4h 3s"  # eight high on this board
    capped = piranha_deal(hole, KQ_BOARD, rules=PiranhaRules(match_cap=25), players=6)
    capped = capped.__class__(
        **{**{f: getattr(capped, f) for f in capped.__dataclass_fields__}, "pot": 5000, "carry_pot": 4925}
    )
    uncapped = capped.__class__(
        **{**{f: getattr(capped, f) for f in capped.__dataclass_fields__}, "rules": PiranhaRules()}
    )
    assert STRONG.act(view(capped, 1), capped.rules, random.Random(2)).type == "in"
    assert STRONG.act(view(uncapped, 1), uncapped.rules, random.Random(2)).type == "out"


# ---- Piranha: reading the betting round -------------------------------------------------------

#: a seat seen to continue, bet and stay in only with its best hands: in a quarter, betting a tenth of rounds
TIGHT_READS = SeatReads(drops=30, stayed=10, folded=10, faced=30, called=10, rounds=40, bet=4)


def _after(actions, hole="Qh 8c 4h 3s", players=2):
    """A hand with the betting round, ``actions`` played from seat 1 on; seat 1's view."""
    state = piranha_deal(hole, KQ_BOARD, rules=PiranhaRules(betting_round=True), players=players)
    for action in actions:
        state, _ = apply(state, to_act(state)[0], action)
    return state, view(state, 1)


def test_piranha_an_opponents_range_follows_what_it_did_in_the_betting_round():
    reads = TableReads(dict.fromkeys((2, 3, 4), TIGHT_READS))
    _, seen = _after([CHECK, CHECK, BET, CALL], players=4)
    checked, bet, called = hand_ranges(seen, reads)  # seats 2, 3 and 4
    assert called.low == pytest.approx(1 - TIGHT_READS.call_rate) and called.high == 1
    assert bet.low == pytest.approx(1 - TIGHT_READS.bet_rate) and bet.low > called.low
    assert checked.low == 0 and checked.high == pytest.approx(1 - TIGHT_READS.bet_rate)
    assert checked.stays == pytest.approx(1 - TIGHT_READS.stay_rate)


def test_piranha_the_strong_player_drops_a_pair_when_a_tight_player_called_its_bet():
    """A player seen to call only with its best quarter of hands and to stay in with the same called: its
    hand is one of those, so a pair of queens is beaten most of the time. (Read as any hand it would stay
    in with, the caller looked like a coin flip.)"""
    state, seen = _after([BET, CALL])
    assert seen.phase == "drop"
    reads = TableReads({2: TIGHT_READS})
    estimate = piranha_estimate(seen, 2000, random.Random(1), reads)
    assert estimate.win < 0.2 and estimate.stay_value < 0
    assert STRONG.act(seen, state.rules, random.Random(1), reads) == Action("out")
    # the same pair against the same player's check: it is likely to drop, and staying in pays
    state, seen = _after([CHECK, CHECK])
    checked = piranha_estimate(seen, 2000, random.Random(1), reads)
    assert checked.alone > 0.7 and checked.stay_value > 0
    assert STRONG.act(seen, state.rules, random.Random(1), reads) == Action("in")


# ---- Piles: obvious decisions ------------------------------------------------------------------

EXAMPLE_PILES = "3d 8s Jh Jc  Ac 4s 9h Qd  5h Jd 2c Ks 7d"  # piles.txt worked example
EXAMPLE_HOLE = "Js 9c 6d 3h 2s"  # four jacks and 5-4-3-2-A: "may reasonably declare pig"
NO_LOW_PILES = "3d 8s Jh Jc  Ac 4s 9h Qd  9d Jd Tc Ks Qs"  # no row card below nine: no low anywhere
NOTHING = "Kh Tc 9s Qs 7c"  # on the example piles: three jacks, which any pair in a hand fills up; no low


def piles_at_stage_nine(hole, piles, rules=None, players=3):
    deck = stack_deck([hole, *others(hole, piles, players, 5)], piles, per_player=5)
    seats = list(range(1, players + 1))
    state, _ = new_hand(rules or PilesRules(), seats=seats, button=players, deck=deck)
    while state.stage < 9:
        state, _ = apply(state, to_act(state)[0], CHECK)
    return state


def to_declaration(state):
    while state.phase == "betting":
        state, _ = apply(state, to_act(state)[0], CHECK)
    return state


def test_piles_the_strong_player_bets_and_declares_pig_with_the_example_hand():
    state = piles_at_stage_nine(EXAMPLE_HOLE, EXAMPLE_PILES)
    assert STRONG.act(view(state, 1), state.rules, random.Random(1)).type == "bet"
    assert STRONG.act(view(to_declaration(state), 1), state.rules, random.Random(1)) == PIG


@pytest.mark.parametrize("variant", [False, True])
def test_piles_the_strong_player_never_declares_pig_with_no_low_possible(variant):
    rules = PilesRules(low_variant=variant)
    for hole in (EXAMPLE_HOLE, "As 2d 3c 4h 5d", "Qh Qc Kc Kd 6d"):
        state = to_declaration(piles_at_stage_nine(hole, NO_LOW_PILES, rules))
        for seed in range(5):
            assert STRONG.act(view(state, 1), rules, random.Random(seed)) == HIGH


def test_piles_the_strong_player_folds_nothing_to_a_bet_at_the_last_stage():
    state = piles_at_stage_nine(NOTHING, EXAMPLE_PILES, players=4)
    state, _ = apply(state, 1, CHECK)
    state, _ = apply(state, 2, BET)
    state, _ = apply(state, 3, RAISE)
    state, _ = apply(state, 4, CALL)
    assert STRONG.act(view(state, 1), state.rules, random.Random(1)).type == "fold"


def test_piles_strong_declarations_over_random_hands_claim_only_what_can_qualify():
    """Over many hands, a strong pig or low always holds a qualifying low of its own."""
    rng = random.Random("declarations")
    checked = 0

    def check(state, seat, seen: HandView, log):
        nonlocal checked
        if seen.phase != "declare":
            return
        action = STRONG.act(seen, state.rules, random.Random(rng.getrandbits(32)))
        if action.choice in ("pig", "low"):
            assert seen.my_hand.low is not None
        checked += 1

    for rules in (PilesRules(), PilesRules(low_variant=True)):
        for _ in range(6):
            state, at = random_hand(rules, rng)
            at = dict.fromkeys(at, BEGINNER)  # beginners call down: most hands reach the declaration
            play_out(state, at, rules, rng, on_decision=check)
    assert checked >= 10


# ---- the coach's advice ------------------------------------------------------------------------


def test_advice_in_piranha_names_the_strong_choice_and_the_equity():
    state = piranha_deal(NUTS, UP, players=4)
    advice = advise(view(state, 1), state.rules, random.Random(3))
    assert advice.action.type == "in" and advice.equity > 0.999  # a royal flush on the board ties, rarely
    assert advice.high is None and advice.low is None
    assert advice.sentence.startswith("Stay in: your royal flush wins about 100% of showdowns")


def test_advice_in_piles_gives_the_high_and_the_low_apart():
    state = to_declaration(piles_at_stage_nine(EXAMPLE_HOLE, EXAMPLE_PILES))
    advice = advise(view(state, 1), state.rules, random.Random(3))
    assert advice.action == PIG
    assert advice.high is not None and advice.high > 0.8 and advice.low is not None and advice.low > 0.8
    assert advice.sentence.startswith("Declare pig: you win the high half outright")
    assert "a pig, which must win both halves outright, wins" in advice.sentence


def test_advice_while_betting_says_why_in_one_sentence():
    state = piles_at_stage_nine(NOTHING, EXAMPLE_PILES, players=4)
    while to_act(state) != (1,):
        state, _ = apply(state, to_act(state)[0], BET if BET in legal_actions(state, to_act(state)[0]) else CHECK)
    advice = advise(view(state, 1), state.rules, random.Random(3))
    assert advice.action == STRONG.act(view(state, 1), state.rules, random.Random(3))
    assert advice.sentence.endswith(".") and advice.sentence.count(".") == 1


def test_player_is_a_frozen_record():
    assert isinstance(STRONG, Player)
    with pytest.raises(AttributeError):
        STRONG.name = "x"  # type: ignore[misc]
