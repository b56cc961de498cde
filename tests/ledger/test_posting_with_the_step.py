"""A chip event's entry written in the same statement as its hand's step (ledger/services.py ``ledger_hand_entry``,
kernel/statements.py ``UpdateInsert``): the same rows as when posted on its own, the books' triggers firing, and a
refusal of the books failing the step with it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games.models import Hand, HandAction, Table
from kernel.statements import Insert, Update, UpdateInsert
from ledger.models import Account, JournalEntry, Posting
from ledger.services import balance_of, ledger_hand_entry, ledger_post_hand_events

from .helpers import assert_books_consistent, make_hand, make_table

pytestmark = pytest.mark.django_db

_STEP = UpdateInsert(Update(Hand, ["version"]), Insert(HandAction))


def _step(hand: Hand, user) -> tuple[Hand, HandAction]:
    hand.version += 1
    return hand, HandAction(
        hand=hand, sequence=hand.version, seat=1, user=user, action={"type": "bet"}, events=[], is_timeout=False
    )


def _entry(entry: JournalEntry) -> dict:
    return {f.attname: getattr(entry, f.attname) for f in JournalEntry._meta.concrete_fields if f.attname != "id"}


def _postings(entry: JournalEntry) -> list[dict]:
    left_out = ("id", "entry_id", "seq", "balance_after", "created_at")
    return [
        {f.attname: getattr(p, f.attname) for f in Posting._meta.concrete_fields if f.attname not in left_out}
        for p in Posting.objects.filter(entry=entry).order_by("pk")
    ]


def test_a_chip_event_with_its_step_writes_in_one_statement_what_it_writes_posted_alone(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben], finished=False)
    bet = [{"kind": "bet", "seat": 1, "amount": 40}]
    seat_users = {0: ann, 1: ben}
    # No account yet (ben's first hand, the table's first pot): the step is written, the entry is not, and it is
    # posted after its accounts are made.
    first = ledger_hand_entry(hand=hand, events=bet, seat_users=seat_users, created_by=ben)
    assert first is not None
    with transaction.atomic():
        returned = _STEP.run(*_step(hand, ben), first.carried)
        assert returned is None and not JournalEntry.objects.exists()
        [made] = first.posted(returned)
    for by_itself in (False, True):
        entry = ledger_hand_entry(hand=hand, events=bet, seat_users=seat_users, created_by=ben)
        assert entry is not None
        with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
            if by_itself:
                [ours] = ledger_post_hand_events(hand=hand, events=bet, seat_users=seat_users, created_by=ben)
            else:
                _, row = _step(hand, ben)
                [ours] = entry.posted(_STEP.run(hand, row, entry.carried))
        assert len(ctx.captured_queries) == 1
        if not by_itself:
            assert HandAction.objects.get(pk=row.pk).sequence == hand.version
        stored = JournalEntry.objects.get(pk=ours.pk)
        assert _entry(stored) | {"created_at": None} == _entry(made) | {"created_at": None}
        assert _postings(stored) == _postings(made) and [p["amount"] for p in _postings(stored)] == [-40, 40]
    assert Hand.objects.get(pk=hand.pk).version == 2
    assert balance_of(club=club_setup.club, user=ben) == -120
    assert_books_consistent()


def test_the_books_refusing_the_entry_fail_the_step_with_it(club_setup):
    ann, ben, _ = club_setup.members
    money = make_table(club_setup.club, club_setup.organiser)
    practice = Table.objects.create(
        club=club_setup.club, name="Practice", rule_version=money.rule_version, created_by=ann, practice=True
    )
    hand = make_hand(practice, [ann, ben], finished=False)
    bet = [{"kind": "bet", "seat": 1, "amount": 40}]
    ledger_post_hand_events(hand=make_hand(money, [ann, ben]), events=bet, seat_users={0: ann, 1: ben}, created_by=None)
    Account.objects.create(club=club_setup.club, kind=Account.Kind.TABLE_POT, table=practice)  # both accounts there
    # As if the site took the practice table for a money table: PostgreSQL's own guard (migration 0005) refuses the
    # entry, and the hand's update and its log row, sent with it, are not written either.
    hand.table.practice = False
    entry = ledger_hand_entry(hand=hand, events=bet, seat_users={0: ann, 1: ben}, created_by=ben)
    assert entry is not None
    before = JournalEntry.objects.count()
    with pytest.raises(IntegrityError, match="practice never touches the books"), transaction.atomic():
        _STEP.run(*_step(hand, ben), entry.carried)
    assert Hand.objects.get(pk=hand.pk).version == 0
    assert not HandAction.objects.filter(hand=hand).exists()
    assert JournalEntry.objects.count() == before
    assert_books_consistent()
