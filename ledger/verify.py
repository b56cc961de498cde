"""The checks behind `manage.py ledger_verify`: every sum recomputed from the postings."""

from __future__ import annotations

from django.db import connection


def ledger_problems(*, club_id: int | None = None) -> tuple[list[str], str]:
    """Return (a line per difference found, a summary). Empty list: the books are sound."""
    where_p = "WHERE p.club_id = %(club)s" if club_id is not None else ""
    where_a = "WHERE a.club_id = %(club)s" if club_id is not None else ""
    params = {"club": club_id}
    problems: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*), coalesce(sum(amount), 0) FROM ledger_posting p {where_p}", params)  # noqa: S608
        postings, total = cursor.fetchone()
        if total != 0:
            problems.append(f"All postings sum to {total} cents, not 0.")
        cursor.execute(
            f"""
            SELECT p.entry_id, sum(p.amount), count(*) FROM ledger_posting p {where_p}
             GROUP BY p.entry_id HAVING sum(p.amount) <> 0 OR count(*) < 2 ORDER BY p.entry_id""",  # noqa: S608
            params,
        )
        for entry_id, amount, count in cursor.fetchall():
            problems.append(f"Entry #{entry_id}: its {count} posting(s) sum to {amount} cents, not 0.")
        where_e = "AND e.club_id = %(club)s" if club_id is not None else ""
        cursor.execute(
            f"""
            SELECT e.id FROM ledger_journalentry e
             WHERE NOT EXISTS (SELECT 1 FROM ledger_posting p WHERE p.entry_id = e.id) {where_e}
             ORDER BY e.id""",  # noqa: S608
            params,
        )
        for (entry_id,) in cursor.fetchall():
            problems.append(f"Entry #{entry_id} has no postings.")
        cursor.execute(
            f"""
            SELECT a.id, a.kind, coalesce(u.username, 'table ' || a.table_id::text), a.balance,
                   coalesce(s.total, 0), a.last_seq, coalesce(s.n, 0)
              FROM ledger_account a
              LEFT JOIN accounts_user u ON u.id = a.user_id
              LEFT JOIN (SELECT account_id, sum(amount) AS total, count(*) AS n
                           FROM ledger_posting GROUP BY account_id) s ON s.account_id = a.id
              {where_a}
             ORDER BY a.id""",  # noqa: S608
            params,
        )
        accounts = 0
        for account_id, kind, owner, balance, recomputed, last_seq, count in cursor.fetchall():
            accounts += 1
            if balance != recomputed:
                problems.append(
                    f"Account #{account_id} ({kind} {owner}): balance {balance} but its postings sum "
                    f"to {recomputed} (difference {balance - recomputed} cents)."
                )
            if last_seq != count:
                problems.append(f"Account #{account_id} ({kind} {owner}): {count} postings but sequence {last_seq}.")
        cursor.execute(
            f"""
            SELECT id, account_id, seq, balance_after, running FROM (
              SELECT p.id, p.account_id, p.seq, p.balance_after,
                     sum(p.amount) OVER (PARTITION BY p.account_id ORDER BY p.seq) AS running
                FROM ledger_posting p {where_p}) s
             WHERE balance_after <> running ORDER BY account_id, seq LIMIT 100""",  # noqa: S608
            params,
        )
        for posting_id, account_id, seq, after, running in cursor.fetchall():
            problems.append(
                f"Posting #{posting_id} (account #{account_id}, line {seq}): running balance {after} "
                f"but the postings up to it sum to {running}."
            )
    problems += pot_problems(club_id=club_id)
    summary = f"{accounts} accounts, {postings} postings"
    return problems, summary


def pot_problems(*, club_id: int | None = None) -> list[str]:
    """Where no hand is being played, each table's pot account must hold exactly the table's
    carry_pot: what the next deal carries in is what the books hold."""
    where = "AND t.club_id = %(club)s" if club_id is not None else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT t.id, t.carry_pot, coalesce(a.balance, 0)
              FROM games_table t
              LEFT JOIN ledger_account a ON a.table_id = t.id AND a.kind = 'table_pot'
             WHERE NOT EXISTS (SELECT 1 FROM games_hand h WHERE h.table_id = t.id AND h.finished_at IS NULL)
               AND t.carry_pot <> coalesce(a.balance, 0) {where}
             ORDER BY t.id""",  # noqa: S608
            {"club": club_id},
        )
        return [
            f"Table #{table_id}: carries {carry} cents to its next hand but its pot account holds {balance}."
            for table_id, carry, balance in cursor.fetchall()
        ]
