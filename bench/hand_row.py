"""The hand row's update at every action: how PostgreSQL writes it, and what its indexes and page room cost.

    nice .venv/bin/python bench/hand_row.py                     # measure, then the forms alternated
    nice .venv/bin/python bench/hand_row.py --actions 150 --rounds 4 --round-actions 50
    nice .venv/bin/python bench/hand_row.py --actions 60 --rounds 6 --in-server 3000 --forms index:100,none:100

Uses a database ``bench_hand_row`` on the embedded PostgreSQL (made afresh, dropped at the end). The two tables
of bench/live_parts.py (Piranha with its betting round, Piles) are played through the real services with the
publisher's read after each action (bench/db_statements.py's ``play``). First, after ``--actions`` actions a
table: games_hand's row updates and how many were HOT (no index entry written), its pages and its indexes'
pages read, the hand row's width column by column and what its TOAST table holds, and EXPLAIN (ANALYZE,
BUFFERS, WAL) of the step's UPDATE of the hand in play, once with its deadline moved and once with it kept
(rolled back). Then the forms of games_hand (the deadline index or not, a fillfactor, a
``toast_tuple_target``) in turn, each for
``--round-actions`` actions a table, ``--rounds`` rounds: the step statement's PostgreSQL CPU (its backend's
/proc times, 10 ms ticks summed over the round) and wall time in this process, PostgreSQL's CPU for the whole
action, the HOT share, TOAST chunks and index pages read; then the step's UPDATE alone, ``--update-runs`` runs a
hand in play, each committed (PostgreSQL's CPU, wall time, HOT share; EXPLAIN's WAL and execution time).
``--in-server N`` instead loops the UPDATE N times a hand inside PostgreSQL (a procedure, each run committed, the
state parsed afresh as the step sends it), the forms alternated: PostgreSQL's CPU a run with no client or
protocol in it. Not a timed test: the machine is shared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.db_statements import Recorder, backend_cpu, backend_pid, play  # noqa: E402 - the root is on the path
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402

DB_NAME = "bench_hand_row"
DEADLINE_INDEX = "bench_hand_deadline"  # the form with the index: as migration 0001 made it, under this name


def query(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall()) if cursor.description else []


def hand_stats() -> dict[str, int]:
    """games_hand's counters as PostgreSQL has them now (this backend's pending ones flushed first)."""
    query("SELECT pg_stat_force_next_flush()")
    time.sleep(0.02)
    query("SELECT pg_stat_clear_snapshot()")
    ((upd, hot, heap_read, heap_hit, idx_read, idx_hit, toasted),) = query(
        "SELECT n_tup_upd, n_tup_hot_upd, COALESCE(heap_blks_read, 0), COALESCE(heap_blks_hit, 0), "
        "COALESCE(idx_blks_read, 0), COALESCE(idx_blks_hit, 0), (SELECT n_tup_ins FROM pg_stat_all_tables "
        "WHERE relid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'games_hand'::regclass)) "
        "FROM pg_stat_user_tables JOIN pg_statio_user_tables USING (relid) WHERE relid = 'games_hand'::regclass"
    )
    return {
        "updates": upd,
        "hot": hot,
        "toast chunks": toasted,
        "heap pages": heap_read + heap_hit,
        "index pages": idx_read + idx_hit,
    }


def describe_row() -> None:
    """The hand in play's width column by column, what is TOASTed, and the table's pages."""
    from django.db import connection

    from games.models import Hand

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'games_hand'::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum"
        )
        columns = [row[0] for row in cursor.fetchall()]
    hand = Hand.objects.filter(finished_at__isnull=True).order_by("-pk").first()
    assert hand is not None
    sizes = ", ".join(f'pg_column_size("{c}"), octet_length("{c}"::text)' for c in columns)
    ((*cells, row_size),) = query(
        f"SELECT {sizes}, pg_column_size(h.*) FROM games_hand h WHERE id = %s",  # noqa: S608 - the catalog's names
        [hand.pk],
    )
    print(f"the hand in play (id {hand.pk}, version {hand.version}): {row_size} bytes as a whole-row value")
    for i, column in enumerate(columns):
        stored, text = cells[2 * i], cells[2 * i + 1]
        if stored and stored > 64:
            print(f"  {column:<16} stored {stored:6} bytes (as text {text})")
    ((toast, toast_rows, pages, tuples, fill),) = query(
        "SELECT t.relname, COALESCE(s.n_live_tup, 0), c.relpages, c.reltuples, "
        "COALESCE(array_to_string(c.reloptions, ','), '') FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid "
        "LEFT JOIN pg_stat_all_tables s ON s.relid = t.oid WHERE c.oid = 'games_hand'::regclass"
    )
    query("ANALYZE games_hand")
    ((pages, tuples, toast_pages),) = query(
        "SELECT c.relpages, c.reltuples, (SELECT relpages FROM pg_class WHERE oid = c.reltoastrelid) "
        "FROM pg_class c WHERE c.oid = 'games_hand'::regclass"
    )
    print(
        f"  games_hand: {pages} pages, {tuples:.0f} rows ({tuples / max(pages, 1):.1f} a page); "
        f"its TOAST table {toast}: {toast_pages} pages, {toast_rows} live chunks; options: {fill or 'none'}"
    )
    chunks = query(
        f"SELECT length(chunk_data), count(*) FROM pg_toast.{toast} GROUP BY 1 ORDER BY 2 DESC LIMIT 6"  # noqa: S608
    )
    print(f"  its TOAST chunks (bytes: how many): {', '.join(f'{n}: {c}' for n, c in chunks)}")
    for name, size in query(
        "SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index "
        "WHERE indrelid = 'games_hand'::regclass ORDER BY 1"
    ):
        print(f"  index {name}: {size // 8192} pages")


def explain_step() -> None:
    """EXPLAIN (ANALYZE, BUFFERS, WAL) of the step's UPDATE of the hand in play, rolled back: deadline moved, kept."""
    from django.db import transaction

    from games.models import Hand
    from games.services.hands import _HAND_STEP

    update = _HAND_STEP._update
    for moved in (True, False):
        hand = Hand.objects.filter(finished_at__isnull=True, deadline__isnull=False).order_by("-pk").first()
        assert hand is not None and hand.deadline is not None
        hand.version += 1
        if moved:
            hand.deadline += timedelta(seconds=1)
        with transaction.atomic():
            plan = query(f"EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) {update.sql}", update.params(hand))
            transaction.set_rollback(True)
        print(f"EXPLAIN of the step's UPDATE, deadline {'moved' if moved else 'kept'}:")
        for (line,) in plan:
            print(f"    {line}")


def updates(hands: list[Any], runs: int, pid: int) -> tuple[float, float, float, float, float, float]:
    """The step's UPDATE of each hand in ``hands`` ``runs`` times, each its own transaction, its deadline moved
    a second each time: PostgreSQL's CPU (us a run, commits included), this process's wall time (us a run,
    median), the HOT share and TOAST chunks written a run; then EXPLAIN ANALYZE of it, 50 runs a hand: its WAL bytes (mean) and execution time (us, median)."""
    from django.db import connection, transaction

    from games.services.hands import _HAND_STEP

    update = _HAND_STEP._update
    walls: list[float] = []
    counts = hand_stats()
    server = backend_cpu(pid)
    for _ in range(runs):
        for hand in hands:
            hand.deadline += timedelta(seconds=1)
            params = update.params(hand)
            with transaction.atomic(), connection.cursor() as cursor:
                started = time.perf_counter()
                cursor.execute(update.sql, params)
                walls.append(time.perf_counter() - started)
    spent = backend_cpu(pid) - server
    after = hand_stats()
    hot = (after["hot"] - counts["hot"]) / max(after["updates"] - counts["updates"], 1) * 100
    chunks = (after["toast chunks"] - counts["toast chunks"]) / max(after["updates"] - counts["updates"], 1)
    written, executed = [], []  # pg_stat_wal counts the whole server's (shared): EXPLAIN counts the statement's own
    for _ in range(50):
        for hand in hands:
            hand.deadline += timedelta(seconds=1)
            with transaction.atomic():
                ((plan,),) = query(f"EXPLAIN (ANALYZE, WAL, FORMAT JSON) {update.sql}", update.params(hand))
            written.append(plan[0]["Plan"].get("WAL Bytes", 0))
            executed.append(plan[0]["Execution Time"] * 1000)
    return (
        hot,
        chunks,
        spent / (runs * len(hands)) * 1e6,
        statistics.median(walls) * 1e6,
        statistics.mean(written),
        statistics.median(executed),
    )


LOOP_SQL = """
CREATE OR REPLACE PROCEDURE bench_hand_updates(hand bigint, n int) LANGUAGE plpgsql AS $$
DECLARE
    s text;
BEGIN
    SELECT state::text INTO s FROM games_hand WHERE id = hand;
    FOR i IN 1..n LOOP
        -- as the step: a state parsed afresh (and compressed, TOASTed), the deadline moved, each committed
        UPDATE games_hand SET version = version, state = s::jsonb, deadline = deadline + interval '1 second',
            clocks = clocks, private_marks = private_marks, timeouts = timeouts, finished_at = NULL WHERE id = hand;
        COMMIT;
    END LOOP;
END $$;
"""


def in_server(forms: list[tuple[bool, int, int]], rounds: int, runs: int, pid: int) -> None:
    """The step's UPDATE looped inside PostgreSQL (a procedure, each committed; no client, no protocol), the
    forms alternated: PostgreSQL's CPU a run, over ``runs`` runs a hand in play, ``rounds`` rounds."""
    from games.models import Hand

    query(LOOP_SQL)
    found: dict[tuple[bool, int, int], list[float]] = defaultdict(list)
    for _ in range(rounds):
        for form in forms:
            set_form(*form)
            hands = list(Hand.objects.filter(finished_at__isnull=True, deadline__isnull=False).values_list("pk"))
            counts = hand_stats()
            server = backend_cpu(pid)
            for (pk,) in hands:
                query("CALL bench_hand_updates(%s, %s)", [pk, runs])
            spent = backend_cpu(pid) - server
            after = hand_stats()
            hot = (after["hot"] - counts["hot"]) / max(after["updates"] - counts["updates"], 1) * 100
            found[form].append(spent / (runs * len(hands)) * 1e6)
            print(f"    {form}: {found[form][-1]:.0f} us a run, {hot:.0f}% HOT")
    for (index, fill, target), rows in found.items():
        label = f"{'index' if index else 'no index'} ff {fill} toast {target or 'default'}"
        print(f"  in PostgreSQL, {label}: {statistics.median(rows):.0f} us of CPU an UPDATE (median of {rounds})")


def set_form(deadline_index: bool, fillfactor: int, toast_target: int) -> None:
    """games_hand with the deadline index or not, at ``fillfactor`` and ``toast_tuple_target`` (0: PostgreSQL's
    default, about 2 kB); rewritten (VACUUM FULL) either way."""
    for (name,) in query(
        "SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
        "AND a.attnum = i.indkey[0] WHERE i.indrelid = 'games_hand'::regclass AND a.attname = 'deadline' "
        "AND i.indnatts = 1"
    ):
        query(f'DROP INDEX "{name}"')
    if deadline_index:
        query(f'CREATE INDEX "{DEADLINE_INDEX}" ON games_hand (deadline)')
    query(f"ALTER TABLE games_hand SET (fillfactor = {fillfactor})")
    if toast_target:
        query(f"ALTER TABLE games_hand SET (toast_tuple_target = {toast_target})")
    else:
        query("ALTER TABLE games_hand RESET (toast_tuple_target)")
    query("VACUUM FULL games_hand")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=150, help="actions a table before the description")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of the forms alternated")
    parser.add_argument("--round-actions", type=int, default=60, help="actions a table, a form, a round")
    parser.add_argument("--update-runs", type=int, default=200, help="the UPDATE alone: runs a hand, a form, a round")
    parser.add_argument(
        "--in-server", type=int, metavar="N", help="only the UPDATE looped in PostgreSQL, N runs a hand, a round"
    )
    parser.add_argument(
        "--forms",
        default="index:100,none:100,none:70,none:100:2600,none:70:2600",
        help="forms compared, comma separated: deadline index ('index' or 'none'):fillfactor[:toast_tuple_target]",
    )
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from bench.live_parts import setup_tables
    from games.models import Hand
    from games.services.hands import _HAND_STEP

    step_end = "WITH updated AS (" + " ".join(_HAND_STEP._update.sql.split())[:20]  # the step, as the recorder names it
    try:
        tables = setup_tables(betting_round=True)
        pid = backend_pid()
        recorder = Recorder(pid)
        start = hand_stats()
        play(tables, args.actions, recorder)
        end = hand_stats()
        print(
            f"after {args.actions} actions a table: games_hand {end['updates'] - start['updates']} row updates, "
            f"{end['hot'] - start['hot']} HOT; {end['toast chunks'] - start['toast chunks']} TOAST chunks written"
        )
        describe_row()
        explain_step()

        forms = [
            (kind == "index", int(fill), int(target or 0))
            for kind, fill, target in ((*f.split(":"), "")[:3] for f in args.forms.split(","))
        ]
        if args.in_server:
            in_server(forms, args.rounds, args.in_server, pid)
            return
        found: dict[tuple[bool, int, int], list[dict[str, float]]] = defaultdict(list)
        step_wall: list[float] = []

        def timing(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
            if step_end not in sql:
                return execute(sql, params, many, context)
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                step_wall.append(time.perf_counter() - started)

        for _ in range(args.rounds):
            for form in forms:
                set_form(*form)
                recorder = Recorder(pid)
                step_wall.clear()
                before = hand_stats()
                with connection.execute_wrapper(timing):
                    totals = play(tables, args.round_actions, recorder)
                after = hand_stats()
                count = args.round_actions * len(tables)
                step = [v for (_, sql), v in recorder.found.items() if sql.startswith(step_end)]
                runs, _, server = (sum(v[i] for v in step) for i in range(3))
                in_play = list(Hand.objects.filter(finished_at__isnull=True, deadline__isnull=False))
                update_hot, update_chunks, update_pg, update_wall, update_wal, update_exec = updates(
                    in_play, args.update_runs, pid
                )
                found[form].append(
                    {
                        "HOT %": (after["hot"] - before["hot"]) / max(after["updates"] - before["updates"], 1) * 100,
                        "action PG ms": totals["postgres"] / count * 1000,
                        "action ms": totals["action"] / count * 1000,
                        "step PG us": server / max(runs, 1) * 1e6,
                        "step wall us": statistics.median(step_wall) * 1e6,
                        "index pages": (after["index pages"] - before["index pages"]) / count,
                        "TOAST chunks": (after["toast chunks"] - before["toast chunks"]) / count,
                        "UPDATE HOT %": update_hot,
                        "UPDATE TOAST": update_chunks,
                        "UPDATE PG us": update_pg,
                        "UPDATE wall us": update_wall,
                        "UPDATE WAL B": update_wal,
                        "UPDATE exec us": update_exec,
                    }
                )
        keys = list(next(iter(found.values()))[0])
        print(f"medians of {args.rounds} rounds of {args.round_actions} actions a table, per action (step: per run):")
        print("  form" + " " * 27 + "".join(f"{k:>15}" for k in keys))
        for (index, fill, target), rows in found.items():
            label = f"{'index' if index else 'no index'} ff {fill} toast {target or 'default'}"
            print(f"  {label:<31}" + "".join(f"{statistics.median(r[k] for r in rows):15.1f}" for k in keys))
        describe_row()
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
