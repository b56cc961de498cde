"""The hand locks of games/services/locking.py lock the hand row and nothing else: its table and rule version,
read with it, stay free for the next lock in the order (the hand, then the table), checked from a second
PostgreSQL connection while the lock is held."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import OperationalError, connection, transaction

import engine
from games import services
from games.models import Hand
from games.services import locking
from tests.games.helpers import make_table

# Each row a lock may reach, tried from another connection without waiting.
ROWS = {
    "hand": 'SELECT 1 FROM "games_hand" WHERE "id" = %s FOR UPDATE NOWAIT',
    "table": 'SELECT 1 FROM "games_table" WHERE "id" = %s FOR UPDATE NOWAIT',
    "rules": 'SELECT 1 FROM "games_rulesetversion" WHERE "id" = %s FOR UPDATE NOWAIT',
}


def _held_elsewhere(ids: dict[str, int]) -> set[str]:
    """Which of the rows (by name, with their ids) another connection cannot lock now."""
    held: set[str] = set()

    def probe() -> None:
        try:
            for name, sql in ROWS.items():
                try:
                    with transaction.atomic(), connection.cursor() as cursor:
                        cursor.execute(sql, [ids[name]])
                except OperationalError:
                    held.add(name)
        finally:
            connection.close()

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return held


def _locked_by(lock: Callable[[], object], hand: Hand) -> set[str]:
    ids = {"hand": hand.pk, "table": hand.table_id, "rules": hand.rule_version_id}
    with transaction.atomic():
        lock()
        return _held_elsewhere(ids)


@pytest.fixture
def hand(club_setup) -> Hand:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    return services.table_start(table_id=table.pk, user=a)


@pytest.mark.django_db(transaction=True)
def test_nothing_is_held_without_a_lock(hand) -> None:
    assert _locked_by(lambda: None, hand) == set()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "lock",
    [
        lambda hand, user: locking.hand_lock(hand_id=hand.pk),
        lambda hand, user: locking.hand_lock(hand_id=hand.pk, read=("table", "rule_version")),
        lambda hand, user: locking.hand_lock_live(hand_id=hand.pk),
        lambda hand, user: locking.hand_lock_seated(hand_id=hand.pk, user=user, version=hand.version),
        lambda hand, user: locking.hand_lock_for_member(table_id=hand.table_id, hand_id=hand.pk, user=user),
    ],
    ids=["alone", "reading its table and rules", "live", "seated", "for a member"],
)
def test_a_hand_lock_holds_the_hand_row_alone(club_setup, hand, lock) -> None:
    user = club_setup.members[0]
    assert _locked_by(lambda: lock(hand, user), hand) == {"hand"}


@pytest.mark.django_db(transaction=True)
def test_the_table_lock_after_it_holds_the_table_alone(hand) -> None:
    """Not the rules' version every table of those rules shares: hand ends at two tables waited for each other
    on it (each had dealt a hand referring to it)."""
    assert _locked_by(lambda: locking.table_lock_with_rules(table_id=hand.table_id), hand) == {"table"}


@pytest.mark.django_db
def test_a_hand_lock_needs_a_hand_that_is_there(hand) -> None:
    with transaction.atomic():
        assert locking.hand_lock(hand_id=hand.pk + 1000) is None
        assert locking.hand_lock_live(hand_id=hand.pk + 1000) is None
        Hand.objects.filter(pk=hand.pk).update(voided_at=hand.started_at)
        assert locking.hand_lock_live(hand_id=hand.pk) is None
        assert locking.hand_lock(hand_id=hand.pk) is not None
