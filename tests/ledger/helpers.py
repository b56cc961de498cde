"""Books-level checks and small builders shared by the ledger tests."""

from __future__ import annotations

from typing import Any

from django.db import connection

from accounts.models import Club, User
from games.demo.simulate import simulation_table_create
from games.models import Game, Hand, Table
from ledger.verify import pot_problems


def tamper_as_owner(table: str, sql: str, params: tuple[Any, ...] = ()) -> None:
    """What only the owner of the books could do, and what ledger_verify exists to catch: switch a
    table's guards off, change rows, switch the guards on again (committed; transactional tests only).
    The application role can do none of it (tests/security/test_database_roles.py)."""
    from tests.dbbackend.base import owner_connect

    with owner_connect(connection.settings_dict) as conn:
        conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        conn.execute(sql, params)  # type: ignore[arg-type]
        conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")


def books_snapshot() -> tuple[tuple[object, ...], ...]:
    """Every row of the books (accounts with balances, entries, postings, rulings, settlements)."""
    rows: list[tuple[object, ...]] = []
    with connection.cursor() as cursor:
        for sql in (
            "SELECT id, balance, last_seq FROM ledger_account ORDER BY id",
            "SELECT count(*), max(id) FROM ledger_journalentry",
            "SELECT count(*), max(id), coalesce(sum(amount), 0) FROM ledger_posting",
            "SELECT count(*) FROM ledger_ruling",
            "SELECT id, status FROM ledger_settlement ORDER BY id",
            "SELECT id, voided_at FROM games_hand ORDER BY id",
        ):
            cursor.execute(sql)
            rows.append(tuple(cursor.fetchall()))
    return tuple(rows)


def assert_books_consistent() -> None:
    """All postings sum to zero, each entry sums to zero, each balance equals its postings."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(amount), 0) FROM ledger_posting")
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT entry_id, sum(amount) FROM ledger_posting GROUP BY entry_id HAVING sum(amount) <> 0")
        assert cursor.fetchall() == []
        cursor.execute("""
            SELECT a.id, a.balance, coalesce(sum(p.amount), 0), a.last_seq, count(p.id)
              FROM ledger_account a LEFT JOIN ledger_posting p ON p.account_id = a.id
             GROUP BY a.id HAVING a.balance <> coalesce(sum(p.amount), 0) OR a.last_seq <> count(p.id)""")
        assert cursor.fetchall() == []
        # The stored running balance is the sum of the account's postings up to that line.
        cursor.execute("""
            SELECT id FROM (
              SELECT id, balance_after, sum(amount) OVER (PARTITION BY account_id ORDER BY seq) AS running
                FROM ledger_posting) s WHERE balance_after <> running""")
        assert cursor.fetchall() == []


def make_table(club: Club, by: User, game: str = Game.PIRANHA) -> Table:
    return simulation_table_create(club=club, game=game, created_by=by)


def make_hand(table: Table, players: list[User], *, number: int | None = None, finished: bool = True) -> Hand:
    from django.utils import timezone

    number = number or (table.hands.count() + 1)
    return Hand.objects.create(
        table=table,
        number=number,
        rule_version=table.rule_version,
        players={str(i): u.pk for i, u in enumerate(players)},
        button=0,
        deck=[],
        salt="s",
        commitment="c",
        state={},
        finished_at=timezone.now() if finished else None,
    )


def assert_pots_match_tables() -> None:
    """Where no hand is being played, each table's pot account holds exactly its carry_pot."""
    assert pot_problems() == []
