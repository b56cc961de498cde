"""Races between real parallel database connections.

Each test holds the contested rows locked from the test's own connection, starts
two threads (each with its own connection) that call a service, waits until both
are blocked in PostgreSQL, then releases them together. A service that checked
before locking would have read the old state by then, so the race is certain, not
a matter of timing luck.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from accounts import services
from accounts.models import Invitation, Membership
from kernel.errors import DomainError
from tests.accounts.factories import ClubFactory, InvitationFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        # pg_stat_activity is a per-transaction snapshot unless cleared.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def run_together(hold_locks: Callable[[], object], calls: list[Callable[[], object]]) -> list[object]:
    """Run `calls` in parallel threads while `hold_locks` keeps the rows locked; return results or errors."""
    results: list[object] = [None] * len(calls)

    def worker(index: int, call: Callable[[], object]) -> None:
        try:
            results[index] = call()
        except DomainError as error:
            results[index] = error
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=worker, args=(i, call)) for i, call in enumerate(calls)]
    with transaction.atomic():
        hold_locks()
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while _waiting_on_locks() < len(calls):
            assert time.monotonic() < deadline, "the threads never reached the lock"
            time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=20)
        assert not thread.is_alive()
    return results


@pytest.mark.parametrize("service", [services.membership_demote, services.membership_remove], ids=["demote", "remove"])
def test_two_organisers_acting_on_each_other_at_once_leave_one_organiser(service):
    club = ClubFactory()
    first = MembershipFactory(club=club, role=Membership.Role.ORGANISER)
    second = MembershipFactory(club=club, role=Membership.Role.ORGANISER)
    MembershipFactory(club=club)

    results = run_together(
        lambda: list(Membership.objects.select_for_update().filter(club=club)),
        [
            lambda: service(club_id=club.pk, membership_id=second.pk, by=first.user),
            lambda: service(club_id=club.pk, membership_id=first.pk, by=second.user),
        ],
    )

    assert Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).count() == 1
    refused = [r for r in results if isinstance(r, DomainError)]
    assert len(refused) == 1, results


def test_one_invitation_accepted_by_two_people_at_once_admits_one():
    club = ClubFactory()
    invitation = InvitationFactory(club=club)
    alice, bob = UserFactory(), UserFactory()

    results = run_together(
        lambda: Invitation.objects.select_for_update().get(pk=invitation.pk),
        [
            lambda: services.invitation_accept(token=invitation.token, user=alice),
            lambda: services.invitation_accept(token=invitation.token, user=bob),
        ],
    )

    assert Membership.objects.filter(club=club).count() == 1
    assert sum(isinstance(r, services.InvitationGone) for r in results) == 1, results
