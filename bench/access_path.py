"""CPU of the access stamps and the sockets' own path, the site's against the tree before its cuts, alternated.

    nice -n 10 .venv/bin/python bench/access_path.py                 # 7 rounds of each
    nice -n 10 .venv/bin/python bench/access_path.py --rounds 9 --sockets 600
    nice -n 10 .venv/bin/python bench/access_path.py --before 5eee0d3    # against another tree

In one process, on the embedded Redis (the cache's and the channel layer's), each round times this process's CPU
(``time.process_time``) for each part of an action's path that games/live/ owns, once by the old path and once by
the new, alternated:

- ``action stamp``: the acting member's stamp, read with the action (``TableConsumer._act_if_allowed``);
- ``version stamps``: the stamps of a table's six players, read once a version by the publisher (``_frames``);
- ``version send``: a version's four messages (two private frames, the public frame, the lobby's word) sent by
  ``_send_batch`` (the script ``PUBLISH_BEYOND``; no other process listens, so nothing is PUBLISHed);
- ``socket message``: a public frame forwarded by each of ``--sockets`` table sockets of this process, six a
  table (``deliver_here``, the socket's loop and dispatch, the stamp check, the send to an ASGI send that keeps
  nothing), with access granted until a session's end two weeks ahead, as the site's sessions are;
- ``pool trip``: a socket's call to the sockets' pool and back (``_db``, as an action makes one), doing nothing;
- ``queued read``: a publisher job reading one row on the pooled connection (``_in_publisher``), ``--calls`` of
  them handed over at once, as versions queue for a publisher when the process is saturated (not counted in
  the action's sum: how often versions queue depends on the load).

The old path is the site's modules as they were at ``BEFORE`` or ``--before`` (games/live/layer.py, access.py,
consumer.py, publish.py), read from git and loaded beside today's (each old module with the old modules it
imports; the channel layer in use is the site's). Printed per round: us of CPU a call (a message a socket for
the socket messages), old and new; at the end the medians, and per action: one pool trip, one action stamp, one
version's stamps and send, and ``--frames`` socket messages (a table of six: six public frames and two or three
private ones). Not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_access_path"
BEFORE = "b3fb376"  # the tree before this round's cuts (the first round's: 40d8fcd)
SEATS = 6
FIRST_MEMBER = 7_000_001  # members of no test or club: their stamps are this bench's own
FIRST_TABLE = 7_000_001  # tables of no club: no other run on the same Redis sends to their groups


def _before(path: str, name: str, before: str) -> types.ModuleType:
    """The site's module at ``path`` as it was at commit ``before``, read from git and loaded as ``name`` beside
    the site's own (its imports are the site's modules of today)."""
    source = subprocess.run(
        ["git", "show", f"{before}:{path}"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    module = types.ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module
    exec(compile(source, f"{path}@BEFORE", "exec"), module.__dict__)  # noqa: S102 - the repo's own file
    return module


@contextlib.contextmanager
def _modules_as(**modules: types.ModuleType) -> Iterator[None]:
    """``games.live.<name>`` is each module given while a module importing it loads."""
    import games.live

    site = {name: sys.modules[f"games.live.{name}"] for name in modules}
    for name, module in modules.items():
        sys.modules[f"games.live.{name}"] = module
        setattr(games.live, name, module)
    try:
        yield
    finally:
        for name, module in site.items():
            sys.modules[f"games.live.{name}"] = module
            setattr(games.live, name, module)


def _paths(before: str = BEFORE) -> dict[str, SimpleNamespace]:
    """The old path (at commit ``before``) and the new: their access module, consumer module and batch send. The
    old modules use the old layer module's functions (``command``, ``deliver_here``) on the site's channel layer."""
    from games.live import access, consumer, layer, publish

    old_layer = _before("games/live/layer.py", "games.live.layer_before", before)
    old_layer.LiveChannelLayer = layer.LiveChannelLayer  # the layer in use is the site's
    with _modules_as(layer=old_layer):
        old_access = _before("games/live/access.py", "games.live.access_before", before)
        with _modules_as(access=old_access):
            old_consumer = _before("games/live/consumer.py", "games.live.consumer_before", before)
        old_publish = _before("games/live/publish.py", "games.live.publish_before", before)
    return {
        "old": SimpleNamespace(access=old_access, consumer=old_consumer, publish=old_publish),
        "new": SimpleNamespace(access=access, consumer=consumer, publish=publish),
    }


def _per_call(fn: Callable[[], object], calls: int) -> float:
    """Microseconds of this process's CPU a call of ``fn``."""
    started = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - started) / calls * 1e6


def _batch(table_id: int) -> list[tuple[str, dict[str, Any]]]:
    """A version's messages as the publisher makes them (texts of a Piles table's sizes)."""
    from games.live.publish import club_group, mine_group, table_group

    players = [str(FIRST_MEMBER + n) for n in range(SEATS)]
    stamps: dict[str, int | None] = dict.fromkeys(players, 12345)
    private = [
        (mine_group(int(p)), {"type": "table.private", "text": "p" * 2500, "table": table_id, "stamps": {p: 12345}})
        for p in players[:2]
    ]
    public = (table_group(table_id), {"type": "table.public", "text": "x" * 9000, "stamps": stamps})
    return [*private, public, (club_group(FIRST_TABLE), {"type": "lobby.changed"})]


async def _forwarded(path: SimpleNamespace, sockets: int, messages: int) -> float:
    """Microseconds of this process's CPU a message a socket: ``messages`` public frames to each of ``sockets``
    table sockets of ``path`` (bench/socket_dispatch.py's round, with a session that ends)."""
    from django.utils import timezone

    from bench.socket_dispatch import round_of

    session_ends = timezone.now() + timedelta(days=14)
    return await round_of(path.consumer.TableConsumer, sockets, messages, grant=lambda: path.access.Grant(session_ends))


async def _trips(path: SimpleNamespace, calls: int) -> float:
    """Microseconds of this process's CPU a trip of a socket's call to the sockets' pool and back (``_db``)."""

    def nothing() -> None:
        return None

    started = time.process_time()
    for _ in range(calls):
        await path.consumer._db(nothing)()
    return (time.process_time() - started) / calls * 1e6


def _queued(path: SimpleNamespace, jobs: int) -> float:
    """Microseconds of this process's CPU (every thread's) a publisher job that reads one row, ``jobs`` of them
    handed over at once (as versions queue for a publisher when the process is saturated)."""
    from django.db import connection

    def read() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    started = time.process_time()
    for _ in range(jobs):
        path.publish._in_publisher(FIRST_TABLE, read, "a bench read")
    path.publish.announce_flush()
    return (time.process_time() - started) / jobs * 1e6


def _round(path: SimpleNamespace, args: argparse.Namespace) -> dict[str, float]:
    members = [FIRST_MEMBER + n for n in range(SEATS)]
    one = members[2]
    batch = _batch(table_id=FIRST_TABLE)
    return {
        "action stamp": _per_call(lambda: path.access.access_stamp_read(one), args.calls)
        if hasattr(path.access, "access_stamp_read")
        else _per_call(lambda: path.access.access_stamps([one]).get(one), args.calls),
        "version stamps": _per_call(lambda: path.access.access_stamps(u for u in members), args.calls),
        "version send": _per_call(lambda: path.publish._send_batch(batch), args.calls),
        "socket message": asyncio.run(_forwarded(path, args.sockets, args.messages)),
        "pool trip": asyncio.run(_trips(path, args.calls)),
        "queued read": _queued(path, args.calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each path, alternated (default 7)")
    parser.add_argument("--calls", type=int, default=3000, help="calls of each read and send a round (default 3000)")
    parser.add_argument("--sockets", type=int, default=300, help="table sockets, six a table (default 300)")
    parser.add_argument("--messages", type=int, default=100, help="public frames to each table a round (default 100)")
    parser.add_argument("--frames", type=float, default=8.5, help="socket messages an action (default 8.5)")
    parser.add_argument("--before", default=BEFORE, help=f"the old path's commit (default {BEFORE[:7]})")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    try:
        paths = _paths(args.before)
        for member in range(FIRST_MEMBER, FIRST_MEMBER + SEATS):
            paths["new"].access.access_bump(member)
        figures: dict[str, dict[str, list[float]]] = {name: {} for name in paths}
        for n in range(args.rounds):
            for name, path in paths.items():
                for part, value in _round(path, args).items():
                    figures[name].setdefault(part, []).append(value)
            print(
                f"round {n + 1}: "
                + "; ".join(
                    f"{part} {figures['old'][part][-1]:.1f} -> {figures['new'][part][-1]:.1f} us"
                    for part in figures["old"]
                ),
                flush=True,
            )
        medians = {name: {part: statistics.median(v) for part, v in parts.items()} for name, parts in figures.items()}
        for part in medians["old"]:
            old, new = medians["old"][part], medians["new"][part]
            print(f"median of {args.rounds}, {part}: old {old:.1f} us, new {new:.1f} us (new/old {new / old:.2f})")
        for name, parts in medians.items():
            action = (
                parts["pool trip"]
                + parts["action stamp"]
                + parts["version stamps"]
                + parts["version send"]
                + args.frames * parts["socket message"]
            )
            print(f"{name}: {action / 1000:.3f} ms of CPU an action (one pool trip, {args.frames} socket messages)")
    finally:
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
