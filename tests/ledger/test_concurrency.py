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

THREADS = 8
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
            barrier.wait()
            for _ in range(ROUNDS):
                with transaction.atomic():
                    # Alternate the seat order so the two members are touched in both orders.
                    seats = {0: ann, 1: ben} if index % 2 else {0: ben, 1: ann}
                    ledger_post_hand_events(hand=hands[index], created_by=None, seat_users=seats, events=[
                        {"kind": "ante", "seat": 0, "amount": 3},
                        {"kind": "ante", "seat": 1, "amount": 5},
                        {"kind": "award", "seat": 1, "amount": 8},
                    ])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(backends) == THREADS  # real parallel connections
    # In each round one seat paid 3 and the other paid 5 and took 8 back.
    ann_expected = sum(-3 if i % 2 == 0 else 3 for i in range(THREADS)) * ROUNDS
    assert balance_of(club=club, user=ann) == ann_expected
    assert balance_of(club=club, user=ben) == -ann_expected
    # Ann was seat 1 (ante + award: two postings) in odd threads, seat 0 (one posting) in even ones.
    assert Account.objects.get(club=club, user=ann).last_seq == sum(2 if i % 2 else 1 for i in range(THREADS)) * ROUNDS
    assert_books_consistent()
