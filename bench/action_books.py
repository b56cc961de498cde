"""Two parts of every action's CPU, each against what it replaced, alternated in one process: the books' posting
of a chip event (one statement, ledger/services.py ``_hand_entry_posted``, against the two of several events) and
the timestamps' loader (psycopg's, config/database/base.py ``UtcTimestamptzLoader``, against Django's).

    .venv/bin/python bench/action_books.py               # 300 actions a game
    .venv/bin/python bench/action_books.py --actions 100

Plays bench/live_parts.py's two tables (on a database of its own, made afresh, dropped at the end) through the real services,
switching both parts between the old and the new way every ``--block`` actions, so that the machine's drift
falls on both alike. Per action it times, in CPU of this thread: the books' posting (``ledger_post_hand_events``,
from the action and from a deal), the whole ``hand_act``, and the publisher's read (``table_snapshot_of``). Then,
alone, a read of a row with eight timestamps and of 100 such rows by each loader. Not a timed test.

``--before COMMIT`` compares instead the books' module as it is (ledger/services.py) with the same file at COMMIT
(read from git, loaded beside it), switched every ``--block`` actions: ``ledger_post_hand_events``' CPU for one chip
event, for several (a deal, a hand's end with the next deal) and for none. An action's one chip event is written in
its step's statement (``ledger_hand_entry``), not by ``ledger_post_hand_events``: bench/action_path.py times those.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path
from bench.live_parts import setup_tables  # noqa: E402

DB_NAME = "bench_action_books"

MODES = ("old", "new")
STAMPS = "SELECT now(), now(), now(), now(), now(), now(), now(), now() FROM generate_series(1, %s)"


def ms(values: list[float]) -> str:
    return f"{statistics.mean(values) * 1000:6.3f} / {statistics.median(values) * 1000:6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions timed at each table")
    parser.add_argument("--block", type=int, default=10, help="actions in a row of one way")
    parser.add_argument("--before", metavar="COMMIT", help="the books' module now against it at COMMIT")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    if args.before:
        try:
            books_before(args.before, args.actions, args.block)
        finally:
            from django.db import connection

            connection.close()
            drop_bench_database(DB_NAME)
        return
    from django.db import connection
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.postgres import types
    from psycopg.pq import Format

    import ledger.services
    from bench.live_parts import play
    from config.database.base import UtcTimestamptzLoader
    from games.services import dealing, hands

    oid = types["timestamptz"].oid
    mode = ["new"]

    def switch(to: str) -> None:
        """The old way: Django's loader on the connection, and every posting by the path for several events."""
        mode[0] = to
        connection.ensure_connection()
        if to == "old":
            register_tzloader(connection.timezone, connection.connection)
        else:
            connection.connection.adapters.register_loader(oid, UtcTimestamptzLoader)
        assert (connection.connection.adapters.get_loader(oid, Format.TEXT) is UtcTimestamptzLoader) == (to == "new")
        ledger.services._hand_entry_posted = posted if to == "new" else lambda **_: False  # type: ignore[assignment]

    posted = ledger.services._hand_entry_posted
    books: dict[str, list[float]] = defaultdict(list)
    paid: dict[str, list[bool]] = defaultdict(list)  # whether the action posted an entry
    modes: list[str] = []
    statements: dict[str, list[int]] = defaultdict(list)
    real_act, real_post = hands.hand_act, ledger.services.ledger_post_hand_events

    def acting(*a: Any, **kw: Any) -> Any:
        switch(MODES[(len(modes) // args.block) % 2])
        modes.append(mode[0])
        books[mode[0]].append(0.0)
        paid[mode[0]].append(False)
        before = len(connection.queries)
        try:
            return real_act(*a, **kw)
        finally:
            statements[mode[0]].append(len(connection.queries) - before)

    def posting(*a: Any, **kw: Any) -> Any:
        started = time.thread_time()
        entries = real_post(*a, **kw)
        if books[mode[0]]:  # not the deals of the tables' setup
            books[mode[0]][-1] += time.thread_time() - started
            paid[mode[0]][-1] = paid[mode[0]][-1] or bool(entries)
        return entries

    hands.hand_act = acting  # type: ignore[assignment]
    hands.ledger_post_hand_events = dealing.ledger_post_hand_events = posting  # type: ignore[assignment]
    try:
        tables = setup_tables()
        connection.force_debug_cursor = True  # counts the action's statements (all of them, both ways)
        costs: dict[str, list[float]] = defaultdict(list)
        for table, users in tables:
            play(table, users, args.actions, costs, [], defaultdict(list))
        connection.force_debug_cursor = False
        print(f"CPU per action, ms, mean / median ({2 * args.actions} actions, ways switched every {args.block}):")
        print(f"  {'':<8}{'books':>17}{'books (posting)':>17}{'hand_act':>17}{'read':>17}{'statements':>12}")
        for way in MODES:
            mine = [i for i, m in enumerate(modes) if m == way]
            spent = books[way]
            paying = [t for t, p in zip(spent, paid[way], strict=True) if p]
            print(
                f"  {way:<8}{ms(spent):>17}{ms(paying):>17}{ms([costs['action'][i] for i in mine]):>17}"
                f"{ms([costs['read'][i] for i in mine]):>17}{statistics.mean(statements[way]):>12.2f}"
            )
        print(f"  actions posting chips: {len(paying)} of {len(spent)} (new way)")
        stamps(connection, switch)
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


def books_before(commit: str, actions: int, block: int) -> None:
    """``--before``: ``ledger_post_hand_events`` now and at ``commit``, switched every ``block`` actions."""
    import ledger.services
    from bench.live_parts import play
    from games.services import dealing, hands

    source = subprocess.run(
        ["git", "show", f"{commit}:ledger/services.py"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    old = types.ModuleType("ledger.services_before")
    old.__package__ = "ledger"
    sys.modules[old.__name__] = old  # its dataclasses look their module up
    exec(compile(source, f"ledger/services.py@{commit}", "exec"), old.__dict__)  # noqa: S102 - the repo's own file
    ways = {"now": ledger.services.ledger_post_hand_events, commit: old.ledger_post_hand_events}
    calls = [0]
    spent: dict[tuple[str, str], list[float]] = defaultdict(list)

    def posting(**kw: Any) -> Any:
        way = list(ways)[(calls[0] // block) % 2]
        calls[0] += 1
        started = time.thread_time()
        entries = ways[way](**kw)
        took = time.thread_time() - started
        events = "none" if not entries else "one" if len(entries) == 1 and kw.get("first") is None else "several"
        spent[way, events].append(took)
        return entries

    tables = setup_tables(betting_round=True)  # Piranha as bench/load.py plays it
    hands.ledger_post_hand_events = dealing.ledger_post_hand_events = posting  # type: ignore[assignment]
    for table, users in tables:
        play(table, users, actions, defaultdict(list), [], defaultdict(list))
    print(f"ledger_post_hand_events, ms of CPU, mean / median, now and at {commit} (switched every {block} calls):")
    for events in ("one", "several", "none"):
        cells = [f"{way} {ms(spent[way, events])} ({len(spent[way, events])})" for way in ways if spent[way, events]]
        print(f"  {events:8} {'; '.join(cells)}")


def stamps(connection: Any, switch: Callable[[str], None]) -> None:
    """One row of eight timestamps, and 100 rows, read by each loader in turn."""
    samples: dict[tuple[str, int], list[float]] = defaultdict(list)
    for _ in range(10):
        for way in MODES:
            switch(way)
            for rows, times in ((1, 100), (100, 5)):
                for _ in range(times):
                    started = time.thread_time()
                    with connection.cursor() as cursor:
                        cursor.execute(STAMPS, [rows])
                        cursor.fetchall()
                    samples[way, rows].append(time.thread_time() - started)
    for way in MODES:
        one, hundred = samples[way, 1], samples[way, 100]
        print(
            f"  {way}: a row of 8 timestamps {statistics.median(one) * 1000:.4f} ms; "
            f"one timestamp of 800 {statistics.median(hundred) * 1000 / 800:.5f} ms (medians)"
        )


if __name__ == "__main__":
    main()
