"""Memory per open socket, the site's against the bare app's (bench/bare_app.py), in one run: nothing played.

    nice .venv/bin/python bench/socket_memory.py                  # 50 tables (300 sockets), 3 rounds
    nice .venv/bin/python bench/socket_memory.py --tables 20 --rounds 5
    nice .venv/bin/python bench/socket_memory.py --trace          # and what a site socket holds, by traceback

Sets up the stack as bench/load.py does (its database of this run's own, a club of six members a table, each
table dealt its first hand: bench/stack.py), then in each round serves the bare app and then the site with the
production command, one worker, and opens one socket a seat with bench/load.py's ``open_floor`` (the first
tables' sockets warm the process, then its RSS is read before and after the rest: the figure bench/load.py
prints). The machine is shared: the medians over the rounds are what to compare, each round's pair beside.

``--trace`` then serves the bare app and the site under tracemalloc (bench/traced_sockets_app.py, 16 frames deep),
takes a snapshot of each before and after the rest of the sockets open, and prints what grew per socket by line,
the site's beside the bare app's (the lines where the site's sockets hold most beyond the bare app's first), and
the site's by traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import stack  # noqa: E402 - the project's root is on the path now
from bench.load import (  # noqa: E402
    BARE_APP,
    PROJECT_APP,
    WARM_TABLES,
    BareGroup,
    Bot,
    Floor,
    close,
    open_floor,
    start_server,
    stop_server,
)

TRACED_SOCKETS_APP = "bench.traced_sockets_app:application"
TOP = 25


@dataclass
class Growth:
    by_line: list[tracemalloc.StatisticDiff]
    by_traceback: list[tracemalloc.StatisticDiff]
    sockets: int

    def total(self) -> float:
        """Bytes a socket."""
        return sum(stat.size_diff for stat in self.by_line) / self.sockets


def per_socket(
    procs: stack.Procs, env: dict[str, str], pids: dict[str, int], app: str, seats: list[Any], extra: dict[str, str]
) -> float:
    """KiB of the web process's RSS a socket (bench/load.py's figure) for ``app``, one worker, ``extra`` in its
    environment."""
    server = start_server(procs, env, app, 1, pids, extra)
    try:

        async def run() -> None:
            players, listeners = await open_floor(server, Floor(0), seats)
            await close(players, listeners)

        asyncio.run(run())
        return server.per_socket_kib
    finally:
        stop_server(procs, server)


def snapshot_after(pid: int, out: str, count: int, timeout: float = 300.0) -> tracemalloc.Snapshot:
    """Ask the traced server for a snapshot (SIGUSR2) and load it once written (its ``count``-th)."""
    os.kill(pid, signal.SIGUSR2)
    path = Path(f"{out}.{count}")
    ends = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < ends:
        time.sleep(0.5)
    return tracemalloc.Snapshot.load(str(path))


def grown(procs: stack.Procs, env: dict[str, str], pids: dict[str, int], app: str, seats: list[Any]) -> Growth:
    """What ``app``'s sockets hold: two snapshots of the traced server, before and after the rest of the sockets
    open (the first tables' sockets open first, as in ``open_floor``), and how many sockets opened between."""
    folder = tempfile.mkdtemp(prefix="bench-sockets-")
    out = str(Path(folder) / "snapshot")
    server = start_server(procs, env, TRACED_SOCKETS_APP, 1, pids, {"BENCH_SNAPSHOT_OUT": out, "BENCH_TRACED": app})
    snapshots: list[tracemalloc.Snapshot] = []
    try:

        async def run() -> int:
            floor = Floor(0)
            players: list[Any]
            if app == BARE_APP:
                players = [BareGroup(floor, g) for g in range(len({s["table"] for s in seats}))]
            else:
                players = [Bot(floor, seat) for seat in seats]
            url = f"ws://127.0.0.1:{server.port}"
            gate = asyncio.Semaphore(10)

            async def one(player: Any) -> None:
                async with gate:
                    await player.connect(url)

            tables = sorted({p.table for p in players})
            warm = tables[: max(1, min(WARM_TABLES, len(tables) // 4))]
            await asyncio.gather(*(one(p) for p in players if p.table in warm))
            await asyncio.sleep(1)
            snapshots.append(snapshot_after(server.pid, out, 1))  # one worker: uvicorn serves in its own process
            rest = [p for p in players if p.table not in warm]
            await asyncio.gather(*(one(p) for p in rest))
            await asyncio.sleep(2)
            snapshots.append(snapshot_after(server.pid, out, 2))
            await close(players, [])
            return sum(stack.SEATS if isinstance(p, BareGroup) else 1 for p in rest)

        sockets = asyncio.run(run())
    finally:
        stop_server(procs, server)
        shutil.rmtree(folder, ignore_errors=True)
    return Growth(
        snapshots[1].compare_to(snapshots[0], "lineno"), snapshots[1].compare_to(snapshots[0], "traceback"), sockets
    )


def where(frame: tracemalloc.Frame) -> str:
    return f"{frame.filename.split('site-packages/')[-1].removeprefix(str(stack.ROOT) + '/')}:{frame.lineno}"


def traced(procs: stack.Procs, env: dict[str, str], pids: dict[str, int], seats: list[Any]) -> None:
    """What a socket holds, the site's and the bare app's: the growth per socket by line, side by side, the lines
    where the site's exceeds the bare app's first; then the site's by traceback (innermost frame first)."""
    bare, site = (grown(procs, env, pids, app, seats) for app in (BARE_APP, PROJECT_APP))
    print(
        f"\ntraced: Python heap a socket, site {site.total() / 1024:.2f} KiB, bare {bare.total() / 1024:.2f} KiB "
        f"({site.sockets} and {bare.sockets} sockets after the first tables')"
    )
    lines: dict[str, list[float]] = {}
    for n, growth in enumerate((site, bare)):
        for stat in growth.by_line:
            lines.setdefault(where(stat.traceback[0]), [0.0, 0.0])[n] += stat.size_diff / growth.sockets
    print("\n  by line, bytes a socket: site, bare, site less bare (the largest differences first)")
    for line, (mine, theirs) in sorted(lines.items(), key=lambda kv: kv[1][1] - kv[1][0])[:TOP]:
        print(f"    {mine:8.1f} {theirs:8.1f} {mine - theirs:+8.1f}  {line}")
    print("\n  the site's by traceback, bytes and blocks a socket (innermost frame first)")
    for stat in site.by_traceback[:TOP]:
        if stat.size_diff > 0:
            frames = [where(f) for f in reversed(list(stat.traceback))][:6]
            print(
                f"    {stat.size_diff / site.sockets:8.1f} {stat.count_diff / site.sockets:6.2f}  "
                + " <- ".join(frames)
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="six-seat tables (default 50: 300 sockets)")
    parser.add_argument("--rounds", type=int, default=3, help="bare and site, each round (default 3; 0: only --trace)")
    parser.add_argument("--trace", action="store_true", help="then the site under tracemalloc, growth by traceback")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="in both servers' environment (e.g. MALLOC_ARENA_MAX=2), repeatable",
    )
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.env)

    with stack.served_club(args.tables) as club:
        procs, env, pids, seats = club.procs, club.env, club.pids, club.seats
        figures: dict[str, list[float]] = {BARE_APP: [], PROJECT_APP: []}
        for n in range(args.rounds):
            for app in (BARE_APP, PROJECT_APP):
                figures[app].append(per_socket(procs, env, pids, app, seats, extra))
            print(
                f"round {n + 1}: site {figures[PROJECT_APP][-1]:.1f} KiB, bare {figures[BARE_APP][-1]:.1f} KiB "
                "of web process RSS a socket",
                flush=True,
            )
        if args.rounds:
            site, bare = statistics.median(figures[PROJECT_APP]), statistics.median(figures[BARE_APP])
            print(
                f"median of {args.rounds}: site {site:.1f} KiB, bare {bare:.1f} KiB a socket; bare + 25% = "
                f"{bare * 1.25:.1f}: {'held' if site <= bare * 1.25 else 'NOT held'}",
                flush=True,
            )
        if args.trace:
            traced(procs, env, pids, seats)


if __name__ == "__main__":
    main()
