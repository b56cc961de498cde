"""The books hold against the web's own database role (these tests connect as it, as the site does), each attack
committed for real so that the checks PostgreSQL defers to the commit run (ledger migrations 0002 and 0007): an
entry that does not balance, an entry with one posting or none, postings added to an entry of an earlier
transaction (even balanced ones: an old entry's lines never change), a posting added after the commit's checks
were run early (``SET CONSTRAINTS ... IMMEDIATE``), a posting to an entry that is not there, a posting sent with
another club's or a missing table's ids (it is given its entry's: ledger 0008 checks those keys on the entry
only)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from ledger.models import Account, JournalEntry, Posting
from ledger.services import ruling_adjust
from tests.ledger.helpers import books_snapshot, make_table
from tests.security.web_role import refused_together

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def old_entry(club_setup) -> JournalEntry:
    """A committed adjustment of 500 cents from Ann to Ben: an entry of an earlier transaction, two postings."""
    ann, ben, _ = club_setup.members
    ruling = ruling_adjust(
        club=club_setup.club,
        from_user=ann,
        to_user=ben,
        amount=500,
        reason="Chips miscounted",
        ruled_by=club_setup.organiser,
    )
    return ruling.entries.get()


def _accounts(entry: JournalEntry) -> list[int]:
    return list(Posting.objects.filter(entry=entry).order_by("pk").values_list("account_id", flat=True))


def _new_entry(club_id: int) -> tuple[str, list[object]]:
    return (
        "INSERT INTO ledger_journalentry (club_id, kind, memo, created_at, game) "
        "VALUES (%s, 'adjustment', 'forged', now(), '')",
        [club_id],
    )


def _posting(account_id: int, amount: int, entry_id: int | None = None) -> tuple[str, list[object]]:
    """A posting to ``entry_id``, or to the entry this transaction made last."""
    entry = "%s" if entry_id is not None else "(SELECT max(id) FROM ledger_journalentry)"
    params: list[object] = [entry_id] if entry_id is not None else []
    return (
        "INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game) "  # noqa: S608
        f"VALUES ({entry}, %s, %s, 0, 0, '', '')",
        [*params, account_id, amount],
    )


def test_an_entry_that_does_not_balance_is_refused_at_commit(club_setup, old_entry) -> None:
    ann, ben = _accounts(old_entry)
    before = books_snapshot()
    message = refused_together(_new_entry(club_setup.club.pk), _posting(ann, 500), _posting(ben, -499))
    assert "does not balance" in message
    assert books_snapshot() == before


def test_an_entry_with_one_posting_or_none_is_refused_at_commit(club_setup, old_entry) -> None:
    ann, _ben = _accounts(old_entry)
    before = books_snapshot()
    message = refused_together(_new_entry(club_setup.club.pk), _posting(ann, 500))
    assert "does not balance" in message or "at least two postings" in message
    assert "at least two postings" in refused_together(_new_entry(club_setup.club.pk))
    assert books_snapshot() == before


@pytest.mark.parametrize("amounts", [(300,), (300, -300), (300, -100, -200)])
def test_postings_added_to_an_entry_of_an_earlier_transaction_are_refused(old_entry, amounts) -> None:
    """Balanced or not: a committed entry's lines are its lines for good (a correction is a reversing entry)."""
    ann, ben = _accounts(old_entry)
    before = books_snapshot()
    targets = [ben, ann, ann]
    message = refused_together(*(_posting(targets[i], amount, old_entry.pk) for i, amount in enumerate(amounts)))
    assert "made in another transaction" in message
    assert books_snapshot() == before
    assert Posting.objects.filter(entry=old_entry).count() == 2


def test_a_posting_after_the_checks_were_run_early_is_still_checked(club_setup, old_entry) -> None:
    """The web's role may run the commit's checks when it likes (``SET CONSTRAINTS ALL IMMEDIATE``) and defer them
    again; a posting it adds afterwards to the entry just checked is checked at the commit all the same."""
    ann, ben = _accounts(old_entry)
    before = books_snapshot()
    message = refused_together(
        _new_entry(club_setup.club.pk),
        _posting(ann, 500),
        _posting(ben, -500),
        ("SET CONSTRAINTS ALL IMMEDIATE", []),
        ("SET CONSTRAINTS ALL DEFERRED", []),
        _posting(ann, 700),
    )
    assert "does not balance" in message
    assert books_snapshot() == before


def test_a_posting_to_a_missing_entry_is_refused(old_entry) -> None:
    ann, _ben = _accounts(old_entry)
    assert "missing journal entry" in refused_together(_posting(ann, 5, old_entry.pk + 1000))


def test_the_site_still_posts_an_entry_and_its_postings_in_one_transaction(club_setup, old_entry) -> None:
    """What the guards let through: an entry made and posted in the same transaction, balanced."""
    ann, ben = _accounts(old_entry)
    with transaction.atomic(), connection.cursor() as cursor:
        for sql, params in (_new_entry(club_setup.club.pk), _posting(ann, 250), _posting(ben, -250)):
            cursor.execute(sql, params)
    assert Account.objects.get(pk=ann).balance == -500 + 250
    assert JournalEntry.objects.count() == 2


def test_a_posting_gets_its_entrys_club_and_table_whatever_is_sent(club_setup, old_entry) -> None:
    """The club and the table a posting is filed under are its entry's (the entry's keys are checked at the
    commit; the posting's are not checked again): another club's id and a table that is not there are not kept."""
    ann, ben = _accounts(old_entry)
    table = make_table(club_setup.club, club_setup.organiser)
    other_club = club_setup.outsider.memberships.get().club_id
    forged = (
        "INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game, club_id, table_id) "
        "VALUES ((SELECT max(id) FROM ledger_journalentry), %s, %s, 0, 0, '', '', %s, %s)"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_journalentry (club_id, kind, memo, created_at, game, table_id) "
            "VALUES (%s, 'adjustment', 'forged', now(), '', %s)",
            [club_setup.club.pk, table.pk],
        )
        cursor.execute(forged, [ann, 300, other_club, 10**9])
        cursor.execute(forged, [ben, -300, other_club, None])
    entry = JournalEntry.objects.latest("pk")
    filed = set(Posting.objects.filter(entry=entry).values_list("club_id", "table_id"))
    assert filed == {(club_setup.club.pk, table.pk)}
