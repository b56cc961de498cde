"""Emptying the tables after a transactional test with DELETE, and TRUNCATE only where DELETE may not go.

Django empties every table with one TRUNCATE. PostgreSQL gives each truncated table, TOAST table and index a
new file and removes the old ones at commit: with about fifty tables that took 0.3 s on a quiet machine and
1.5 to 3 s on a loaded one, after every transactional test (and there are some hundreds). A DELETE of a table
that is empty or holds a test's few rows costs about a millisecond, so this flush deletes. TRUNCATE remains
for the tables whose triggers act on a DELETE (the ledger's insert-only books refuse one), when they hold
rows, and for a table holding more than BIG rows (deleting a test's 30,000 imported members took 28 s, checking
every foreign key a row; TRUNCATE takes the same fraction of a second whatever a table holds), together with
every table that refers to them (TRUNCATE requires it). The foreign keys the migrations make are deferrable, so
the deletes run in any order; if one is not, or anything else fails, the caller truncates everything as Django
does. The tables end as migrated either way; sequences are not reset (neither does Django's flush unless a test
asks, and then this module steps aside).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import psycopg
from psycopg import sql

# Rows the migrations' post_migrate makes, and Django's flush makes again after every flush: kept, so that post_migrate
# finds them all (two reads an app instead of seventy statements a flush, 1.8 s on a loaded machine). A test that
# removed one gets it back from that same post_migrate; none adds its own.
MIGRATED_ROWS = frozenset({"django_content_type", "auth_permission"})
BIG = 1000  # rows above which a table is truncated rather than deleted from
_TRUNCATE = re.compile(r'TRUNCATE ((?:"[a-z0-9_]+"(?:, )?)+);')


class Schema:
    """The foreign keys and the tables with triggers on DELETE, read once a process (every test database of a
    run is migrated alike)."""

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self.referrers: dict[str, set[str]] = defaultdict(set)
        for referrer, referred in cur.execute(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'"
        ).fetchall():
            self.referrers[referred].add(referrer)
        self.deleting_triggers = {
            row[0]
            for row in cur.execute(
                "SELECT DISTINCT tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal AND tgtype & 8 <> 0"
            ).fetchall()
        }

    def with_referrers(self, tables: set[str]) -> set[str]:
        closure, todo = set(tables), list(tables)
        while todo:
            for referrer in self.referrers[todo.pop()] - closure:
                closure.add(referrer)
                todo.append(referrer)
        return closure


_schema: Schema | None = None


def tables_of(sql_list: list[str]) -> list[str] | None:
    """The tables of Django's flush, when it is the one plain TRUNCATE (no RESTART IDENTITY, no CASCADE)."""
    match = _TRUNCATE.fullmatch(sql_list[0].strip()) if len(sql_list) == 1 else None
    return [name.strip('"') for name in match.group(1).split(", ")] if match else None


def empty(cur: psycopg.Cursor[Any], tables: list[str]) -> None:
    """Empty `tables` in the current transaction: DELETE, and TRUNCATE where a trigger guards the rows."""
    global _schema
    if _schema is None:
        _schema = Schema(cur)
    guarded = _schema.deleting_triggers & set(tables)
    # A guarded table with any row, or any table with more than BIG (each probe reads at most BIG + 1 rows).
    probes = [
        sql.SQL("SELECT {} WHERE EXISTS (SELECT FROM {} OFFSET {})").format(
            sql.Literal(t), sql.Identifier(t), sql.Literal(0 if t in guarded else BIG)
        )
        for t in sorted(set(tables) - MIGRATED_ROWS)
    ]
    filled = {row[0] for row in cur.execute(sql.SQL(" UNION ALL ").join(probes)).fetchall()} if probes else set()
    truncated = _schema.with_referrers(filled) if filled else set()
    cur.execute("SET CONSTRAINTS ALL DEFERRED")
    if truncated:
        cur.execute(sql.SQL("TRUNCATE {}").format(sql.SQL(", ").join(map(sql.Identifier, sorted(truncated)))))
    deleted = [t for t in tables if t not in truncated | _schema.deleting_triggers | MIGRATED_ROWS]
    if deleted:
        cur.execute(sql.SQL(" ").join(sql.SQL("DELETE FROM {};").format(sql.Identifier(t)) for t in deleted))
