"""The posting service that play calls, and the database's own guards on the books."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.test.utils import CaptureQueriesContext

from engine import Ante
from games.models import Game
from ledger.models import Account, EntryKind, JournalEntry, Posting
from ledger.services import LedgerError, account_for_member, account_for_table_pot, balance_of, ledger_post_hand_events

from .helpers import assert_books_consistent, books_snapshot, make_hand, make_table

pytestmark = pytest.mark.django_db


def test_each_chip_event_becomes_one_balanced_entry_linked_to_hand_and_table(club_setup):
    ann, ben, cat = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, Game.PILES)
    hand = make_hand(table, [ann, ben, cat])
    events = [
        {"kind": "deal"},
        {"kind": "ante", "seat": 0, "amount": 25},
        Ante(seat=1, amount=25),
        {"kind": "ante", "seat": 2, "amount": 25},
        {"kind": "bet", "seat": 1, "amount": 50},
        {"kind": "fold", "seat": 2},
        {"kind": "carry", "amount": 125},
        {"kind": "award", "seat": 1, "amount": 125},
    ]
    entries = ledger_post_hand_events(hand=hand, events=events, seat_users={0: ann, 1: ben, 2: cat}, created_by=None)
    assert [e.kind for e in entries] == ["ante", "ante", "ante", "bet", "award"]
    assert all(e.hand_id == hand.pk and e.table_id == table.pk and e.game == "piles" for e in entries)
    assert balance_of(club=club_setup.club, user=ann) == -25
    assert balance_of(club=club_setup.club, user=ben) == 125 - 75
    assert balance_of(club=club_setup.club, user=cat) == -25
    assert account_for_table_pot(table=table).balance == 0
    award = Posting.objects.get(entry=entries[-1], account__user=ben)
    assert (award.amount, award.balance_after, award.seq, award.kind) == (125, 50, 3, "award")
    assert_books_consistent()


def test_carried_pot_stays_in_the_table_pot_account(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben])
    ledger_post_hand_events(
        hand=hand,
        events=[
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "carry", "amount": 50},
        ],
        seat_users={0: ann, 1: ben},
        created_by=None,
    )
    assert account_for_table_pot(table=table).balance == 50
    assert balance_of(club=club_setup.club, user=ann) == -25


@pytest.mark.parametrize(
    "event, message",
    [
        ({"kind": "ante", "seat": 5, "amount": 25}, "seat 5"),
        ({"kind": "bet", "seat": 0, "amount": -25}, "more than zero"),
        ({"kind": "bet", "seat": 0, "amount": "25"}, "whole number"),
        ({"kind": "award", "seat": 0, "amount": 2.5}, "whole number"),
    ],
)
def test_a_bad_chip_event_is_refused_and_the_books_are_unchanged(club_setup, event, message):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben])
    before = books_snapshot()
    with pytest.raises(LedgerError, match=message):
        ledger_post_hand_events(
            hand=hand,
            events=[{"kind": "ante", "seat": 1, "amount": 25}, event],
            seat_users={0: ann, 1: ben},
            created_by=None,
        )
    assert books_snapshot() == before


def test_a_player_who_is_not_a_member_is_refused(club_setup):
    ann = club_setup.members[0]
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, club_setup.outsider])
    before = books_snapshot()
    with pytest.raises(LedgerError, match="not a member"):
        ledger_post_hand_events(
            hand=hand,
            events=[{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}],
            seat_users={0: ann, 1: club_setup.outsider},
            created_by=None,
        )
    assert books_snapshot() == before


def test_balance_of_is_zero_before_any_posting(club_setup):
    assert balance_of(club=club_setup.club, user=club_setup.members[0]) == 0


def _one_entry(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben])
    return ledger_post_hand_events(
        hand=hand, events=[{"kind": "ante", "seat": 0, "amount": 25}], seat_users={0: ann, 1: ben}, created_by=None
    )[0]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_posting SET amount = amount + 1",
        "UPDATE ledger_posting SET balance_after = 0",
        "DELETE FROM ledger_posting",
        "UPDATE ledger_journalentry SET memo = 'edited'",
        "DELETE FROM ledger_journalentry",
    ],
)
def test_update_and_delete_of_the_books_fail_at_the_database(club_setup, sql):
    # The application role lacks the right; the owner meets the insert-only trigger
    # (tests/security/test_database_roles.py).
    _one_entry(club_setup)
    with (
        pytest.raises(ProgrammingError, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Posting.objects.count() == 2


def test_the_orm_cannot_update_or_delete_a_posting_either(club_setup):
    entry = _one_entry(club_setup)
    posting = entry.postings.first()
    with pytest.raises(ProgrammingError), transaction.atomic():
        Posting.objects.filter(pk=posting.pk).update(amount=1)
    with pytest.raises(ProgrammingError), transaction.atomic():
        posting.delete()


def test_a_balance_changes_only_through_a_posting(club_setup):
    entry = _one_entry(club_setup)
    account = Account.objects.get(pk=entry.postings.first().account_id)
    with pytest.raises(IntegrityError, match="only through a posting"), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(balance=1_000_000)


def test_an_unbalanced_entry_fails_at_commit(club_setup):
    entry = _one_entry(club_setup)
    account_id = entry.postings.first().account_id
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic(), connection.cursor() as cursor:
        new = JournalEntry.objects.create(club=club_setup.club, kind=EntryKind.ADJUSTMENT, memo="forged")
        for amount in (500, -499):
            cursor.execute(
                "INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game)"
                " VALUES (%s, %s, %s, 0, 0, '', '')",
                [new.pk, account_id, amount],
            )
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # what COMMIT does with the deferred check


def test_an_entry_without_postings_fails_at_commit(club_setup):
    with (
        pytest.raises(IntegrityError, match="at least two postings"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        JournalEntry.objects.create(club=club_setup.club, kind=EntryKind.ADJUSTMENT, memo="empty")
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_posting_to_another_clubs_account_fails_at_the_database(club_setup):
    entry = _one_entry(club_setup)
    from accounts.models import Membership

    other_club = Membership.objects.get(user=club_setup.outsider).club
    foreign = account_for_member(club=other_club, user=club_setup.outsider)
    with pytest.raises(IntegrityError, match="another club"), transaction.atomic():
        Posting.objects.create(entry=entry, account=foreign, amount=5)


def _rows(entry: JournalEntry) -> tuple[dict, list[dict]]:
    """An entry's row and its postings' rows (in id order), less what differs between two entries of the same
    move: their ids, times, and each posting's place in its account's history."""
    row = {k: v for k, v in _values(JournalEntry.objects.get(pk=entry.pk)).items() if k not in ("id", "created_at")}
    postings = []
    for posting in Posting.objects.filter(entry=entry).order_by("pk"):
        assert posting.created_at == entry.created_at  # stamped by the trigger from its entry
        postings.append(
            {
                k: v
                for k, v in _values(posting).items()
                if k not in ("id", "entry_id", "seq", "balance_after", "created_at")
            }
        )
    return row, postings


def _values(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_one_chip_event_is_posted_in_one_statement_as_several_are(club_setup):
    """An action's one chip event (a bet, a blind, an ante, one award) locks both accounts, inserts its entry
    and its two postings in one statement, and writes the same rows as the path for several events (and for
    accounts not made yet), which the triggers stamp alike."""
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben], finished=False)
    seats = {0: ann, 1: ben}

    def post(*events: dict) -> tuple[list[JournalEntry], int]:
        with CaptureQueriesContext(connection) as ctx:
            entries = ledger_post_hand_events(hand=hand, events=events, seat_users=seats, created_by=ann)
        return entries, len(ctx.captured_queries)

    antes, _ = post({"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25})
    bet, award = {"kind": "bet", "seat": 1, "amount": 40}, {"kind": "award", "seat": 0, "amount": 65}
    (bet_alone,), statements = post(bet)
    assert statements == 1
    (award_alone,), _ = post(award)
    bet_with, award_with = post(bet, award)[0]
    assert _rows(bet_alone) == _rows(bet_with)
    assert _rows(award_alone) == _rows(award_with)
    accounts = {a.user_id: a.pk for a in Account.objects.filter(club=club_setup.club)}
    assert [(p["account_id"], p["amount"]) for p in _rows(bet_alone)[1]] == [
        (accounts[ben.pk], -40),
        (accounts[None], 40),
    ]
    assert [(p["account_id"], p["amount"]) for p in _rows(award_alone)[1]] == [
        (accounts[ann.pk], 65),
        (accounts[None], -65),
    ]
    assert all(not e._state.adding and e.pk for e in (*antes, bet_alone, award_alone))
    assert balance_of(club=club_setup.club, user=ann) == -25 + 65 + 65
    assert balance_of(club=club_setup.club, user=ben) == -25 - 40 - 40
    assert account_for_table_pot(table=table).balance == 0
    assert_books_consistent()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the commit's checks: each entry balances, two postings


def test_one_chip_event_of_a_player_without_an_account_makes_it_first(club_setup):
    ann, ben, cat = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben], finished=False)
    ledger_post_hand_events(
        hand=hand, events=[{"kind": "ante", "seat": 0, "amount": 25}], seat_users={0: ann, 1: ben}, created_by=None
    )
    (entry,) = ledger_post_hand_events(
        hand=hand, events=[{"kind": "ante", "seat": 1, "amount": 25}], seat_users={0: ann, 1: ben}, created_by=None
    )
    assert balance_of(club=club_setup.club, user=ben) == -25 and entry.postings.count() == 2
    assert account_for_table_pot(table=table).balance == 50
    assert_books_consistent()
