"""PostgreSQL's guards of practice (games 0012, ledger 0005, clubhouse 0003): whatever a service forgets, no
entry, account, statistic or notice of practice is written, a practice table seats one member, and a computer
player never sits at a money table."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

import engine
from clubhouse.models import HandResult
from games.models import ComputerPlayer, Hand, Seat, Table
from games.services import practice
from ledger.models import Account, JournalEntry
from notices.models import TurnNotice
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db


def _practice(setup) -> Table:
    return practice.practice_open(club=setup.club, user=setup.members[0], game="piles", computers=2, strength="solid")


def _refused(make) -> None:
    with pytest.raises(DatabaseError), transaction.atomic():
        make()


def test_a_computer_player_never_sits_at_a_money_table(club_setup) -> None:
    table_ = _practice(club_setup)
    machine = ComputerPlayer.objects.filter(user__seats__table=table_).first()
    assert machine is not None
    money = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[club_setup.members[1]])
    _refused(
        lambda: Seat.objects.create(
            table=money, user=machine.user, number=5, accepted_version=money.rule_version, accepted_at=timezone.now()
        )
    )


def test_a_practice_table_never_seats_a_second_member(club_setup) -> None:
    table = _practice(club_setup)
    _refused(
        lambda: Seat.objects.create(
            table=table,
            user=club_setup.members[1],
            number=5,
            accepted_version=table.rule_version,
            accepted_at=timezone.now(),
        )
    )


def test_a_table_never_turns_into_practice_or_back(club_setup) -> None:
    table = _practice(club_setup)
    _refused(lambda: Table.objects.filter(pk=table.pk).update(practice=False))
    money = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules())
    _refused(lambda: Table.objects.filter(pk=money.pk).update(practice=True))


def test_no_journal_entry_of_a_practice_table_or_hand(club_setup) -> None:
    table = _practice(club_setup)
    hand = Hand.objects.get(table=table)
    _refused(lambda: JournalEntry.objects.create(club=club_setup.club, kind="ante", table=table))
    _refused(lambda: JournalEntry.objects.create(club=club_setup.club, kind="ante", hand=hand))


def test_no_account_and_so_no_balance_of_a_computer_player(club_setup) -> None:
    table = _practice(club_setup)
    machine = ComputerPlayer.objects.filter(user__seats__table=table).first()
    assert machine is not None
    _refused(lambda: Account.objects.create(club=club_setup.club, kind=Account.Kind.MEMBER, user=machine.user))


def test_no_notice_of_a_practice_hand(club_setup) -> None:
    hand = Hand.objects.get(table=_practice(club_setup))
    _refused(lambda: TurnNotice.objects.create(hand=hand, seat=1, since=0, kind="turn", user=club_setup.members[0]))


def test_no_result_row_of_a_practice_hand_so_no_statistic_or_season_figure(club_setup) -> None:
    hand = Hand.objects.get(table=_practice(club_setup))
    with connection.cursor() as cursor:  # what the hand-finished trigger writes, written by hand
        cursor.execute(
            "INSERT INTO clubhouse_handresult (hand_id, club_id, user_id, game, seat, finished_at, "
            "decision, won, net) VALUES (%s, %s, %s, 'piles', 1, now(), '', 0, 0)",
            [hand.pk, club_setup.club.pk, club_setup.members[0].pk],
        )
    assert not HandResult.objects.filter(hand=hand).exists()
