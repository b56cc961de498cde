"""Amounts stay where the engine and the books handle them, so every hand can finish.

Without bounds an ante near 10^10 could be agreed and then never posted (the ledger refuses any
single amount over MAX_AMOUNT), and a six-seat Piranha table with no match cap grew its pot about
fivefold a hand until the award of the eleventh hand or so could not be posted: the hand stayed
open for good. Stakes are bounded, the agreement says how far an uncapped pot can grow, and the
pot limit (docs/hands-and-data.md "Pot limit") keeps every pot, award and payment postable.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.actions import IN, OUT
from engine.cards import FULL_DECK
from engine.common import carry_within_limit, match_within_limit
from engine.rules import MAX_RAISES, MAX_STAKE, POT_LIMIT
from games import services as game_services
from games.errors import RulesFrozen
from games.forms import PilesRulesForm, PiranhaRulesForm
from games.models import Hand, Table
from games.presentation.words import rules_in_words
from ledger.services import MAX_AMOUNT
from tests.accounts.factories import MembershipFactory
from tests.games.helpers import make_rule_set, make_table
from tests.ledger.helpers import assert_books_consistent, assert_pots_match_tables

CHIP_EVENTS = {"ante", "blind", "bet", "match_payment", "award"}


def _deck(rng: random.Random) -> list[str]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


# --- the agreement ---------------------------------------------------------------------------


def test_a_huge_ante_is_refused_by_the_engine_the_form_and_the_service(club_setup):
    huge = 10**12  # 10,000,000,000.00
    assert any("ante may be at most 1,000.00" in e for e in engine.PiranhaRules(ante=huge).validate())
    assert any("match cap may be at most" in e for e in engine.PiranhaRules(match_cap=huge).validate())
    assert any("bet size may be at most" in e for e in engine.PiranhaRules(bet_size=huge).validate())
    assert any("raise cap must be from 0 to 20" in e for e in engine.PiranhaRules(max_raises=10**6).validate())
    assert any("big blind may be at most" in e for e in engine.PilesRules(forced="blinds", big_blind=huge).validate())
    assert any("stage's bet may be at most" in e for e in engine.PilesRules(stage_bets=(25,) * 8 + (huge,)).validate())
    assert engine.PiranhaRules(ante=MAX_STAKE, match_cap=MAX_STAKE, bet_size=MAX_STAKE).validate() == []

    form = PiranhaRulesForm(
        {
            "name": "High",
            "max_seats": 6,
            "clock_amount": 1,
            "clock_unit": "days",
            "ante": "9999999999.99",
            "ante_each_hand": "every",
            "bet_size": "0.25",
            "max_raises": 3,
            "nobody_in": "carry",
        }
    )
    assert not form.is_valid()
    assert form.errors["ante"] == ["Ante may be at most 1,000.00."]
    piles = PilesRulesForm(
        {
            "name": "High",
            "max_seats": 6,
            "clock_amount": 1,
            "clock_unit": "days",
            "forced": "ante",
            "ante": "0.25",
            "small_blind": "0.10",
            "big_blind": "0.25",
            **{f"stage_{n}": "0.25" for n in range(1, 9)},
            "stage_9": "1000.01",
            "max_raises": 3,
            "declare_timeout": "fold",
        }
    )
    assert not piles.is_valid() and "stage_9" in piles.errors

    with pytest.raises(RulesFrozen, match="ante may be at most"):
        make_rule_set(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=huge))


def test_the_agreement_says_what_an_uncapped_pot_can_grow_to():
    words = " ".join(
        rules_in_words(engine.PiranhaRules(ante=100).to_dict(), max_seats=6, spectators_allowed=True, currency="USD")
    )
    assert "with 6 players the pot can grow 5-fold a hand" in words
    assert "from $6.00 of antes to $30.00 after one showdown and $150.00 after two" in words
    assert "up to the pot limit of $1,000,000.00" in words
    assert "When the losers' payments would pass it they share it equally instead" in words
    capped = " ".join(
        rules_in_words(
            engine.PiranhaRules(match_cap=500).to_dict(), max_seats=6, spectators_allowed=True, currency="USD"
        )
    )
    assert "at most $5.00 each, into the next hand's pot: with 6 players at most $25.00" in capped


# --- the engine ------------------------------------------------------------------------------


def test_no_hand_can_hold_an_amount_the_ledger_refuses():
    """The worst case of every bound at once stays within the ledger's largest single amount."""
    per_round = MAX_STAKE * (1 + MAX_RAISES)  # an opening bet and every raise, all at the largest stake
    piranha = POT_LIMIT + engine.PiranhaRules.max_players * (MAX_STAKE + per_round)
    piles = POT_LIMIT + engine.PilesRules.max_players * (MAX_STAKE + 9 * per_round)
    assert max(piranha, piles) <= MAX_AMOUNT


def test_the_pot_limit_helpers():
    assert match_within_limit(500, None, 5) == 500
    assert match_within_limit(500, 200, 5) == 200
    assert match_within_limit(POT_LIMIT, None, 3) == POT_LIMIT // 3
    assert match_within_limit(POT_LIMIT, 100, 3) == 100
    assert carry_within_limit(POT_LIMIT, [0, 1], [0, 1]) == (POT_LIMIT, {})
    assert carry_within_limit(POT_LIMIT + 7, [0, 1, 2], [1, 2, 0]) == (POT_LIMIT, {1: 3, 2: 2, 0: 2})


def test_an_uncapped_six_seat_piranha_game_stays_within_the_pot_limit_hand_after_hand():
    rules = engine.PiranhaRules(ante=MAX_STAKE)
    rng = random.Random(6)
    seats = [1, 2, 3, 4, 5, 6]
    carry, limited = 0, 0
    for number in range(1, 16):
        state, events = engine.new_hand(
            rules, seats=seats, button=seats[number % 6], deck=_deck(rng), carry_pot=carry, hand_number=number
        )
        for seat in seats:  # everyone stays in: the fastest growth
            state, more = engine.apply(state, seat, IN)
            events += more
        outcome = engine.result(state)
        assert outcome is not None and outcome.reason == "showdown"
        for e in events:
            if e.kind in CHIP_EVENTS:
                assert 0 < e.amount <= MAX_AMOUNT, e
        paid_in = sum(e.amount for e in events if isinstance(e, (engine.Ante, engine.MatchPayment)))
        paid_out = sum(e.amount for e in events if isinstance(e, engine.Award))
        assert carry + paid_in - paid_out == outcome.next_pot  # chips are conserved
        losers = len(outcome.match_payments)
        assert outcome.next_pot <= POT_LIMIT
        if outcome.pot * losers > POT_LIMIT:
            limited += 1
            assert {p.amount for p in outcome.match_payments} == {POT_LIMIT // losers}
        carry = outcome.next_pot
    assert limited >= 10  # the limit held for most of the game, and every hand finished


def test_a_carried_pot_over_the_limit_is_shared_among_those_dealt_in():
    rules = engine.PiranhaRules(ante=MAX_STAKE)
    seats = [1, 2, 3]
    state, events = engine.new_hand(
        rules, seats=seats, button=1, deck=_deck(random.Random(1)), carry_pot=POT_LIMIT, hand_number=9
    )
    assert state.pot == POT_LIMIT + 3 * MAX_STAKE
    for seat in seats:
        state, events = engine.apply(state, seat, OUT)
    outcome = engine.result(state)
    assert outcome.reason == "nobody_in_carry" and outcome.next_pot == POT_LIMIT
    over = [e for e in events if isinstance(e, engine.Award)]
    assert sorted(d.seat for d in over) == seats and {d.share for d in over} == {"over_limit"}
    assert sum(d.amount for d in over) == 3 * MAX_STAKE


def test_a_piles_pot_that_carries_keeps_the_limit_and_shares_the_rest_among_those_who_declared():
    # The low variant: a high needs a full house, so two players declaring high with less leave no
    # qualifying claimant and the pot carries (docs/design.md).
    rules = engine.PilesRules(low_variant=True, ante=MAX_STAKE)
    state, events = engine.new_hand(
        rules, seats=[1, 2], button=1, deck=_deck(random.Random(0)), carry_pot=POT_LIMIT, hand_number=3
    )
    while not engine.is_over(state):
        seat = engine.to_act(state)[0]
        legal = {(a.type, a.choice): a for a in engine.legal_actions(state, seat)}
        action = legal.get(("check", None)) or legal.get(("call", None)) or legal[("declare", "high")]
        state, more = engine.apply(state, seat, action)
        events += more
    outcome = engine.result(state)
    assert outcome.reason == "carry" and outcome.next_pot == POT_LIMIT and outcome.winners == ()
    over = [e for e in events if isinstance(e, engine.Award)]
    assert {(d.seat, d.amount, d.share) for d in over} == {(1, MAX_STAKE, "over_limit"), (2, MAX_STAKE, "over_limit")}


# --- through the services --------------------------------------------------------------------


@pytest.mark.django_db
def test_an_uncapped_six_seat_piranha_table_keeps_dealing_past_the_pot_limit(club_setup):
    """Six members, the largest ante, no match cap, everyone in every hand: each hand finishes and
    the next is dealt, the pot settles at the limit, and the books stay sound."""
    club = club_setup.club
    players = [*club_setup.everyone, *(MembershipFactory(club=club).user for _ in range(2))]
    table = make_table(club, club_setup.organiser, engine.PiranhaRules(ante=MAX_STAKE), players=players, max_seats=6)
    hand = game_services.table_start(table_id=table.pk, user=players[0])
    by_seat = {seat.number: seat.user for seat in table.seats.all()}
    carried = []
    for _ in range(8):
        for number, user in by_seat.items():
            hand.refresh_from_db()
            if number in engine.to_act(engine.state_from_json(hand.state)):
                game_services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=hand.version)
        hand.refresh_from_db()
        assert hand.finished_at is not None
        table.refresh_from_db()
        assert table.status != Table.Status.FINISHED
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        assert hand is not None and hand.finished_at is None  # the next hand is dealt
        assert hand.carry_in <= POT_LIMIT
        carried.append(hand.carry_in)
    assert carried[-1] > POT_LIMIT * 9 // 10  # the pot reached the limit (within the losers' odd cents)
    assert_books_consistent()
    assert_pots_match_tables()
