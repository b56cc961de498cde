"""Parallel postings from real parallel connections lose no update and don't deadlock."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from accounts.models import Membership
from ledger.models import Account
from ledger.services import balance_of, ledger_post_hand_events
from tests.accounts.factories import ClubFactory, MembershipFactory

from .helpers import assert_books_consistent, make_hand, make_table

THREADS = 6  # with the test's own connection, within the pool of 10 (DB_POOL_MAX_SIZE) that other threads of the process share
ROUNDS = 15


@pytest.mark.django_db(transaction=True)
def test_parallel_postings_to_the_same_accounts_lose_no_update():
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    ann = MembershipFactory(club=club).user
    ben = MembershipFactory(club=club).user
    # Every thread plays at its own table with the same two members, so their accounts
    # are hit from every connection at once (and created by whichever comes first).
    hands = [make_hand(make_table(club, organiser), [ann, ben]) for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    backends: set[int] = set()

    def play(index: int) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                backends.add(cursor.fetchone()[0])
            barrier.wait(timeout=60)
            for _ in range(ROUNDS):
                with transaction.atomic():
                    # Alternate the seat order so the two members are touched in both orders.
                    seats = {0: ann, 1: ben} if index % 2 else {0: ben, 1: ann}
                    ledger_post_hand_events(
                        hand=hands[index],
                        created_by=None,
                        seat_users=seats,
                        events=[
                            {"kind": "ante", "seat": 0, "amount": 3},
                            {"kind": "ante", "seat": 1, "amount": 5},
                            {"kind": "award", "seat": 1, "amount": 8},
                        ],
                    )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            barrier.abort()  # the others stop waiting for this one: the test fails with its error, not a hang
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [], [repr(e) for e in errors if not isinstance(e, threading.BrokenBarrierError)]
    assert len(backends) == THREADS  # real parallel connections
    # In each round one seat paid 3 and the other paid 5 and took 8 back.
    ann_expected = sum(-3 if i % 2 == 0 else 3 for i in range(THREADS)) * ROUNDS
    assert balance_of(club=club, user=ann) == ann_expected
    assert balance_of(club=club, user=ben) == -ann_expected
    # Ann was seat 1 (ante + award: two postings) in odd threads, seat 0 (one posting) in even ones.
    assert Account.objects.get(club=club, user=ann).last_seq == sum(2 if i % 2 else 1 for i in range(THREADS)) * ROUNDS
    assert_books_consistent()


def _lockable_elsewhere(account_ids: list[int]) -> dict[int, bool]:
    """Whether another connection could lock each account now (NOWAIT: a held lock refuses at once)."""
    from django.db import OperationalError

    found: dict[int, bool] = {}

    def probe() -> None:
        try:
            for account_id in account_ids:
                try:
                    with transaction.atomic(), connection.cursor() as cursor:
                        cursor.execute(
                            "SELECT id FROM ledger_account WHERE id = %s FOR NO KEY UPDATE NOWAIT", [account_id]
                        )
                    found[account_id] = True
                except OperationalError:
                    found[account_id] = False
        finally:
            connection.close()

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return found


@pytest.mark.django_db(transaction=True)
def test_a_posting_finds_and_locks_exactly_the_accounts_it_moves_in_one_statement():
    """The accounts of those whose chips move and the table's pot are locked until the transaction ends, by
    the statement that finds them; a player whose chips do not move keeps an account others may lock."""
    from django.test.utils import CaptureQueriesContext

    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    ann, ben, cat = (MembershipFactory(club=club).user for _ in range(3))
    table = make_table(club, organiser)
    hand = make_hand(table, [ann, ben, cat])
    seats = {0: ann, 1: ben, 2: cat}
    ledger_post_hand_events(
        hand=hand, created_by=None, seat_users=seats, events=[{"kind": "ante", "seat": s, "amount": 5} for s in seats]
    )  # accounts exist
    accounts = {a.user_id: a.pk for a in Account.objects.filter(club=club, kind=Account.Kind.MEMBER)}
    pot = Account.objects.get(table=table).pk
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        ledger_post_hand_events(
            hand=hand,
            created_by=ben,
            seat_users=seats,
            events=[{"kind": "bet", "seat": 1, "amount": 5}, {"kind": "bet", "seat": 0, "amount": 5}],
        )
        held = _lockable_elsewhere([accounts[ann.pk], accounts[ben.pk], pot, accounts[cat.pk]])
    assert held == {accounts[ann.pk]: False, accounts[ben.pk]: False, pot: False, accounts[cat.pk]: True}
    reads = [q["sql"] for q in ctx.captured_queries if 'FROM "ledger_account"' in q["sql"]]
    assert len(reads) == 1 and "FOR NO KEY UPDATE" in reads[0], reads
    assert _lockable_elsewhere([accounts[ann.pk], pot]) == {accounts[ann.pk]: True, pot: True}
    assert balance_of(club=club, user=ben) == -10 and balance_of(club=club, user=cat) == -5
    assert_books_consistent()


@pytest.mark.django_db(transaction=True)
def test_a_posting_whose_accounts_do_not_all_exist_yet_creates_them_and_locks_the_others():
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    ann, ben = (MembershipFactory(club=club).user for _ in range(2))
    table = make_table(club, organiser)
    hand = make_hand(table, [ann, ben])
    ledger_post_hand_events(
        hand=make_hand(make_table(club, organiser), [ann]),
        created_by=None,
        seat_users={0: ann},
        events=[{"kind": "ante", "seat": 0, "amount": 5}],
    )  # ann's only
    with transaction.atomic():
        ledger_post_hand_events(
            hand=hand,
            created_by=None,
            seat_users={0: ann, 1: ben},
            events=[{"kind": "ante", "seat": 0, "amount": 5}, {"kind": "ante", "seat": 1, "amount": 5}],
        )
        # Ben's account and the pot's, created just now, no other connection sees before the commit; Ann's it
        # may not lock.
        existing = Account.objects.get(club=club, user=ann).pk
        assert _lockable_elsewhere([existing]) == {existing: False}
    assert balance_of(club=club, user=ann) == -10 and balance_of(club=club, user=ben) == -5
    assert Account.objects.get(table=table).balance == 10
    assert_books_consistent()
