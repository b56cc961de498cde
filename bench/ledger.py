"""Ledger benchmark: one club, one million postings over five years of play.

    .venv/bin/python bench/ledger.py            # build (once) and measure
    .venv/bin/python bench/ledger.py --rebuild  # drop and rebuild the data first
    .venv/bin/python bench/ledger.py --exports  # only the CSV exports

Runs against its own database `bench_ledger` on the embedded PostgreSQL. The
data goes in through the real tables and every trigger that guards the books
(balance stamping, insert-only, balanced-entry check at commit), in batches of
INSERT ... SELECT generate_series. Then, in one run, each read is measured
against its naive version on the same data, and the ratios are printed:

- balance sheet: maintained balances vs SUM over postings;
- a busy member's statement, first, hundredth and oldest page: keyset on
  (account, seq) with the stored running balance vs OFFSET (with the stored
  balance, and the fully naive window-function running balance);
- CSV export of 100k and 1M rows: PostgreSQL's COPY streamed (the site's path),
  the previous path (keyset chunks of model instances through Python's csv
  module) and everything read into memory first (peak memory of a fresh
  process each); the target is at least 100,000 rows/s with flat memory.

Not a timed test. Database time is EXPLAIN ANALYZE's execution time; wall time
includes Python and the round trip.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.django_setup import setup_bench_django, timed  # noqa: E402

DB_NAME = "bench_ledger"
POSTINGS = int(os.environ.get("BENCH_POSTINGS", "1000000"))
MEMBERS = 10
TABLES = 4
YEARS = 5
BATCH_ENTRIES = 10_000
PAGE = 50


def setup_django() -> None:
    setup_bench_django(DB_NAME, rebuild="--rebuild" in sys.argv and os.environ.get("BENCH_CHILD") is None)


def build() -> dict[str, Any]:
    """Create the club, members and tables, then load the postings through the guarded tables."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from accounts.models import Club, Membership, User
    from games.demo.simulate import simulation_table_create
    from games.models import Game
    from ledger.models import Account
    from ledger.services import account_for_table_pot, member_accounts

    call_command("migrate", verbosity=0)
    club = Club.objects.filter(name="Bench club").first()
    if club is not None and Account.objects.filter(club=club).exists():
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM ledger_posting")
            if cursor.fetchone()[0] >= POSTINGS:
                return {"club_id": club.pk, "built": False}
        raise SystemExit("bench_ledger holds a partial build: run with --rebuild")
    with transaction.atomic():
        club = Club.objects.create(name="Bench club", currency="USD")
        users = [User.objects.create_user(username=f"bench{i}", display_name=f"Bench {i}") for i in range(MEMBERS)]
        Membership.objects.bulk_create(
            Membership(club=club, user=u, role=Membership.Role.ORGANISER if i == 0 else Membership.Role.MEMBER)
            for i, u in enumerate(users)
        )
        tables = [
            simulation_table_create(
                club=club, game=Game.PIRANHA if t % 2 == 0 else Game.PILES, created_by=users[0], name=f"Table {t}"
            )
            for t in range(TABLES)
        ]
        members = member_accounts(club=club, users=users)
        for table in tables:
            account_for_table_pot(table=table)
    member_ids = [members[u.pk].pk for u in users]
    table_ids = [t.pk for t in tables]
    games = ["piranha" if t % 2 == 0 else "piles" for t in range(TABLES)]
    entries = POSTINGS // 2
    start = time.perf_counter()
    with connection.cursor() as cursor:
        for first in range(0, entries, BATCH_ENTRIES):
            last = min(first + BATCH_ENTRIES, entries) - 1
            with transaction.atomic():
                # Entries: five years in order; kinds in play proportions; one table each.
                cursor.execute(
                    """
                    INSERT INTO ledger_journalentry (club_id, kind, memo, created_at, table_id, game)
                    SELECT %(club)s,
                           (ARRAY['ante','ante','ante','bet','bet','bet','bet','award','award','match_payment'])
                               [1 + (g * 7) %% 10],
                           'bench ' || g,
                           now() - make_interval(secs => (%(n)s - g) * %(span)s / %(n)s),
                           (%(tables)s::bigint[])[1 + g %% %(nt)s],
                           (%(games)s::text[])[1 + g %% %(nt)s]
                      FROM generate_series(%(first)s::int, %(last)s::int) AS g ORDER BY g""",
                    {
                        "club": club.pk,
                        "n": entries,
                        "span": YEARS * 365 * 86400.0,
                        "tables": table_ids,
                        "games": games,
                        "nt": TABLES,
                        "first": first,
                        "last": last,
                    },
                )
                # Two postings each: member <-> table pot. Member 0 is the busy one (30%).
                cursor.execute(
                    """
                    INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game)
                    SELECT e.id, x.account_id, x.amount, 0, 0, '', ''
                      FROM (SELECT e.id, e.kind, pot.id AS pot_id,
                                   (%(members)s::bigint[])[CASE WHEN (e.id * 7919) %% 100 < 30 THEN 1
                                                               ELSE 2 + (e.id * 104729) %% %(others)s END] AS member_id,
                                   25 * (1 + (e.id * 31) %% 8) * CASE WHEN e.kind = 'award' THEN 1 ELSE -1 END AS amt
                              FROM ledger_journalentry e
                              JOIN ledger_account pot ON pot.table_id = e.table_id AND pot.kind = 'table_pot'
                             WHERE e.club_id = %(club)s AND e.memo LIKE 'bench %%'
                               AND e.id > coalesce((SELECT max(entry_id) FROM ledger_posting), 0)) e
                     CROSS JOIN LATERAL (VALUES (e.member_id, e.amt), (e.pot_id, -e.amt)) AS x(account_id, amount)
                     ORDER BY e.id, x.account_id""",
                    {"club": club.pk, "members": member_ids, "others": MEMBERS - 1},
                )
            done = (last + 1) * 2
            if done % 200_000 == 0 or last + 1 == entries:
                rate = done / (time.perf_counter() - start)
                print(f"  loaded {done:,} postings ({rate:,.0f}/s)", flush=True)
        for table in ("ledger_posting", "ledger_account", "ledger_journalentry"):
            cursor.execute(f"VACUUM (ANALYZE) {table}")
    return {"club_id": club.pk, "built": True, "load_seconds": time.perf_counter() - start}


def explain_ms(sql: str, params: Any) -> float:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
        if isinstance(plan, str):
            plan = json.loads(plan)
        return float(plan[0]["Execution Time"])


def captured_sql(fn: Any) -> list[tuple[str, Any]]:
    """The SQL (with params) that `fn()` sends: EXPLAIN ANALYZE gives its database time."""
    from django.db import connection

    queries: list[tuple[str, Any]] = []

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        fn()
    return queries


def db_ms(fn: Any, repeat: int = 5) -> float:
    queries = captured_sql(fn)
    return statistics.median(sum(explain_ms(sql, params) for sql, params in queries) for _ in range(repeat))


def measure(club_id: int) -> None:
    from django.db import connection

    from accounts.models import Club, User
    from ledger import selectors
    from ledger.models import Account, Posting

    club = Club.objects.get(pk=club_id)
    busy = Account.objects.get(club=club, user=User.objects.get(username="bench0"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM ledger_posting WHERE club_id = %s", [club.pk])
        total = cursor.fetchone()[0]
    print(f"\nclub {club.pk}: {total:,} postings; busy member: {busy.last_seq:,} postings, balance {busy.balance:,}")
    results: list[tuple[str, float, float, str]] = []
    if "--exports" in sys.argv:  # only the CSV exports
        measure_exports(club.pk)
        return

    # Balance sheet.
    naive_sheet = """
        SELECT m.user_id, coalesce(sum(p.amount), 0) FROM accounts_membership m
          LEFT JOIN ledger_account a ON a.club_id = m.club_id AND a.user_id = m.user_id AND a.kind = 'member'
          LEFT JOIN ledger_posting p ON p.account_id = a.id
         WHERE m.club_id = %s GROUP BY m.user_id"""

    def run_naive_sheet() -> None:
        with connection.cursor() as cursor:
            cursor.execute(naive_sheet, [club.pk])
            cursor.fetchall()

    fast = timed(lambda: selectors.balance_sheet(club=club))
    slow = timed(run_naive_sheet, repeat=3)
    fast_db = db_ms(lambda: selectors.balance_sheet(club=club))
    slow_db = explain_ms(naive_sheet, [club.pk])
    sheet = {r.user.pk: r.balance for r in selectors.balance_sheet(club=club)}
    with connection.cursor() as cursor:
        cursor.execute(naive_sheet, [club.pk])
        assert sheet == {uid: int(s) for uid, s in cursor.fetchall()}, "balance sheet differs from the naive sum"
    results.append(("balance sheet", fast, slow, f"db {fast_db:.2f} ms vs {slow_db:.1f} ms"))

    # Statement pages: first, hundredth, oldest.
    flt = selectors.StatementFilter()
    offset_naive = """
        SELECT * FROM (SELECT p.id, p.amount, p.created_at,
                              sum(p.amount) OVER (ORDER BY p.created_at, p.id) AS running
                         FROM ledger_posting p WHERE p.account_id = %s) s
         ORDER BY created_at DESC, id DESC OFFSET %s LIMIT %s"""
    pages = {"first page": 1, "100th page": 100, "oldest page": (busy.last_seq + PAGE - 1) // PAGE}
    page_db: dict[str, float] = {}
    for label, number in pages.items():
        before = None if number == 1 else busy.last_seq - PAGE * (number - 1) + 1
        offset = PAGE * (number - 1)

        def keyset(before: int | None = before) -> None:
            page = selectors.statement_page(account=busy, flt=flt, before=before)
            assert page.lines, "empty page"

        def by_offset(sql: str, offset: int = offset) -> None:
            with connection.cursor() as cursor:
                cursor.execute(sql, [busy.pk, offset, PAGE])
                cursor.fetchall()

        lines = selectors.statement_page(account=busy, flt=flt, before=before).lines
        with connection.cursor() as cursor:
            cursor.execute(offset_naive, [busy.pk, offset, PAGE])
            naive_rows = cursor.fetchall()
        assert [p.pk for p in lines] == [r[0] for r in naive_rows], f"{label}: keyset and OFFSET differ"
        assert [p.balance_after for p in lines] == [r[3] for r in naive_rows], f"{label}: running balances differ"

        def offset_orm(offset: int = offset) -> None:
            # The same query and joins as the page, paged by OFFSET instead of by key.
            rows = list(
                Posting.objects.filter(account=busy)
                .select_related("entry", "entry__ruling", "entry__table")
                .order_by("-seq")[offset : offset + PAGE]
            )
            assert rows

        fast = timed(keyset)
        fast_db = db_ms(keyset)
        page_db[label] = fast_db
        stored = timed(offset_orm)
        stored_db = db_ms(offset_orm)
        naive_db = explain_ms(offset_naive, [busy.pk, offset, PAGE])
        results.append(
            (
                f"statement {label}",
                fast,
                stored,
                f"db {fast_db:.2f} ms vs OFFSET db {stored_db:.2f} ms ({stored_db / fast_db:,.1f}x); "
                f"naive OFFSET + window running balance: db {naive_db:.0f} ms ({naive_db / fast_db:,.0f}x)",
            )
        )

    print(f"\n{'measure (wall ms)':<24}{'ours':>10}{'baseline':>13}{'ratio':>9}  notes")
    for name, fast, slow, note in results:
        print(f"{name:<24}{fast:>10.2f}{slow:>13.2f}{slow / fast:>8.0f}x  {note}")
    worst = max(page_db.values())
    print(f"\nslowest statement page: {worst:.2f} ms of database time (target < 20 ms)")

    measure_exports(club.pk)


def measure_exports(club_id: int) -> None:
    """CSV export in fresh processes: time and peak memory for 100k and 1M rows, each path."""
    print("\nexport: wall time on this machine now; CPU seconds of this process (client) and of its PostgreSQL")
    print("backend (server); 'rows/s by CPU' = rows / the larger of the two, the rate when each has a core.")
    print(
        f"{'export':<34}{'rows':>10}{'seconds':>9}{'peak RSS MB':>13}{'rows/s':>10}{'client CPU':>12}"
        f"{'server CPU':>12}{'rows/s by CPU':>15}"
    )
    labels = {
        "copy": "COPY streamed (the site)",
        "stream": "keyset chunks + csv module",
        "naive": "naive: all rows in memory first",
    }
    modes = os.environ.get("BENCH_EXPORT_MODES", "copy,stream,naive").split(",")
    for mode in modes:
        for rows in (POSTINGS // 10, POSTINGS):
            out = subprocess.run(
                [sys.executable, __file__, "--export", mode, str(club_id), str(rows)],
                capture_output=True,
                text=True,
                env={**os.environ, "BENCH_CHILD": "1"},
                check=True,
            )
            data = json.loads(out.stdout.strip().splitlines()[-1])
            busiest = max(data["client_cpu"], data["server_cpu"])
            print(
                f"{labels[mode]:<34}"
                f"{data['rows']:>10,}{data['seconds']:>9.1f}{data['peak_mb']:>13.0f}"
                f"{data['rows'] / data['seconds']:>10,.0f}{data['client_cpu']:>12.2f}{data['server_cpu']:>12.2f}"
                f"{data['rows'] / busiest:>15,.0f}"
            )


def export_child(mode: str, club_id: int, rows: int) -> None:
    """Run one export in this fresh process and print its rows, time and peak memory (JSON)."""
    import resource

    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)  # the checkout may have moved on since the build

    from accounts.models import Club
    from ledger import exports, selectors

    club = Club.objects.get(pk=club_id)
    flt = selectors.StatementFilter()
    if rows < POSTINGS:
        with connection.cursor() as cursor:  # the date from which the club has `rows` postings
            cursor.execute(
                "SELECT created_at FROM ledger_posting WHERE club_id = %s ORDER BY id DESC OFFSET %s LIMIT 1",
                [club.pk, rows - 1],
            )
            flt = selectors.StatementFilter(date_from=cursor.fetchone()[0])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    client_before = _cpu_self()
    server_before = _cpu_of_server()
    start = time.perf_counter()
    count = 0
    size = 0
    if mode == "copy":
        for data in exports.journal_csv(club=club, flt=flt):
            size += len(data)
            count += data.count(b"\n")
    elif mode == "stream":
        for chunk in keyset_csv_lines(selectors.journal_rows(club=club, flt=flt)):
            size += len(chunk)
            count += chunk.count("\n")
    else:
        import csv
        import io

        from ledger.models import Posting

        everything = list(
            selectors._filtered(Posting.objects.filter(club=club), flt)
            .select_related("entry", "entry__table", "account__user", "account__table")
            .order_by("-pk")
        )
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(exports.JOURNAL_HEADER)
        for posting in everything:
            writer.writerow(journal_cells(posting))
        text = buffer.getvalue()
        size = len(text)
        count = text.count("\n")
    seconds = time.perf_counter() - start
    client_cpu = _cpu_self() - client_before
    server_cpu = _cpu_of_server() - server_before
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "rows": count - 1,
                "seconds": seconds,
                "peak_mb": peak / 1024,
                "base_mb": base / 1024,
                "bytes": size,
                "client_cpu": client_cpu,
                "server_cpu": server_cpu,
            }
        )
    )


def _cpu_self() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _cpu_of_server() -> float:
    """CPU seconds (user + system) of the whole embedded PostgreSQL, from /proc: the postmaster, its
    live processes (the backend, parallel workers) and those that ended (counted in the postmaster)."""
    postmaster = int((ROOT / ".data" / "pg" / "postmaster.pid").read_text().split()[0])
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        pid = int(stat.parent.name)
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # its own and its reaped children's
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def journal_cells(p: Any) -> list[str]:
    """One journal line built in Python from the model instances (the export's previous path)."""
    from accounts.money import format_cents

    def safe(text: str) -> str:
        return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text

    entry, account = p.entry, p.account
    owner = account.user.username if account.user else f"pot:{account.table.name if account.table else ''}"
    return [
        safe(owner),
        p.created_at.isoformat() if p.created_at else "",
        str(entry.pk),
        p.kind,
        safe(entry.memo),
        safe(entry.table.name) if entry.table else "",
        p.game,
        str(entry.hand_id or ""),
        format_cents(p.amount, grouping=False),
        format_cents(p.balance_after, grouping=False),
        str(entry.ruling_id or ""),
    ]


def keyset_csv_lines(rows: Any, batch: int = 500) -> Any:
    """The previous export path: keyset chunks of postings written by the csv module, 500 lines a chunk."""
    import csv

    from ledger import exports

    class Echo:
        def write(self, value: str) -> str:
            return value

    writer = csv.writer(Echo())
    yield writer.writerow(exports.JOURNAL_HEADER)
    lines: list[str] = []
    for posting in rows:
        lines.append(writer.writerow(journal_cells(posting)))
        if len(lines) >= batch:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)


def main() -> None:
    setup_django()
    if "--export" in sys.argv:
        i = sys.argv.index("--export")
        export_child(sys.argv[i + 1], int(sys.argv[i + 2]), int(sys.argv[i + 3]))
        return
    started = time.perf_counter()
    info = build()
    if info["built"]:
        print(f"built {POSTINGS:,} postings in {info['load_seconds']:.0f} s (through every trigger)")
    measure(info["club_id"])
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
