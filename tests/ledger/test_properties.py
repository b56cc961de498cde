"""Property tests: random play, settlements and rulings keep the books sound after every step;
settle-up suggestions bring every balance to zero in the fewest transfers (never more than
non-zero members - 1), and with money in table pots settle members among themselves."""

from __future__ import annotations

import itertools
import random
import time

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.demo.simulate import simulation_hand_play, simulation_table_create
from games.models import Game, Hand
from games.services.voiding import hand_void
from kernel.errors import DomainError
from ledger.selectors import settle_up_left, settle_up_plan
from ledger.services import (
    balance_of,
    ruling_adjust,
    settlement_confirm,
    settlement_decline,
    settlement_record,
)

from .helpers import assert_books_consistent, assert_pots_match_tables

# --- settle-up (pure) ----------------------------------------------------------------


@st.composite
def zero_sum_balances(draw: st.DrawFn) -> dict[int, int]:
    values = draw(st.lists(st.integers(min_value=-(10**7), max_value=10**7), min_size=0, max_size=15))
    values.append(-sum(values))
    return {i + 1: v for i, v in enumerate(values)}


@given(zero_sum_balances())
def test_settle_up_brings_every_balance_to_zero_in_few_transfers(balances):
    transfers = settle_up_plan(balances)
    after = dict(balances)
    for t in transfers:
        assert t.amount > 0 and t.payer_id != t.payee_id
        after[t.payer_id] += t.amount
        after[t.payee_id] -= t.amount
    assert all(v == 0 for v in after.values())
    nonzero = sum(1 for v in balances.values() if v)
    assert len(transfers) <= max(nonzero - 1, 0)


def test_settle_up_worked_example():
    plan = settle_up_plan({1: 3000, 2: -1000, 3: -2500, 4: 500, 5: 0})
    assert [(t.payer_id, t.payee_id, t.amount) for t in plan] == [(3, 1, 2500), (2, 1, 500), (2, 4, 500)]


def test_settle_up_finds_the_fewest_transfers_not_the_greedy_ones():
    """Greedy (largest debtor pays largest creditor) needs 5 here; {7, 6, -11, -2} and
    {8, -8} settle apart in 3 + 1."""
    balances = {1: 7, 2: 6, 3: 8, 4: -8, 5: -11, 6: -2}
    plan = settle_up_plan(balances)
    assert len(plan) == 4
    assert (4, 3, 8) in [(t.payer_id, t.payee_id, t.amount) for t in plan]
    assert settle_up_left(balances, plan) == {}


def _fewest_transfers(amounts):
    """Brute force: non-zero count minus the most zero-sum groups, over every set partition."""
    amounts = [a for a in amounts if a]

    def most_groups(rest):
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = -1
        for r in range(len(others) + 1):
            for combo in itertools.combinations(range(len(others)), r):
                if first + sum(others[i] for i in combo) == 0:
                    remaining = [others[i] for i in range(len(others)) if i not in combo]
                    best = max(best, 1 + most_groups(remaining))
        return best

    return len(amounts) - most_groups(amounts) if amounts else 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=0, max_size=7))
def test_settle_up_uses_as_few_transfers_as_a_brute_force_search(values):
    values = [*values, -sum(values)]
    balances = {i + 1: v for i, v in enumerate(values)}
    plan = settle_up_plan(balances)
    assert settle_up_left(balances, plan) == {}
    assert len(plan) == _fewest_transfers(values)


@given(st.lists(st.integers(-(10**6), 10**6), min_size=17, max_size=24))
@settings(max_examples=20, deadline=None)
def test_settle_up_above_the_exact_limit_still_settles_in_at_most_non_zero_minus_one(values):
    values = [*values, -sum(values)]
    balances = {i + 1: v for i, v in enumerate(values)}
    plan = settle_up_plan(balances)
    assert settle_up_left(balances, plan) == {}
    assert len(plan) <= max(sum(1 for v in values if v) - 1, 0)


def test_sixteen_balances_are_planned_exactly_and_fast():
    values = [3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53]
    values.append(-sum(values))
    started = time.perf_counter()
    plan = settle_up_plan({i + 1: v for i, v in enumerate(values)})
    assert time.perf_counter() - started < 2
    assert len(plan) == 15


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=8), st.integers(1, 100))
def test_with_money_in_the_pots_members_are_settled_among_themselves_as_far_as_they_can_be(values, pots):
    """Members' balances sum to minus what sits in the pots: every member owed money is paid in
    full, nobody pays more than they owe, and what is left is exactly the pot money."""
    values = [*values, -sum(values) - pots]
    balances = {i + 1: v for i, v in enumerate(values)}
    plan = settle_up_plan(balances)
    left = settle_up_left(balances, plan)
    assert all(v < 0 for v in left.values())
    assert sum(left.values()) == -pots
    assert all(t.amount > 0 and balances[t.payer_id] < 0 < balances[t.payee_id] for t in plan)
    assert len(plan) <= max(sum(1 for v in values if v) - 1, 0)


def test_settle_up_leaves_pot_money_unmatched():
    # 100 sits in a table pot: members sum to -100; creditors are paid in full.
    plan = settle_up_plan({1: 400, 2: -500})
    assert [(t.payer_id, t.payee_id, t.amount) for t in plan] == [(2, 1, 400)]


# --- the books under random operations ------------------------------------------------

step = st.one_of(
    st.tuples(st.just("play"), st.integers(0, 1), st.integers(0, 2**16)),
    st.tuples(st.just("adjust"), st.integers(0, 3), st.integers(0, 3), st.integers(-100, 5000), st.booleans()),
    st.tuples(st.just("settle"), st.integers(0, 3), st.integers(0, 3), st.integers(-100, 5000), st.integers(0, 3)),
    st.tuples(st.just("decide"), st.integers(0, 10), st.booleans(), st.integers(0, 3)),
    st.tuples(st.just("void"), st.integers(0, 10), st.integers(0, 3)),
)


@pytest.mark.django_db(transaction=True)  # play opens durable transactions, as at the table
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_random_play_settlements_and_rulings_keep_the_books_sound(club_setup, steps):
    people = club_setup.everyone
    club = club_setup.club
    tables = [
        simulation_table_create(club=club, game=g, created_by=club_setup.organiser) for g in (Game.PIRANHA, Game.PILES)
    ]
    settlements = []
    for op in steps:
        try:
            if op[0] == "play":
                rng = random.Random(op[2])  # noqa: S311
                players = rng.sample(people, rng.randint(2, len(people)))
                simulation_hand_play(table=tables[op[1]], players=players, rng=rng)
            elif op[0] == "adjust":
                ruling_adjust(
                    club=club,
                    from_user=people[op[1]],
                    to_user=people[op[2]],
                    amount=op[3],
                    reason="Rob is right" if op[4] else "",
                    ruled_by=club_setup.organiser,
                )
            elif op[0] == "settle":
                settlements.append(
                    settlement_record(
                        club=club,
                        payer=people[op[1]],
                        payee=people[op[2]],
                        amount=op[3],
                        paid_on=timezone.localdate(),
                        note="",
                        recorded_by=people[op[4]],
                    )
                )
            elif op[0] == "decide" and settlements:
                s = settlements[op[1] % len(settlements)]
                decide = settlement_confirm if op[2] else settlement_decline
                decide(club=club, settlement_id=s.pk, user=people[op[3]])
            elif op[0] == "void":
                hands = list(Hand.objects.filter(table__club=club).order_by("pk"))
                if hands:
                    hand_void(hand=hands[op[1] % len(hands)], reason="Misdeal", ruled_by=people[op[2]])
        except DomainError:  # refused (a ledger rule, a seat below the credit limit, a game over)
            pass  # the books must be just as sound
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # run the commit-time checks now
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        assert_books_consistent()
        assert_pots_match_tables()  # a void keeps the carried pot in step with the books
        assert sum(balance_of(club=club, user=u) for u in people) <= 0  # the rest sits in table pots
