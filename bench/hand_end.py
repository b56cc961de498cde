"""The action that ends a hand and deals the next, taken apart: its statements one by one (CPU of this thread
and wall time each), the rest of its CPU (Python: the engine, the books' entries, the deal's commitment), and
with ``--profile`` where that Python work goes.

    .venv/bin/python bench/hand_end.py                 # 300 actions a game, bench/live_parts.py's two tables
    .venv/bin/python bench/hand_end.py --profile       # and cProfile's top functions of the hand ends (CPU)

Plays bench/live_parts.py's tables (Piranha with its betting round, as bench/load.py plays it, and Piles) on a
database of its own (made afresh, dropped at the end) through the real services. Every ``hand_act`` is timed;
those that finish their hand (``Hand.is_finished`` on the hand it returns) are the hand ends. A statement's CPU
is this thread's time in the cursor's ``execute`` (psycopg's work and Django's, the server's time excluded);
its wall time includes the server's. Not a timed test.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
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
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
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


def ms(values: list[float]) -> str:
    return f"{statistics.mean(values) * 1000:6.3f} / {statistics.median(values) * 1000:6.3f}" if values else "-"


if __name__ == "__main__":
    main()
