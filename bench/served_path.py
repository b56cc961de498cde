"""The web process's own cost per action, served: CPU and thread switches by thread, on a few tables.

    nice -n 10 .venv/bin/python bench/served_path.py                       # 8 tables, 40 actions/s, 20 s
    nice -n 10 .venv/bin/python bench/served_path.py --rate 0 --seconds 15  # closed loop (saturation)
    nice -n 10 .venv/bin/python bench/served_path.py --spy samples         # and py-spy's raw samples
    nice -n 10 .venv/bin/python bench/served_path.py --rate 3 --timeline   # where each action's wall time goes

A small run of bench/load.py's own machinery (its stack, bots and phases; the same server command, one uvicorn
worker and a Celery worker), the project only: no bare app, one phase, a few tables. Beside load.py's line it
prints the web process's CPU and context switches per action for each of its threads, named as Python names them
(the sockets' pool, the publishers, the alarms' thread, the event loop: ``py-spy dump`` names them), read from
/proc before and after the phase, and the bytes and write calls of the process. With ``--spy`` it records the web
process with py-spy during the phase, the samples of the thread holding the interpreter's lock (``--spy-bin``:
where py-spy is; bench/RESULTS.md "The web process's own cost of an action, by thread"). With ``--timeline`` it
serves bench/timeline_app.py (the site with each step of an action's path stamped) and prints how long each step
took, from the action's due time to its last screen, and which threads worked or waited in it (bench/RESULTS.md
"Where an action's wall time goes"). At most 30 s a phase.
Everything listens on 127.0.0.1; every process it started is stopped and its database dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


# The steps of an action's path, each (its name, its start, its end) in the timeline's stamps (ns); a pub's stamps
# are the publisher job of the version the action's screens waited for (the last forwarded).
STEPS: list[tuple[str, str, str]] = [
    ("bot's send to the socket's handler (client, uvicorn, loop)", "due", "recv"),
    ("loop -> sockets' pool thread", "recv", "pool_start"),
    ("the member's stamp (Redis)", "pool_start", "act_start"),
    ("hand_act to its commit", "act_start", "commit"),
    ("after the commit, in hand_act", "commit", "act_end"),
    ("pool -> loop (connection back, the answer)", "act_end", "ok_start"),
    ("action.ok written", "ok_start", "ok_sent"),
    ("commit -> publisher thread starts", "commit", "p.start"),
    ("  of it, behind the thread's job before", "p.submit", "p.free"),
    ("  of it, the thread's wake when free", "p.free", "p.start"),
    ("publisher: read (snapshot)", "p.start", "p.read_end"),
    ("publisher: stamps, renders, encode", "p.read_end", "p.here_start"),
    ("publisher -> loop (deliver_here to _put)", "p.here_start", "p.put"),
    ("publisher: Redis script (after deliver_here)", "p.here_end", "p.wire_end"),
    ("loop: _put -> last frame written", "p.put", "p.last"),
    ("last frame written -> last screen", "p.last", "shown"),
    ("due -> last screen (the bench's latency)", "due", "shown"),
]


def timeline_rows(path: str, phase: load.Phase, screens: dict[int, list[load.Watched]]) -> list[dict[str, Any]]:
    """Each action of the phase the timeline and every screen saw: its stamps (ns, the machine's monotonic clock)
    with the version its screens waited for, and its threads' figures."""
    by_key: dict[tuple[int, int, int], dict] = {}
    with contextlib.suppress(FileNotFoundError), open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            by_key[(record["table"], *record["key"])] = record
    rows = []
    for made in phase.made:
        record = by_key.get((made.table, *made.key))
        times = [w.first_showing(made.key) for w in screens[made.table]]
        if record is None or None in times or not record["pubs"]:
            continue
        last = max(record["pubs"], key=lambda p: max((t for _k, t in p["forwards"]), default=0))
        if not last["forwards"] or not all(k in last for k in ("start", "put", "here_end", "wire_end", "read_end")):
            continue
        row: dict[str, Any] = {k: v for k, v in record.items() if isinstance(v, int)}
        row.update({f"p.{k}": v for k, v in last.items() if isinstance(v, int)})
        statements = record.get("act_db", [])
        row["act_db_ns"], row["act_db_n"] = sum(statements), len(statements)
        row["lock_ns"] = statements[0] if statements else 0
        row["p.read_db_ns"] = sum(last.get("read_db", []))
        row["kind"] = "hand end" if len(record["pubs"]) > 1 else record.get("action", "?")
        row["p.last"] = max(t for _k, t in last["forwards"])
        # the publisher's start after the commit: behind the thread's job before it, then the thread's wake
        row["p.free"] = max(last["submit"], last.get("prev_end", 0))
        row["due"] = made.due * 1e9
        row["shown"] = max(t for t in times if t is not None) * 1e9
        row["versions"] = len(record["pubs"])
        row["frames"] = len(last["forwards"])
        rows.append(row)
    return rows


def timeline_print(rows: list[dict[str, Any]]) -> None:
    """Each step's median and p95 (ms), and the same over the slowest tenth of the actions."""
    if not rows:
        print("  timeline: no action seen whole")
        return
    slow = sorted(rows, key=lambda r: r["shown"] - r["due"])[int(len(rows) * 0.9) :]
    ms = 1e6

    def figures(of: list[dict[str, Any]], start: str, end: str) -> str:
        values = sorted((r[end] - r[start]) / ms for r in of if start in r and end in r)
        if not values:
            return "      -"
        return f"{load.percentile(values, 0.5):7.2f} {load.percentile(values, 0.95):7.2f}"

    print(f"  timeline of {len(rows)} actions (ms; all: p50 p95 | the slowest tenth, {len(slow)}: p50 p95)")
    for name, start, end in STEPS:
        print(f"    {name:<52} {figures(rows, start, end)} | {figures(slow, start, end)}")

    def mean(of: list[dict[str, Any]], key: str) -> float:
        return sum(r.get(key, 0) for r in of) / len(of) / ms

    for label, of in (("all", rows), ("slowest tenth", slow)):
        pool_wall = sum(r["pool_end"] - r["pool_start"] for r in of) / len(of) / ms
        pool_cpu = sum(r["pool_cpu1"] - r["pool_cpu0"] for r in of) / len(of) / ms
        pub_wall = sum(r["p.end"] - r["p.start"] for r in of) / len(of) / ms
        pub_cpu = sum(r["p.cpu1"] - r["p.cpu0"] for r in of) / len(of) / ms
        print(
            f"    {label}, means: pool thread {pool_wall:.2f} ms wall, {pool_cpu:.2f} CPU "
            f"(statements {mean(of, 'act_db_ns'):.2f} ms, {sum(r.get('act_db_n', 0) for r in of) / len(of):.1f}, the first {mean(of, 'lock_ns'):.2f}; "
            f"commit {mean(of, 'commit_ns'):.2f}, connection got {mean(of, 'connect_ns'):.2f} in "
            f"{sum(r.get('connect_n', 0) for r in of) / len(of):.1f}, back {mean(of, 'pool_close_ns'):.2f}); "
            f"publisher job {pub_wall:.2f} wall, {pub_cpu:.2f} CPU (read's statements {mean(of, 'p.read_db_ns'):.2f}, "
            f"connection got {mean(of, 'p.connect_ns'):.2f}, stamps {mean(of, 'p.stamps_ns'):.2f}, renders {mean(of, 'p.render_ns'):.2f} in "
            f"{sum(r.get('p.renders', 0) for r in of) / len(of):.1f}, connection back {mean(of, 'p.close_ns'):.2f}); "
            f"versions {sum(r['versions'] for r in of) / len(of):.2f}, frames forwarded {sum(r['frames'] for r in of) / len(of):.1f}"
        )
    kinds: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        kinds.setdefault(r["kind"], []).append(r)
    print(
        "    by kind: actions, in the slowest tenth; p50 due -> last screen, hand_act to its commit; means: statements, the first, commit"
    )
    for kind, of in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(
            f"      {kind:<10} {len(of):4d} {sum(r in slow for r in of):3d}  {figures(of, 'due', 'shown').split()[0]:>6} "
            f"{figures(of, 'act_start', 'commit').split()[0]:>6}  {mean(of, 'act_db_ns'):6.2f} {mean(of, 'lock_ns'):6.2f} "
            f"{mean(of, 'commit_ns'):6.2f}"
        )


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
        if args.timeline_out:
            await asyncio.sleep(4.0)  # the timeline's writer writes an action a few seconds after it
            timeline_print(timeline_rows(args.timeline_out, phase, load.screens_of(players)))
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
    parser.add_argument("--timeline", action="store_true", help="serve bench/timeline_app.py: each step's time")
    args = parser.parse_args()
    args.timeline_out = ""
    args.seconds = min(args.seconds, 30.0)
    with stack.served_club(args.tables) as club:
        load.Floor.chooser = bots.Chooser(club.env["DATABASE_URL"], tuple(bots.STRENGTHS), args.seed)
        try:
            extra = dict(e.split("=", 1) for e in args.env)
            app = load.PROJECT_APP
            if args.timeline:
                app = "bench.timeline_app:application"
                handle, args.timeline_out = tempfile.mkstemp(prefix="bench-timeline-")
                os.close(handle)
                extra["BENCH_TIMELINE_OUT"] = args.timeline_out
            server = load.start_server(club.procs, club.env, app, 1, club.pids, extra_env=extra)
            try:
                name = "saturation" if not args.rate else load.offered(args.rate)
                phase = load.Phase(name, args.rate or None, args.seconds)
                started = time.monotonic()
                asyncio.run(_play(server, club.seats, phase, args))
                print(f"  ({time.monotonic() - started:.0f} s with the sockets' opening)")
            finally:
                load.stop_server(club.procs, server)
                if args.timeline_out:
                    Path(args.timeline_out).unlink(missing_ok=True)
        finally:
            load.Floor.chooser.close()


if __name__ == "__main__":
    main()
