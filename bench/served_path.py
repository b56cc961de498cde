"""The web process's own cost per action, served: CPU and thread switches by thread, on a few tables.

    nice -n 10 .venv/bin/python bench/served_path.py                       # 8 tables, 40 actions/s, 20 s
    nice -n 10 .venv/bin/python bench/served_path.py --rate 0 --seconds 15  # closed loop (saturation)
    nice -n 10 .venv/bin/python bench/served_path.py --spy samples         # and py-spy's raw samples

A small run of bench/load.py's own machinery (its stack, bots and phases; the same server command, one uvicorn
worker and a Celery worker), the project only: no bare app, one phase, a few tables. Beside load.py's line it
prints the web process's CPU and context switches per action for each of its threads, named as Python names them
(the sockets' pool, the publishers, the alarms' thread, the event loop: ``py-spy dump`` names them), read from
/proc before and after the phase, and the bytes and write calls of the process. With ``--spy`` it records the web
process with py-spy during the phase, the samples of the thread holding the interpreter's lock (``--spy-bin``:
where py-spy is; bench/RESULTS.md "The web process's own cost of an action, by thread"). At most 30 s a phase.
Everything listens on 127.0.0.1; every process it started is stopped and its database dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import bots, load, stack  # noqa: E402 - the project's root is on the path now

NAMES = re.compile(r"Thread (0x[0-9A-Fa-f]+|\d+) \(\w+\): \"([^\"]+)\"")


def thread_counts(pid: int) -> dict[int, tuple[float, float, int]]:
    """Per thread id of ``pid``: (user CPU seconds, system CPU seconds, context switches)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[float, float, int]] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            user, system = int(fields[11]) / tick, int(fields[12]) / tick
            switches = sum(
                int(line.split(":")[1])
                for line in (task / "status").read_text().splitlines()
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"))
            )
            out[int(task.name)] = (user, system, switches)
    return out


def written(pid: int) -> tuple[int, int]:
    """Bytes ``pid`` has written and the write calls it made (its sockets' sends among them): /proc's io."""
    fields = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
    return int(fields["wchar"]), int(fields["syscw"])


def thread_names(pid: int, spy: str) -> dict[int, str]:
    """Python's name of each thread of ``pid`` by its OS thread id, from ``py-spy dump``."""
    done = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60, check=False)
    names: dict[int, str] = {}
    for line in done.stdout.splitlines():
        m = NAMES.search(line)
        if m:
            tid = m.group(1)
            names[int(tid, 16) if tid.startswith("0x") else int(tid)] = m.group(2)
    return names


async def _play(server: load.Server, seats: list[dict], phase: load.Phase, args: argparse.Namespace) -> None:
    floor = load.Floor(args.seed)
    players, listeners = await load.open_floor(server, floor, seats)
    stop = asyncio.Event()
    ticker = asyncio.ensure_future(load.ticker([p for p in players if isinstance(p, load.Bot)], stop))
    pid = server.pids[0]
    web = [p.pid for p in stack.tree(pid)][-1]  # uvicorn's worker (or the process itself)
    spying = None
    before, wrote = thread_counts(web), written(web)
    if args.spy:
        spying = subprocess.Popen(
            [args.spy_bin, "record", "--pid", str(web), "--format", "raw", "-o", args.spy]
            + [
                "--duration",
                str(int(args.seconds)),
                "--rate",
                str(args.spy_rate),
                "--threads",
                "--gil",
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    try:
        await load.run_phase(server, floor, players, phase, args.seed, 10.0)
        after, wrote = thread_counts(web), tuple(a - b for a, b in zip(written(web), wrote, strict=True))
        names = await asyncio.to_thread(thread_names, web, args.spy_bin)
    finally:
        stop.set()
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        await load.close(players, listeners)
        if spying is not None:
            spying.wait(timeout=60)
    actions = max(len(phase.made), 1)
    by: dict[str, list[float]] = {}
    for tid, (user, system, switches) in after.items():
        user0, system0, switches0 = before.get(tid, (0.0, 0.0, 0))
        name = re.sub(r"_\d+$", "_n", names.get(tid, "?"))
        row = by.setdefault(name, [0.0, 0.0, 0.0, 0.0])
        row[0] += (user - user0) * 1000 / actions
        row[1] += (system - system0) * 1000 / actions
        row[2] += (switches - switches0) / actions
        row[3] += 1
    print(f"  per action ({len(phase.made)} actions), by thread: CPU ms (user + system), switches (threads)")
    for name, (user, system, switches, count) in sorted(by.items(), key=lambda kv: -kv[1][2]):
        if user or system or switches:
            print(
                f"    {name:<20} {user + system:6.2f} ms ({user:5.2f} + {system:5.2f}) {switches:6.1f}  ({count:.0f})"
            )
    user, system, switches = (sum(v[i] for v in by.values()) for i in range(3))
    print(f"    all threads: {user + system:.2f} ms ({user:.2f} + {system:.2f}), {switches:.1f} switches")
    print(f"    written: {wrote[0] / actions / 1024:.1f} KiB in {wrote[1] / actions:.1f} write calls an action")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=40.0, help="offered actions/s (0: closed loop)")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--spy", default="", help="write py-spy's raw samples of the web process here")
    parser.add_argument("--spy-bin", default="py-spy", help="py-spy (thread names, --spy)")
    parser.add_argument("--spy-rate", type=int, default=200)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the web process")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 30.0)
    from config import embedded

    services = embedded.ensure_services(stack.ROOT / ".data")
    admin_url = services.database_owner_url
    env = stack.bench_env(services.as_env())
    procs = stack.Procs()
    try:
        stack.database_prepare(env, admin_url)
        seats = stack.make_club(env, args.tables)
        pids = stack.service_pids()
        load.Floor.chooser = bots.Chooser(env["DATABASE_URL"], tuple(bots.STRENGTHS), args.seed)
        extra = dict(e.split("=", 1) for e in args.env)
        server = load.start_server(procs, env, load.PROJECT_APP, 1, pids, extra_env=extra)
        try:
            name = "saturation" if not args.rate else load.offered(args.rate)
            phase = load.Phase(name, args.rate or None, args.seconds)
            started = time.monotonic()
            asyncio.run(_play(server, seats, phase, args))
            print(f"  ({time.monotonic() - started:.0f} s with the sockets' opening)")
        finally:
            load.stop_server(procs, server)
    finally:
        if load.Floor.chooser is not None:
            load.Floor.chooser.close()
        procs.stop_all()
        stack.celery_purge(env)
        stack.finish(admin_url, stop_services=services.started)


if __name__ == "__main__":
    main()
