"""CSV exports streamed by PostgreSQL's COPY: the same cells, byte for byte, as Python's csv module
writes from the model instances, including awkward text and formula-looking cells."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from accounts.models import User
from games.models import Game, Table
from ledger import exports, services
from ledger.models import Account, Posting
from ledger.selectors import StatementFilter, journal_rows, statement_rows
from ledger.services import ledger_post_hand_events, ruling_adjust

from .helpers import make_hand, make_table

pytestmark = pytest.mark.django_db

AWKWARD = [
    '=HYPERLINK("http://x")',
    "+1",
    "-2 chips",
    "@sum",
    "\tstarts with a tab",
    'a, b and "c"',
    "two\nlines",
    "carriage\r\nreturn",
    "plain words",
    "ünïcödé ♠♥",
    "trailing space ",
]


def _formula_safe(text: str) -> str:
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text


def _statement_cells(p: Posting) -> list[str]:
    entry = p.entry
    return [
        p.created_at.isoformat() if p.created_at else "",
        str(entry.pk),
        p.kind,
        _formula_safe(entry.memo),
        _formula_safe(entry.table.name) if entry.table else "",
        p.game,
        str(entry.hand_id or ""),
        services.format_cents(p.amount, grouping=False),
        services.format_cents(p.balance_after, grouping=False),
        str(entry.ruling_id or ""),
    ]


def _python_csv(header: list[str], rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


@pytest.fixture
def awkward_books(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, Game.PILES)
    Table.objects.filter(pk=table.pk).update(name="=cmd|' /C calc'!A0")
    table.refresh_from_db()
    for i in range(30):
        hand = make_hand(table, [ann, ben])
        ledger_post_hand_events(
            hand=hand,
            seat_users={0: ann, 1: ben},
            created_by=None,
            events=[
                {"kind": "ante", "seat": 0, "amount": 25 + i},
                {"kind": "ante", "seat": 1, "amount": 25},
                {"kind": "award", "seat": i % 2, "amount": 50 + i},
            ],
        )
    for i, reason in enumerate(AWKWARD):
        ruling_adjust(
            club=club_setup.club,
            from_user=ben,
            to_user=ann,
            amount=1 + 997 * i,
            reason=reason,
            ruled_by=club_setup.organiser,
        )
    ruling_adjust(
        club=club_setup.club,
        from_user=ann,
        to_user=ben,
        amount=123456,
        reason="back again",
        ruled_by=club_setup.organiser,
    )
    return club_setup, table


def test_statement_copy_matches_python_csv_byte_for_byte(awkward_books):
    setup, _ = awkward_books
    account = Account.objects.get(club=setup.club, user=setup.members[0])
    for flt in (StatementFilter(), StatementFilter(game="piles"), StatementFilter(kind="adjustment")):
        expected = _python_csv(
            exports.STATEMENT_HEADER, [_statement_cells(p) for p in statement_rows(account=account, flt=flt)]
        )
        got = b"".join(exports.statement_csv(account=account, flt=flt))
        assert got == expected
    rows = list(
        csv.DictReader(io.StringIO(b"".join(exports.statement_csv(account=account, flt=StatementFilter())).decode()))
    )
    assert any(r["memo"].endswith("two\nlines") for r in rows) and any('a, b and "c"' in r["memo"] for r in rows)
    assert {r["table"] for r in rows if r["table"]} == {"'=cmd|' /C calc'!A0"}


def test_journal_copy_matches_python_csv_byte_for_byte(awkward_books):
    setup, _ = awkward_books
    User.objects.filter(pk=setup.members[1].pk).update(username="@SUM(A1)")

    def cells(p: Posting) -> list[str]:
        owner = p.account.user.username if p.account.user else f"pot:{p.account.table.name if p.account.table else ''}"
        return [_formula_safe(owner), *_statement_cells(p)]

    expected = _python_csv(
        exports.JOURNAL_HEADER, [cells(p) for p in journal_rows(club=setup.club, flt=StatementFilter())]
    )
    got = b"".join(exports.journal_csv(club=setup.club, flt=StatementFilter()))
    assert got == expected and got.count(b"\n") > 100
    assert b"\n'@SUM(A1)," in got


def test_a_member_without_an_account_gets_just_the_header(club_setup, client_for):
    cat = club_setup.members[2]
    response = client_for(cat).get(reverse("ledger:statement_export", args=[club_setup.club.pk, cat.pk]))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (",".join(exports.STATEMENT_HEADER) + "\n").encode()


def test_the_journal_export_page_streams_the_copy(awkward_books, client_for):
    setup, _ = awkward_books
    response = client_for(setup.organiser).get(
        reverse("ledger:journal_export", args=[setup.club.pk]), {"kind": "adjustment"}
    )
    assert response.status_code == 200 and response.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 2 * (len(AWKWARD) + 1) and {r["kind"] for r in rows} == {"adjustment"}


@pytest.mark.parametrize(
    "moment",
    [
        dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 1, 12, 0, 5, 120000, tzinfo=dt.UTC),
        dt.datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC),
        dt.datetime(2026, 6, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=10))),
    ],
)
def test_times_and_amounts_read_as_python_writes_them(moment):
    from django.db import connection

    amounts = [0, 5, -5, 99, 100, -1250, 123456789]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {exports._iso('%s::timestamptz')}, "
            + ", ".join(f"({exports._cents(str(a))})::text" for a in amounts),
            [moment],
        )
        row = cursor.fetchone()
    assert row[0] == moment.astimezone(dt.UTC).isoformat()
    assert list(row[1:]) == [services.format_cents(a, grouping=False) for a in amounts]
