"""What the strong player learns of the others at its table (engine/players/reads.py): counted from a seat's
own views of the hands played (the drops opened, the bets, calls, raises and folds of the public log), and
used in place of the fixed model of who stays in (Piranha) and of the margin a value bet needs (Piles). Plain
pytest, no database."""

from __future__ import annotations

import random

from engine import PiranhaRules, apply, is_over, new_hand, to_act, view
from engine.actions import Action
from engine.cards import FULL_DECK
from engine.players import STRONG, TableReads, piles, reads_from
from engine.players.estimate import piranha_estimate
from engine.players.reads import PRIOR_STAY, SeatReads
from tests.engine.test_players import EXAMPLE_PILES, KQ_BOARD, NOTHING, piles_at_stage_nine, piranha_deal


def _played(rules, choose, seed=1, players=4):
    """One finished hand, each seat deciding by ``choose(seat, legal)``."""
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    state, _ = new_hand(rules, seats=list(range(1, players + 1)), button=players, deck=deck)
    while not is_over(state):
        seat = to_act(state)[0]
        state, _ = apply(state, seat, choose(seat, view(state, seat).legal_actions))
    return state


def test_reads_count_the_drops_opened_and_the_calls_and_folds_facing_a_bet() -> None:
    def choose(seat, legal):
        wanted = {1: "bet", 2: "call", 3: "fold", 4: "call"}[seat] if legal[0].type != "in" else "in"
        return next((a for a in legal if a.type == wanted), legal[0])

    state = _played(PiranhaRules(betting_round=True), choose)
    reads = reads_from([view(state, 1)])
    assert 1 not in reads.seats  # a seat does not read itself
    assert reads.of(2) == SeatReads(drops=1, stayed=1, faced=1, called=1, rounds=1, bet=0)
    assert reads.of(3) == SeatReads(drops=0, stayed=0, faced=1, called=0, rounds=1, bet=0, folded=1)
    assert reads_from([view(state, None)]).of(2) == reads.of(2)  # nothing but the public log
    assert reads_from([view(state, 2)]).of(1).bet == 1


def test_a_seat_never_seen_reads_as_the_prior_and_the_rates_move_with_what_is_seen() -> None:
    assert abs(TableReads().of(5).stay_rate - PRIOR_STAY) < 1e-9
    always = SeatReads(drops=30, stayed=30)
    never = SeatReads(drops=30, stayed=0)
    assert always.stay_rate > 0.85 and never.stay_rate < 0.1


def test_against_a_table_that_never_drops_the_strong_player_expects_company_and_wider_hands() -> None:
    state = piranha_deal("9c 9d 5h 4s", KQ_BOARD, players=5)
    seen = view(state, 1)
    stations = TableReads({s: SeatReads(drops=40, stayed=40) for s in (2, 3, 4, 5)})
    tight = TableReads({s: SeatReads(drops=40, stayed=4) for s in (2, 3, 4, 5)})
    against_stations = piranha_estimate(seen, 2000, random.Random(1), stations)
    against_tight = piranha_estimate(seen, 2000, random.Random(1), tight)
    assert against_stations.alone < 0.01 < 0.3 < against_tight.alone
    # the fixed model (no reads) is what the other players and the coach use
    assert STRONG.act(seen, state.rules, random.Random(1)) in seen.legal_actions
    assert STRONG.act(seen, state.rules, random.Random(1), stations) in seen.legal_actions


def test_the_strong_player_stays_in_more_thinly_against_a_table_that_always_drops() -> None:
    """Everyone else drops nearly always: a middling hand takes the pot uncontested most of the time."""
    state = piranha_deal("8c 7d 4h 3s", KQ_BOARD, players=4)
    seen = view(state, 1)
    folders = TableReads({s: SeatReads(drops=60, stayed=1) for s in (2, 3, 4)})
    assert STRONG.act(seen, state.rules, random.Random(2)) == Action("out")  # the fixed model: two pair stay in
    assert STRONG.act(seen, state.rules, random.Random(2), folders) == Action("in")


# ---- Piles: the calls seen set the value bet ---------------------------------------------------------


def test_against_players_who_call_every_bet_a_thinner_piles_hand_bets_for_value() -> None:
    state = piles_at_stage_nine(NOTHING, EXAMPLE_PILES, players=6)
    seen = view(state, 1)
    callers = TableReads({s: SeatReads(faced=40, called=40) for s in range(2, 7)})
    folders = TableReads({s: SeatReads(faced=40, called=8) for s in range(2, 7)})
    assert piles.value_equity(seen, None) == piles.value_equity(seen, TableReads()) == piles.VALUE_FLOOR
    assert piles.value_equity(seen, folders) == piles.VALUE_FLOOR
    assert piles.value_equity(seen, callers) < 0.2  # a little over a fair share of six
    assert piles.betting_plan(seen, 0.22, None) != "value"
    assert piles.betting_plan(seen, 0.22, callers) == "value"
