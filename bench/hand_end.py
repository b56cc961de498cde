"""The action that ends a hand and deals the next, taken apart: its statements one by one (CPU of this thread
and wall time each), the rest of its CPU (Python: the engine, the books' entries, the deal's commitment), and
with ``--profile`` where that Python work goes.

    .venv/bin/python bench/hand_end.py                 # 300 actions a game, bench/live_parts.py's two tables
    .venv/bin/python bench/hand_end.py --profile       # and cProfile's top functions of the hand ends (CPU)
    .venv/bin/python bench/hand_end.py --compare 6 --actions 100   # the guard triggers' forms, alternated
    .venv/bin/python bench/hand_end.py --compare 6 --keys --in-server 1500   # the books' keys (ledger 0008)

Plays bench/live_parts.py's tables (Piranha with its betting round, as bench/load.py plays it, and Piles) on a
database of its own (made afresh, dropped at the end) through the real services. Every ``hand_act`` is timed;
those that finish their hand (``Hand.is_finished`` on the hand it returns) are the hand ends. A statement's CPU
is this thread's time in the cursor's ``execute`` (psycopg's work and Django's, the server's time excluded);
its wall time includes the server's. Not a timed test.

``--compare ROUNDS`` plays the same tables with the books' and the deal's guard triggers in each of their forms in
turn (as migrated; as they were before ledger 0007 and games 0020; without the commit's checks and the deal's
guard), ``--actions`` actions a table a form a round, the order of the forms turned each round, in one process on
one database. Per action, by hand ends and others: the commit's wall time and PostgreSQL's CPU for it, and
PostgreSQL's CPU for the whole action (the backend's time on a CPU from ``/proc/<pid>/schedstat``, in
nanoseconds); per form, the PL/pgSQL functions' calls and time (``track_functions = 'pl'``). The first actions of
a form's round are left out of its figures: the triggers' DDL makes every cached plan of those tables anew.
With ``--keys`` the forms are ledger 0008's SQL both ways instead (the postings' keys to the club and the table,
and the entries' index on the club alone, without and with).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path
from bench.live_parts import setup_tables  # noqa: E402

DB_NAME = "bench_hand_end"


def shape(sql: str) -> str:
    """A statement's first words and the tables it writes or reads, to group the same statement's runs."""
    head = " ".join(sql.split()[:3])[:40]
    tables = sorted(set(re.findall(r'"((?:games|ledger|accounts)_[a-z]+)"', sql)))
    return f"{head} [{', '.join(tables)[:90]}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions at each table")
    parser.add_argument("--profile", action="store_true", help="cProfile the hand ends")
    parser.add_argument("--compare", type=int, metavar="ROUNDS", help="the guards' forms alternated, ROUNDS rounds")
    parser.add_argument("--in-server", type=int, default=0, metavar="N", help="with --compare: N runs a form a round")
    parser.add_argument(
        "--keys", action="store_true", help="with --compare: the books' keys and indexes (ledger 0008) as the forms"
    )
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    if args.compare:
        try:
            compare(args.compare, args.actions, args.in_server, keys=args.keys)
        finally:
            from django.db import connection

            connection.close()
            drop_bench_database(DB_NAME)
        return
    from django.db import connection

    from bench.live_parts import play
    from games.services import hands

    real_act = hands.hand_act
    ends: list[dict[str, Any]] = []  # per hand end: cpu, statements [(shape, cpu, wall)]
    others: list[float] = []
    other_statements: list[tuple[int, float]] = []  # per other action: statements, their CPU
    profiler = cProfile.Profile(time.thread_time) if args.profile else None  # CPU, not wall
    profiled = pstats.Stats() if profiler is not None else None

    def acting(*a: Any, **kw: Any) -> Any:
        ran: list[tuple[str, float, float]] = []

        def timing(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                ran.append((shape(sql), time.thread_time() - cpu, time.perf_counter() - wall))

        if profiler is not None:
            profiler.enable()
        with connection.execute_wrapper(timing):
            started = time.thread_time()
            hand = real_act(*a, **kw)
            spent = time.thread_time() - started
        if profiler is not None:
            profiler.disable()
        if hand.is_finished:
            ends.append({"cpu": spent, "statements": ran})
            if profiler is not None and profiled is not None:
                profiled.add(profiler)
        else:
            others.append(spent)
            other_statements.append((len(ran), sum(c for _, c, _ in ran)))
        if profiler is not None:
            profiler.clear()
        return hand

    hands.hand_act = acting  # type: ignore[assignment]
    try:
        for table, users in setup_tables(betting_round=True):
            play(table, users, args.actions, defaultdict(list), [], defaultdict(list))
        report(ends, others)
        print(
            f"  other actions: {statistics.mean(n for n, _ in other_statements):.2f} statements; their CPU "
            f"{ms([c for _, c in other_statements])}; the rest (Python) "
            f"{ms([t - c for t, (_, c) in zip(others, other_statements, strict=True)])}"
        )
        if profiled is not None and ends:
            profiled.sort_stats("tottime").print_stats(30)
            profiled.sort_stats("cumulative").print_stats(45)
            profiled.dump_stats(str(Path(tempfile.gettempdir()) / "hand_end.prof"))  # for pstats' callers
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


def report(ends: list[dict[str, Any]], others: list[float]) -> None:
    n = len(ends)
    cpu = [e["cpu"] for e in ends]
    sql_cpu = [sum(s[1] for s in e["statements"]) for e in ends]
    sql_wall = [sum(s[2] for s in e["statements"]) for e in ends]
    count = [len(e["statements"]) for e in ends]
    print(f"hand_act, ms of CPU, mean / median: other actions ({len(others)}) {ms(others)}; hand ends ({n}) {ms(cpu)}")
    print(
        f"  hand ends: {statistics.mean(count):.2f} statements; their CPU {ms(sql_cpu)} (wall {ms(sql_wall)}); "
        f"the rest (Python) {ms([c - s for c, s in zip(cpu, sql_cpu, strict=True)])}"
    )
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for end in ends:
        for name, c, w in end["statements"]:
            groups[name].append((c, w))
    print("  by statement: runs per hand end, CPU ms mean, wall ms mean")
    for name, runs in sorted(groups.items(), key=lambda item: -sum(c for c, _ in item[1])):
        print(
            f"    {len(runs) / n:5.2f} {statistics.mean(c for c, _ in runs) * 1000:7.3f} "
            f"{statistics.mean(w for _, w in runs) * 1000:7.3f}  {name}"
        )


#: The guard triggers compared: the books' checks at commit and the deal's guard on the hand row. "before": as
#: they were before the migrations below (each migration's SQL both ways); "none": without these three.
GUARDS = ("ledger_entry_balanced", "ledger_entry_has_postings", "games_hand_commitment_fixed")
LEDGER_0007 = importlib.import_module("ledger.migrations.0007_postings_in_their_entrys_transaction")
GAMES_0020 = importlib.import_module("games.migrations.0020_hand_commitment_guard_on_its_columns")
WARM_UP = 3  # actions of a form's round left out (each table): its first plans after the DDL
#: ``--keys``: the books' keys and indexes as ledger 0008 leaves them and as they were before it (its SQL both ways).
LEDGER_0008 = importlib.import_module("ledger.migrations.0008_postings_keys_from_their_entry")


def backend_ns(pid: int) -> int:
    """Nanoseconds PostgreSQL's backend ``pid`` has spent on a CPU (the scheduler's own count)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def compare(rounds: int, actions: int, in_server: int, *, keys: bool = False) -> None:
    """The guards' forms in turn (module docstring), or with ``keys`` the books' keys' (ledger 0008), ``actions``
    actions a table a form a round; then with ``in_server``, ``in_server_loops``."""
    from django.db import connection

    from bench.live_parts import play
    from games.services import hands

    def run(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall()) if cursor.description else []

    tables = setup_tables(betting_round=True)
    migrated = run(
        "SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE t.tgname = ANY(%s) ORDER BY 1",
        [list(GUARDS)],
    )
    drop = [f'DROP TRIGGER IF EXISTS "{name}" ON "{table}"' for name, table, _ in migrated]
    again = drop + [definition for *_, definition in migrated]
    forms = {
        "as migrated": [*again, LEDGER_0007.TRIGGERS, GAMES_0020.FORWARD],
        "before": [*again, LEDGER_0007.TRIGGERS_BEFORE, GAMES_0020.BACKWARD],
        "none": [*drop, LEDGER_0007.TRIGGERS],
    }
    if keys:
        forms = {"as migrated": [LEDGER_0008.FORWARD], "before": [LEDGER_0008.BACKWARD]}
    run("SET track_functions = 'pl'")  # the bench's superuser may; the connection stays this process's

    real_act, real_commit = hands.hand_act, connection.commit
    form = [""]
    seen: dict[tuple[str, bool], list[tuple[int, int, float]]] = defaultdict(list)  # (action ns, commit ns, wall)
    counted = [0]  # actions of this form's round at this table

    def acting(*a: Any, **kw: Any) -> Any:
        pid = connection.connection.info.backend_pid if connection.connection else 0
        commits: list[tuple[int, float]] = []

        def committing() -> None:
            server, wall = backend_ns(pid), time.perf_counter()
            real_commit()
            commits.append((backend_ns(pid) - server, time.perf_counter() - wall))

        connection.commit = committing  # type: ignore[method-assign]
        server = backend_ns(pid) if pid else 0
        try:
            hand = real_act(*a, **kw)
        finally:
            del connection.commit
        spent = backend_ns(pid) - server
        counted[0] += 1
        if pid and counted[0] > WARM_UP and len(commits) == 1:
            seen[form[0], hand.is_finished].append((spent, commits[0][0], commits[0][1]))
        return hand

    def functions() -> dict[str, tuple[int, float]]:
        run("SELECT pg_stat_force_next_flush()")
        time.sleep(0.05)
        run("SELECT pg_stat_clear_snapshot()")
        return {
            name: (calls, self_ms)
            for name, calls, self_ms in run("SELECT funcname, calls, self_time FROM pg_stat_user_functions")
        }

    calls: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
    hands.hand_act = acting  # type: ignore[assignment]
    order = list(forms)
    for number in range(rounds):
        for name in order if number % 2 == 0 else order[::-1]:
            for sql in forms[name]:
                run(sql)
            form[0] = name
            before = functions()
            for table, users in tables:
                counted[0] = 0
                play(table, users, actions, defaultdict(list), [], defaultdict(list))
            for function, (n, self_ms) in functions().items():
                was = before.get(function, (0, 0.0))
                calls[name][function][0] += n - was[0]
                calls[name][function][1] += self_ms - was[1]
        print(f"round {number + 1} of {rounds} done", flush=True)
    hands.hand_act = real_act  # type: ignore[assignment]
    compared(seen, calls, forms)
    if in_server and keys:
        keys_loops(forms, run, 40, in_server)
    elif in_server:
        in_server_loops(forms, run, rounds, in_server)
    for sql in forms["as migrated"]:
        run(sql)


def in_server_loops(forms: dict[str, list[str]], run: Callable[..., Any], rounds: int, runs: int) -> None:
    """What each form costs PostgreSQL with no client in it: a hand's step (an UPDATE of the hand in play naming
    none of the deal's columns) and a chip event's entry with its two postings, each looped ``runs`` times inside
    PostgreSQL and committed each time (so the commit's checks run), the forms alternated ``rounds`` times; the
    backend's CPU a run; and the entry's loop again in one transaction rolled back (its insert triggers alone)."""
    from django.db import connection, transaction

    ((hand_id,),) = run("SELECT min(id) FROM games_hand WHERE finished_at IS NULL")
    loops = {"step": f"UPDATE games_hand SET version = version WHERE id = {hand_id};", "entry": entry_loop(run)}  # noqa: S608
    spent: dict[tuple[str, str], list[float]] = defaultdict(list)
    order = list(forms)
    for number in range(rounds):
        for name in order if number % 2 == 0 else order[::-1]:
            for sql in forms[name]:
                run(sql)
            pid = connection.connection.info.backend_pid
            for loop, body in loops.items():
                started = backend_ns(pid)
                run(f"DO $$ DECLARE e bigint; BEGIN FOR i IN 1..{runs} LOOP {body} COMMIT; END LOOP; END $$")
                spent[name, loop].append((backend_ns(pid) - started) / runs / 1000)
            with transaction.atomic():  # the entries' insert triggers alone: no commit, no check at it
                started = backend_ns(pid)
                run(f"DO $$ DECLARE e bigint; BEGIN FOR i IN 1..{runs} LOOP {loops['entry']} END LOOP; END $$")
                spent[name, "entry, rolled back"].append((backend_ns(pid) - started) / runs / 1000)
                transaction.set_rollback(True)
    print(f"In PostgreSQL, {runs} runs a form a round, {rounds} rounds: us of its CPU a run, median (each round)")
    for loop in (*loops, "entry, rolled back"):
        for name in forms:
            rows = spent[name, loop]
            print(f"  {loop:18} {name:12} {statistics.median(rows):7.1f}  ({', '.join(f'{r:.0f}' for r in rows)})")


def entry_loop(run: Callable[..., Any]) -> str:
    """A loop's body: a chip event's entry (a bet at the first hand in play) and its two postings, in PL/pgSQL."""
    ((hand_id, table_id, club_id),) = run(
        "SELECT h.id, h.table_id, t.club_id FROM games_hand h JOIN games_table t ON t.id = h.table_id "
        "WHERE h.finished_at IS NULL ORDER BY h.id LIMIT 1"
    )
    ((member, pot),) = run(
        "SELECT min(id) FILTER (WHERE kind = 'member'), min(id) FILTER (WHERE kind = 'table_pot' AND table_id = %s) "
        "FROM ledger_account WHERE club_id = %s",
        [table_id, club_id],
    )
    return (  # ids read from the database just above: integers
        "INSERT INTO ledger_journalentry (club_id, kind, memo, created_at, table_id, hand_id, game) "  # noqa: S608
        f"VALUES ({club_id}, 'bet', 'bench', now(), {table_id}, {hand_id}, 'piles') RETURNING id INTO e; "
        "INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game) "
        f"VALUES (e, {member}, -1, 0, 0, '', ''), (e, {pot}, 1, 0, 0, '', '');"
    )


def keys_loops(forms: dict[str, list[str]], run: Callable[..., Any], rounds: int, runs: int, batch: int = 50) -> None:
    """``--keys --in-server``: PostgreSQL's CPU for a chip event's entry and postings with their foreign keys checked
    at each statement (as at the commit; no commit, no WAL flush in the figure, the books' own checks left to a
    commit that never comes), ``runs`` runs a form in transactions of ``batch`` rolled back (a long one would
    walk the accounts' rows' ever longer chains of versions), the forms alternated ``rounds`` times."""
    from django.db import connection, transaction

    entry = entry_loop(run)
    spent: dict[str, list[float]] = defaultdict(list)
    order = list(forms)
    for number in range(rounds):
        for name in order if number % 2 == 0 else order[::-1]:
            for sql in forms[name]:
                run(sql)
            pid, ns = connection.connection.info.backend_pid, 0
            for _ in range(max(1, runs // batch)):
                with transaction.atomic():
                    run("SET CONSTRAINTS ALL IMMEDIATE")
                    run("SET CONSTRAINTS ledger_entry_has_postings, ledger_entry_balanced DEFERRED")
                    started = backend_ns(pid)
                    run(f"DO $$ DECLARE e bigint; BEGIN FOR i IN 1..{batch} LOOP {entry} END LOOP; END $$")
                    ns += backend_ns(pid) - started
                    transaction.set_rollback(True)
            spent[name].append(ns / (max(1, runs // batch) * batch) / 1000)
    print(f"In PostgreSQL, keys checked at each statement, {runs} runs a form a round, {rounds} rounds: us a run")
    for name in forms:
        rows = spent[name]
        print(f"  {name:12} median {statistics.median(rows):7.1f}, lowest {min(rows):7.1f}")


def compared(
    seen: dict[tuple[str, bool], list[tuple[int, int, float]]],
    calls: dict[str, dict[str, list[float]]],
    forms: dict[str, list[str]],
) -> None:
    """Print ``compare``'s figures: per form, hand ends and other actions apart."""

    def us(values: list[float]) -> str:
        return f"{statistics.mean(values):8.1f} / {statistics.median(values):8.1f}" if values else "-"

    print("PostgreSQL's CPU (us, mean / median) and the commit's wall time, per action, by form")
    for finished in (True, False):
        print("  hand ends (and the next deal)" if finished else "  other actions")
        for name in forms:
            rows = seen[name, finished]
            print(
                f"    {name:12} {len(rows):5} actions: whole action {us([r[0] / 1000 for r in rows])}; "
                f"its commit {us([r[1] / 1000 for r in rows])}; commit wall {us([r[2] * 1e6 for r in rows])}"
            )
    print("PL/pgSQL functions by form: calls, self time ms (all actions and reads of the form's rounds)")
    for name in forms:
        hand_ends = len(seen[name, True])
        listed = sorted(calls[name].items(), key=lambda item: -item[1][1])
        print(f"  {name} ({hand_ends} hand ends, {len(seen[name, False])} others counted)")
        for function, (n, self_ms) in listed:
            if n:
                print(f"    {function:40} {int(n):7} calls {self_ms:9.1f} ms  {self_ms / n * 1000:7.1f} us a call")


def ms(values: list[float]) -> str:
    return f"{statistics.mean(values) * 1000:6.3f} / {statistics.median(values) * 1000:6.3f}" if values else "-"


if __name__ == "__main__":
    main()
