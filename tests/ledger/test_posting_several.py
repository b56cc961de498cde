"""Several chip events of one action (a hand's result, a deal's antes) go to the books in one statement."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ledger.models import Account, JournalEntry, Posting
from ledger.services import HandEvents, LedgerError, account_for_table_pot, balance_of, ledger_post_hand_events

from .helpers import assert_books_consistent, make_hand, make_table

pytestmark = pytest.mark.django_db


def _values(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _written(entries: list[JournalEntry]) -> list[tuple[dict, list[dict]]]:
    """Each entry's row as read back (it equals the object returned) and its postings' rows in id order, less
    what differs between two entries of the same move at two hands (ids, times, the hand, its memo naming it;
    a posting's place in its account's history)."""
    rows = []
    for entry in entries:
        row = _values(JournalEntry.objects.get(pk=entry.pk))
        assert row == _values(entry) and not entry._state.adding
        postings = [
            {k: v for k, v in _values(p).items() if k not in ("id", "entry_id", "seq", "balance_after", "created_at")}
            for p in Posting.objects.filter(entry_id=entry.pk).order_by("pk")
        ]
        rows.append(({k: v for k, v in row.items() if k not in ("id", "created_at", "hand_id", "memo")}, postings))
    return rows


def test_several_chip_events_are_posted_in_one_statement_as_the_path_that_makes_accounts_first(club_setup):
    """With every account there, the events' entries and postings are written in one statement, in event order
    (ids growing with the events; each entry's player's posting first), with the same rows as when an account
    is made first (the path of a player's first hand): the triggers stamp them alike and the books balance."""
    ann, ben, cat = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    seats = {0: ann, 1: ben, 2: cat}
    events = [
        {"kind": "ante", "seat": 0, "amount": 25},
        {"kind": "ante", "seat": 1, "amount": 25},
        {"kind": "bet", "seat": 1, "amount": 40},
        {"kind": "ante", "seat": 2, "amount": 25},
        {"kind": "award", "seat": 0, "amount": 60},
        {"kind": "award", "seat": 0, "amount": 55},
    ]
    first = make_hand(table, [ann, ben, cat])
    before = set(Account.objects.values_list("pk", flat=True))
    made_first = ledger_post_hand_events(hand=first, events=events, seat_users=seats, created_by=ann)
    assert set(Account.objects.values_list("pk", flat=True)) > before  # the accounts were made on the way
    second = make_hand(table, [ann, ben, cat], finished=False)
    with CaptureQueriesContext(connection) as ctx:
        at_once = ledger_post_hand_events(hand=second, events=events, seat_users=seats, created_by=ann)
    assert len(ctx.captured_queries) == 1
    assert [e.pk for e in at_once] == sorted(e.pk for e in at_once)
    assert _written(at_once) == _written(made_first)
    assert [e.memo.replace(" 2 ", " 1 ") for e in at_once] == [e.memo for e in made_first]
    assert at_once[2].memo == f"Bet, seat 1, hand 2 at {table.name}"
    accounts = {a.user_id: a.pk for a in Account.objects.filter(club=club_setup.club)}
    assert [[(p["account_id"], p["amount"]) for p in postings] for _, postings in _written(at_once)] == [
        [(accounts[ann.pk], -25), (accounts[None], 25)],
        [(accounts[ben.pk], -25), (accounts[None], 25)],
        [(accounts[ben.pk], -40), (accounts[None], 40)],
        [(accounts[cat.pk], -25), (accounts[None], 25)],
        [(accounts[ann.pk], 60), (accounts[None], -60)],
        [(accounts[ann.pk], 55), (accounts[None], -55)],
    ]
    assert balance_of(club=club_setup.club, user=ann) == 2 * (-25 + 60 + 55)
    assert balance_of(club=club_setup.club, user=ben) == 2 * (-25 - 40)
    assert account_for_table_pot(table=table).balance == 0
    assert_books_consistent()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the commit's checks: each entry balances, two postings


def test_several_chip_events_write_nothing_when_an_account_is_missing_until_it_is_made(club_setup):
    """The one statement locks and writes nothing unless every account is there; the events are then posted
    once, after the missing account is made (no entry twice)."""
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben], finished=False)
    ledger_post_hand_events(
        hand=hand, events=[{"kind": "ante", "seat": 0, "amount": 25}], seat_users={0: ann}, created_by=None
    )
    entries = ledger_post_hand_events(
        hand=hand,
        events=[{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}],
        seat_users={0: ann, 1: ben},
        created_by=None,
    )
    assert JournalEntry.objects.filter(hand=hand).count() == 3 == len(entries) + 1
    assert balance_of(club=club_setup.club, user=ben) == -25 and account_for_table_pot(table=table).balance == 75
    assert_books_consistent()


def test_a_hand_result_is_posted_with_the_next_hand_antes_in_one_statement(club_setup):
    """``first``: the result of the hand before, posted before the new hand's antes in the same statement, each
    entry linked to its own hand and author; hands of another table are refused before anything is written."""
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    seats = {0: ann, 1: ben}
    ledger_post_hand_events(  # the accounts are made
        hand=make_hand(table, [ann, ben]),
        events=[{"kind": "ante", "seat": 0, "amount": 1}, {"kind": "award", "seat": 1, "amount": 1}],
        seat_users=seats,
        created_by=None,
    )
    ended, dealt = make_hand(table, [ann, ben]), make_hand(table, [ann, ben], finished=False)
    result = HandEvents(
        hand=ended, events=[{"kind": "award", "seat": 1, "amount": 1}], seat_users=seats, created_by=ann
    )
    antes = [{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}]
    with CaptureQueriesContext(connection) as ctx:
        entries = ledger_post_hand_events(hand=dealt, events=antes, seat_users=seats, created_by=None, first=result)
    assert len(ctx.captured_queries) == 1
    assert [(e.hand_id, e.kind, e.created_by_id) for e in entries] == [
        (ended.pk, "award", ann.pk),
        (dealt.pk, "ante", None),
        (dealt.pk, "ante", None),
    ]
    assert [e.pk for e in entries] == sorted(e.pk for e in entries)
    assert balance_of(club=club_setup.club, user=ann) == -1 - 25
    assert balance_of(club=club_setup.club, user=ben) == 1 + 1 - 25
    elsewhere = make_hand(make_table(club_setup.club, club_setup.organiser), [ann, ben], finished=False)
    with pytest.raises(LedgerError, match="two tables"):
        ledger_post_hand_events(hand=elsewhere, events=antes, seat_users=seats, created_by=None, first=result)
    assert JournalEntry.objects.filter(hand=elsewhere).count() == 0
    assert_books_consistent()


def test_an_entry_memo_keeps_any_table_name_through_the_one_statement(club_setup):
    """The entries go to the database as a JSON document: a table's name with quotes, backslashes and letters
    beyond ASCII is written as it is."""
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    table.name = 'Chez "Zoë" \\ l\'As ♠'
    table.save(update_fields=["name"])
    seats = {0: ann, 1: ben}
    events = [{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}]
    ledger_post_hand_events(hand=make_hand(table, [ann, ben]), events=events, seat_users=seats, created_by=None)
    hand = make_hand(table, [ann, ben], finished=False)
    with CaptureQueriesContext(connection) as ctx:
        entries = ledger_post_hand_events(hand=hand, events=events, seat_users=seats, created_by=None)
    assert len(ctx.captured_queries) == 1
    memos = list(
        JournalEntry.objects.filter(pk__in=[e.pk for e in entries]).order_by("pk").values_list("memo", flat=True)
    )
    assert memos == [f"Ante, seat {seat}, hand {hand.number} at {table.name}" for seat in (0, 1)]
