"""Load on the live path: the real stack against a bare Channels app, in the same run, same server command.

    .venv/bin/python bench/load.py            # 1 and 2 workers, 20 s a phase (about 4 minutes)
    .venv/bin/python bench/load.py --workers 1 --seconds 10
    .venv/bin/python bench/load.py --workers 1,2 --seconds 10 --rounds 3   # medians of three rounds

Starts (or reuses) the embedded PostgreSQL and Redis of this checkout, makes a database ``bench_load``
(dropped at the end), migrates it, and creates a club of 300 members and 50 tables of six seats (half
Piranha, half Piles), each dealt its first hand. For each configuration (uvicorn with 1 and 2 workers,
the production command's flags) it starts the site and a Celery worker, opens one websocket per seat
(each logged in with its own session) and lets a bot per seat play: it reads its own table area from
its socket and, when the area says it is its turn, sends one of the actions the area offers. Then the
bare app (bench/bare_app.py: one INSERT and one SELECT per message, a group send to six sockets) runs
under the same server command. Per configuration it prints:

- saturation (closed loop: act as soon as the screen allows): actions/s and deliveries/s (table areas
  or bare updates received by sockets);
- at a fixed offered load (``--rate`` actions/s over all tables): p50/p95/p99 from an action to each
  screen of its table showing its version or a newer one (a screen is sent the newest version it has
  not shown, so a burst of sealed decisions reaches it as one area), errors, and lost updates (screens
  that had not shown an action's version when the phase ended, at least five seconds after it was sent);
- CPU seconds per process (uvicorn workers, Celery worker, PostgreSQL, Redis, the bots) per phase, and per action
  the web server's CPU and context switches (its threads handing the interpreter's lock to each other).

The last line is the ratio project/bare of deliveries/s at saturation. ``--rounds N`` runs the project
and the bare app in turn N times per configuration and prints the median of the rounds' ratios: this
machine's speed drifts by a fifth from one minute to the next. Everything listens on
127.0.0.1, every phase is bounded in time, and every process this script started is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from config.serve import APPLICATION, web_command  # noqa: E402 - the project's root is on the path now

BIN = ROOT / ".venv" / "bin"
DB_NAME = "bench_load"
SEATS = 6
TABLES = int(os.environ.get("BENCH_TABLES", "50"))  # --tables (a quick check of the script itself)
MEMBERS = TABLES * SEATS
PREFER = ("in", "check", "call", "declare:high", "declare:low", "bet", "raise", "declare:pig", "fold", "out")
BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]+)"')
# The bare app's table (bench/bare_app.py writes and reads it).
BARE_TABLE_SQL = ("CREATE TABLE bench_bare (id bigserial PRIMARY KEY, grp int, seq int)",
                  "CREATE INDEX ON bench_bare (grp, seq)")


def choose(html: str) -> str | None:
    """The action a bot takes from a table area: the first of PREFER among the buttons it offers."""
    offered = BUTTON.findall(html)
    return next((v for p in PREFER for v in offered if v == p or v.startswith(p + ":")), None)


def set_tables(count: int) -> None:
    global TABLES, MEMBERS
    TABLES, MEMBERS = count, count * SEATS
    os.environ["BENCH_TABLES"] = str(count)  # the set-up runs in a child process


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- the stack ----------------------------------------------------------------------------------

def in_bench_db(url: str) -> str:
    """The same server and role, database ``bench_load`` (the URL's path names the database)."""
    base, _, rest = url.partition("//")
    netloc_path, q, query = rest.partition("?")
    netloc, _, _ = netloc_path.partition("/")
    return f"{base}//{netloc}/{DB_NAME}" + (q + query if q else "")


def bench_env(services_env: dict[str, str]) -> dict[str, str]:
    """The application role on the bench's database (the owner role migrates it), production settings."""
    urls = {"DATABASE_URL": in_bench_db(services_env["DATABASE_URL"]),
            "DATABASE_OWNER_URL": in_bench_db(services_env["DATABASE_OWNER_URL"])}
    return {**os.environ, **services_env, **urls, "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": secrets.token_urlsafe(48), "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0", "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
            "LOG_LEVEL": "WARNING", "CHANNEL_LAYER_PREFIX": "bench",
            "CELERY_QUEUE": f"bench-{os.getpid()}"}  # a queue of this run's own: no other run's messages


def recreate_database(admin_url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def drop_database(admin_url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def setup_club() -> None:
    """Members, tables, seats, first hands and one session per member; prints them as JSON. Runs in a
    child process with the bench's environment (``make_club``)."""
    from importlib import import_module

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from accounts.models import Club, Membership, User
    from games import engine, services

    User.objects.bulk_create([User(username=f"bench{i}", email=f"bench{i}@example.org") for i in range(MEMBERS)])
    users = list(User.objects.filter(username__startswith="bench").order_by("pk"))
    club = Club.objects.create(name="Bench club", currency="USD", credit_limit=0)
    Membership.objects.bulk_create([Membership(club=club, user=u, role="organiser" if i == 0 else "member")
                                    for i, u in enumerate(users)])
    piranha = services.rule_set_create(club=club, user=users[0], name="Piranha", rules=engine.PiranhaRules(
        ante=25, match_cap=100, turn_seconds=3600), max_seats=SEATS, spectators_allowed=True)
    piles = services.rule_set_create(club=club, user=users[0], name="Piles", rules=engine.PilesRules(
        turn_seconds=3600), max_seats=SEATS, spectators_allowed=True)
    store = import_module(settings.SESSION_ENGINE).SessionStore
    seats = []
    for t in range(TABLES):
        rule_set = piranha if t % 2 == 0 else piles
        version = rule_set.versions.order_by("-number").first()
        assert version is not None
        table = services.table_create(club=club, user=users[0], name=f"T{t}", rule_version_id=version.pk)
        for s in range(SEATS):
            user = users[t * SEATS + s]
            services.seat_take(table_id=table.pk, user=user, number=s + 1, version_id=version.pk)
            session = store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            seats.append({"table": table.pk, "user": user.pk, "session": session.session_key})
        services.table_start(table_id=table.pk, user=users[t * SEATS])
    print(json.dumps({"seats": seats}))


def make_club(env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run([str(BIN / "python"), "-c", "from bench.load import setup_club; setup_club()"], cwd=ROOT,
                         env=env, check=True, capture_output=True, text=True, timeout=600)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


class Procs:
    """Processes this script started; stopped (process group) whatever happens."""

    def __init__(self) -> None:
        self.items: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        self.items[name] = proc
        return proc

    def stop(self, name: str) -> None:
        proc = self.items.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)

    def stop_all(self) -> None:
        for name in list(self.items):
            self.stop(name)


def server_command(app: str, port: int, workers: int) -> list[str]:
    """The production command (config/serve.py) serving ``app`` on loopback."""
    command = web_command(host="127.0.0.1", port=port, environ={},
                          extra=["--workers", str(workers), "--lifespan", "off", "--no-access-log"])
    return [app if part == APPLICATION else part for part in command]


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {(proc.stderr.read() if proc.stderr else b'').decode()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit("server did not start")


class Cpu:
    """CPU seconds per process between start() and stop() (uvicorn's with its workers; the bots' is this
    script's own), and the web server's context switches (its threads handing the interpreter's lock to
    each other, mostly)."""

    def __init__(self, named: dict[str, int]) -> None:
        self.named = named
        self.before: dict[str, float] = {}

    @staticmethod
    def _procs(pid: int) -> list[psutil.Process]:
        try:
            proc = psutil.Process(pid)
            # This script's own (the bots'): not its children, the servers it started, counted apart.
            return [proc] if pid == os.getpid() else [proc, *proc.children(recursive=True)]
        except psutil.Error:
            return []

    def _total(self, pid: int) -> float:
        total = 0.0
        for p in self._procs(pid):
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def _switches(self) -> float:
        """Of every thread of the web server's processes (psutil's count is the main thread's alone)."""
        total = 0.0
        for p in self._procs(self.named["uvicorn"]):
            for status in Path(f"/proc/{p.pid}/task").glob("*/status"):
                with contextlib.suppress(OSError, ValueError):
                    total += sum(int(line.split(":")[1]) for line in status.read_text().splitlines()
                                 if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")))
        return total

    def _all(self) -> dict[str, float]:
        return {**{name: self._total(pid) for name, pid in self.named.items()}, SWITCHES: self._switches()}

    def start(self) -> None:
        self.before = self._all()

    def stop(self) -> dict[str, float]:
        return {name: value - self.before.get(name, 0.0) for name, value in self._all().items()}


SWITCHES = "switches"  # the context switches of the web server's threads in a phase (Cpu)


def service_pids() -> dict[str, int]:
    """The embedded PostgreSQL (its postmaster: the backends are its children) and Redis of this checkout."""
    found: dict[str, int] = {}
    data = str(ROOT / ".data")
    for p in psutil.process_iter(["name", "cmdline"]):
        cmd = " ".join(p.info.get("cmdline") or [])
        name = p.info.get("name") or ""
        if "postgres" in name and " -D " in f" {cmd} " and data in cmd:
            found["postgres"] = p.pid
        elif "redis" in name and (data in cmd or str(embedded_redis_port()) in cmd):
            found["redis"] = p.pid
    return found


def embedded_redis_port() -> int:
    from config import embedded

    return embedded.redis_port_for(ROOT / ".data")


# ---- the bots -----------------------------------------------------------------------------------

@dataclass
class Made:
    """An action sent at a table: the (hand, version) it makes, when it was sent, and how many of the
    table's screens have shown that version or a newer one since."""

    key: tuple[int, int]
    t0: float
    screens: int = 0


@dataclass
class Stats:
    actions: int = 0
    deliveries: int = 0
    errors: int = 0
    stale: int = 0
    lost: int = 0  # screens that had not shown an action's version when the phase ended, LOST_AFTER on
    connected: int = 0
    latencies: list[float] = field(default_factory=list)
    sent: dict[tuple[int, int, int], float] = field(default_factory=dict)  # bare: (group, 0, seq) -> t0
    made: dict[int, list[Made]] = field(default_factory=lambda: defaultdict(list))  # project: by table
    error_words: Counter[str] = field(default_factory=Counter)  # what the refusals said


LOST_AFTER = 5.0  # seconds: an action older than this at a phase's end must be on every screen of its table


class Pacer:
    """At most ``rate`` actions a second at one table (None: as fast as screens allow). ``phase`` (a
    fraction of one period) spreads the tables' first actions over the period, so the offered load is
    steady, not every table at the same instant."""

    def __init__(self, rate: float | None, phase: float = 0.0) -> None:
        self.rate = rate
        self.phase = phase
        self.next: float | None = None
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if self.rate is None:
            return
        # One waiter at a time: seats waiting at once (sealed decisions) get a slot each, in turn, not the
        # same one.
        async with self.lock:
            now = time.monotonic()
            if self.next is None:
                self.next = now + self.phase / self.rate
            if self.next > now:
                await asyncio.sleep(self.next - now)
            self.next = max(now, self.next) + 1 / self.rate


async def project_bot(url: str, seat: dict[str, Any], origin: str, stats: Stats, pacers: dict[int, Pacer],
                      until: asyncio.Event, ready: asyncio.Event, gate: asyncio.Semaphore) -> None:
    from websockets.asyncio.client import connect

    table = int(seat["table"])
    headers = {"Cookie": f"sessionid={seat['session']}", "Origin": origin}
    async with gate:  # a few connects at a time: a storm of 300 handshakes is not what is measured
        ws = await connect(f"{url}/ws/tables/{table}/", additional_headers=headers, max_size=None,
                           open_timeout=120, ping_interval=None)
        first = json.loads(await ws.recv())
        while first.get("type") != "table.html":
            first = json.loads(await ws.recv())
    stats.connected += 1
    shown: tuple[int, int] = (-1, -1)
    pending: asyncio.Task[None] | None = None
    # One action in flight at a time, as a person clicks once and waits for the answer: a newer area
    # arriving meanwhile (another seat's sealed decision) does not send the same decision again.
    in_flight = False
    sent_at: tuple[int, int] = (-1, -1)
    last_turn: dict[str, Any] | None = None
    made = stats.made[table]
    first_open = 0  # made[:first_open] have all been on this screen; of the rest, those indexed in on_screen
    on_screen: set[int] = set()

    async def act() -> None:
        """The table's next slot, then a choice from the newest area shown: one that came meanwhile
        (another seat's sealed decision) is acted on, not the one shown when the wait began."""
        nonlocal in_flight, sent_at
        await pacers[table].wait()
        turn = last_turn
        if until.is_set() or in_flight or turn is None:
            return
        hand, version = int(turn["hand"]), int(turn["version"])
        value = choose(turn["html"])
        if (hand, version) != shown or value is None:  # older than what this seat's own action made, or no choice
            return
        in_flight, sent_at = True, (hand, version)
        key = (hand, version + 1)
        # Sealed decisions against one version: the first to arrive makes it (the others make the next).
        if not any(m.key == key for m in made[-SEATS:]):
            made.append(Made(key, time.monotonic()))
        await ws.send(json.dumps({"type": "action", "hand": hand, "version": version, "action": value}))

    def on_area(message: dict[str, Any], now: float, delivered: bool = True) -> None:
        nonlocal shown, last_turn, first_open, pending
        key = (int(message["hand"]), int(message["version"]))
        if ready.is_set() and delivered:
            stats.deliveries += 1
            # Every action whose version this screen shows now for the first time, or a newer one: a screen
            # is sent the newest version it has not shown, so the versions between are on it too.
            for index in range(first_open, len(made)):
                if index not in on_screen and made[index].key <= key:
                    on_screen.add(index)
                    made[index].screens += 1
                    stats.latencies.append(now - made[index].t0)
            while first_open in on_screen:
                on_screen.discard(first_open)
                first_open += 1
        if key < shown:
            return
        shown = key
        last_turn = message if message.get("your_turn") else None
        if last_turn is not None and not in_flight and (pending is None or pending.done()):
            pending = asyncio.ensure_future(act())

    async with ws:
        await ready.wait()  # then act on the area shown since connecting, if it is this seat's turn
        if first.get("hand") is not None:
            on_area(first, time.monotonic(), delivered=False)
        async for raw in ws:
            if until.is_set():
                break
            now = time.monotonic()
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "table.html" and message.get("hand") is not None:
                on_area(message, now)
            elif kind == "action.ok":
                stats.actions += 1
                in_flight = False
                # The action made the hand this version: areas rendered before it are old news (they
                # could still offer this seat the decision it has just made).
                shown = max(shown, (int(message["hand"]), int(message["version"])))
                if last_turn is not None:  # a newer turn came while the action was in flight
                    on_area(last_turn, now, delivered=False)
            elif kind == "error":
                if "moved on" in str(message.get("message")):
                    stats.stale += 1
                else:
                    stats.errors += 1
                    stats.error_words[str(message.get("message"))[:80]] += 1
                in_flight = False
                # Refused: choose again once the screen shows a newer turn (at once if it does already).
                if last_turn is not None and (int(last_turn["hand"]), int(last_turn["version"])) > sent_at:
                    on_area(last_turn, now, delivered=False)


async def bare_group(url: str, group: int, stats: Stats, rate: float | None, until: asyncio.Event,
                     ready: asyncio.Event) -> None:
    """Six sockets on one group; the first sends (closed loop: after its own copy came back)."""
    from websockets.asyncio.client import connect

    sockets = [await connect(f"{url}/bare/{group}/", max_size=None, open_timeout=60, ping_interval=None)
               for _ in range(SEATS)]
    echoed = asyncio.Event()

    async def reader(ws: Any, first: bool) -> None:
        async for raw in ws:
            now = time.monotonic()
            seq = int(json.loads(raw)["seq"])
            if ready.is_set():
                stats.deliveries += 1
                t0 = stats.sent.get((group, 0, seq))
                if t0 is not None:
                    stats.latencies.append(now - t0)
            if first:
                echoed.set()

    readers = [asyncio.ensure_future(reader(ws, i == 0)) for i, ws in enumerate(sockets)]
    seq = 0
    pacer = Pacer(rate, group / TABLES)
    try:
        await ready.wait()
        while not until.is_set():
            await pacer.wait()
            seq += 1
            echoed.clear()
            stats.sent[(group, 0, seq)] = time.monotonic()
            await sockets[0].send(json.dumps({"seq": seq}))
            stats.actions += 1
            try:
                await asyncio.wait_for(echoed.wait(), timeout=5)
            except TimeoutError:
                stats.errors += 1
    finally:
        for task in readers:
            task.cancel()
        for ws in sockets:
            await ws.close()


async def run_phase(kind: str, url: str, seats: list[dict[str, Any]], seconds: float,
                    rate: float | None, cpu: Cpu) -> tuple[Stats, dict[str, float]]:
    stats = Stats()
    until, ready = asyncio.Event(), asyncio.Event()
    per_table = None if rate is None else rate / TABLES
    if kind == "project":
        tables = sorted({int(s["table"]) for s in seats})
        pacers = {t: Pacer(per_table, i / len(tables)) for i, t in enumerate(tables)}
        gate = asyncio.Semaphore(10)
        tasks = [asyncio.ensure_future(project_bot(url, s, url.replace("ws://", "http://"), stats, pacers, until,
                                                   ready, gate)) for s in seats]
        deadline = time.monotonic() + 240
        while stats.connected < len(seats) and time.monotonic() < deadline:  # every socket past its first area
            await asyncio.sleep(0.5)
        print(f"  ({stats.connected} sockets connected)", flush=True)
    else:
        tasks = [asyncio.ensure_future(bare_group(url, g, stats, per_table, until, ready)) for g in range(TABLES)]
        await asyncio.sleep(5)
    cpu.start()
    started = time.monotonic()
    ready.set()
    await asyncio.sleep(seconds)
    until.set()
    ended = time.monotonic()
    elapsed = ended - started
    stats.lost = sum(SEATS - m.screens for made in stats.made.values() for m in made if m.t0 < ended - LOST_AFTER)
    used = cpu.stop()
    for task in tasks:
        task.cancel()
    failures = [r for r in await asyncio.gather(*tasks, return_exceptions=True)
                if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
    if failures:
        kinds = sorted({f"{type(f).__name__}: {str(f)[:120]}" for f in failures})
        print(f"  ({len(failures)} sockets failed: {'; '.join(kinds[:3])})", flush=True)
    return stats, {"elapsed": elapsed, **used}


def report(label: str, stats: Stats, info: dict[str, float]) -> dict[str, float]:
    elapsed = info["elapsed"]
    row = {"actions/s": stats.actions / elapsed, "deliveries/s": stats.deliveries / elapsed,
           "p50 ms": percentile(stats.latencies, 0.50) * 1000, "p95 ms": percentile(stats.latencies, 0.95) * 1000,
           "p99 ms": percentile(stats.latencies, 0.99) * 1000}
    cpu = ", ".join(f"{k} {v:.1f}s" for k, v in info.items() if k not in ("elapsed", SWITCHES))
    if stats.actions:
        cpu += (f"; per action: uvicorn {info.get('uvicorn', 0.0) / stats.actions * 1000:.1f} ms, "
                f"{info.get(SWITCHES, 0.0) / stats.actions:.0f} switches")
    lost = f"  lost {stats.lost}" if stats.made else ""  # the project's screens (the bare app's loop is closed)
    print(f"  {label:<28} actions/s {row['actions/s']:7.1f}  deliveries/s {row['deliveries/s']:8.1f}  "
          f"p50 {row['p50 ms']:7.1f} ms  p95 {row['p95 ms']:7.1f} ms  p99 {row['p99 ms']:7.1f} ms  "
          f"errors {stats.errors}  stale {stats.stale}{lost}  | CPU {cpu}", flush=True)
    for words, count in stats.error_words.most_common(3):
        print(f"    {count} x {words!r}", flush=True)
    return row


def run_pair(procs: Procs, env: dict[str, str], seats: list[dict[str, Any]], pids: dict[str, int],
             workers: int, seconds: float, rate: float) -> dict[str, dict[str, float]]:
    """The project's phases (saturation, then the offered load), then the bare app's, under the same server
    command with ``workers`` workers; each phase's row by ``"<app> <mode>"``."""
    rows: dict[str, dict[str, float]] = {}
    for app in ("project", "bare"):
        port = free_port()
        module = "config.asgi:application" if app == "project" else "bench.bare_app:application"
        server = procs.start("web", server_command(module, port, workers), env)
        named = {"uvicorn": server.pid, **pids, "bots": os.getpid()}
        if app == "project":
            worker = procs.start("celery", [str(BIN / "python"), "-m", "celery", "-A", "config", "worker", "--pool",
                                            "threads", "--concurrency", "4", "--loglevel", "WARNING"], env)
            named["celery"] = worker.pid
        wait_port(port, server)
        url = f"ws://127.0.0.1:{port}"
        for mode, offered in (("saturation", None), (f"offered {rate:.0f}/s", rate)):
            stats, info = asyncio.run(run_phase(app, url, seats, seconds, offered, Cpu(named)))
            rows[f"{app} {mode}"] = report(f"{app}, {mode}", stats, info)
        procs.stop("web")
        procs.stop("celery")
    return rows


def median_of(ratios: list[float], rounds: int) -> str:
    """A ratio as printed: alone, or the median of the rounds' with each round's in brackets."""
    middle = statistics.median(ratios)
    if rounds == 1:
        return f"{middle:.2f}"
    return f"{middle:.2f} (median of {', '.join(f'{r:.2f}' for r in ratios)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2", help="uvicorn worker counts to run (default 1,2)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    parser.add_argument("--rate", type=float, default=100.0, help="fixed offered load, actions/s over all tables")
    parser.add_argument("--tables", type=int, default=TABLES, help="six-seat tables (default 50: 300 members)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the project and the bare app in turn this many times per configuration; "
                             "the ratios are the median of the rounds' (this machine's speed drifts by a fifth)")
    args = parser.parse_args()
    set_tables(args.tables)

    from config import embedded

    services = embedded.ensure_services(ROOT / ".data")
    admin_url = services.database_owner_url  # the owner role may create databases
    env = bench_env(services.as_env())
    procs = Procs()
    ratios: list[str] = []
    action_ratios: list[str] = []  # a screen is sent the newest version it has not shown: fewer deliveries
    try:
        recreate_database(admin_url)
        subprocess.run([str(BIN / "python"), "manage.py", "migrate", "--database", "owner", "--noinput", "-v", "0"],
                       cwd=ROOT, env=env, check=True, timeout=600)
        import psycopg

        app_role = psycopg.conninfo.conninfo_to_dict(env["DATABASE_URL"]).get("user")
        with psycopg.connect(env["DATABASE_OWNER_URL"], autocommit=True) as conn:
            for statement in BARE_TABLE_SQL:
                conn.execute(statement)
            if app_role:
                conn.execute(f'GRANT SELECT, INSERT ON bench_bare TO "{app_role}"')
                conn.execute(f'GRANT USAGE ON SEQUENCE bench_bare_id_seq TO "{app_role}"')
        print(f"setting up {MEMBERS} members, {TABLES} tables x {SEATS} seats ...", flush=True)
        seats = make_club(env)["seats"]
        pids = service_pids()
        for workers in [int(w) for w in args.workers.split(",") if w]:
            print(f"\nuvicorn --workers {workers} (same command for both apps), {args.seconds:.0f} s a phase",
                  flush=True)
            by_round: list[tuple[float, float]] = []  # (deliveries, actions) ratio of each round
            for round_no in range(1, args.rounds + 1):
                if args.rounds > 1:
                    print(f" round {round_no} of {args.rounds}", flush=True)
                rows = run_pair(procs, env, seats, pids, workers, args.seconds, args.rate)
                project, bare = rows["project saturation"], rows["bare saturation"]
                by_round.append((project["deliveries/s"] / max(bare["deliveries/s"], 1e-9),
                                 project["actions/s"] / max(bare["actions/s"], 1e-9)))
            name = f"{workers} worker{'s' if workers > 1 else ''}"
            ratios.append(f"{name}: {median_of([d for d, _ in by_round], args.rounds)}")
            action_ratios.append(f"{name}: {median_of([a for _, a in by_round], args.rounds)}")
    finally:
        procs.stop_all()
        subprocess.run([str(BIN / "python"), "-m", "celery", "-A", "config", "purge", "-f", "-Q", env["CELERY_QUEUE"]],
                       cwd=ROOT, env=env, timeout=60, capture_output=True, check=False)  # this run's leftovers
        try:
            drop_database(admin_url)
        except Exception as exc:  # noqa: BLE001 - report and go on stopping
            print(f"could not drop {DB_NAME}: {exc}")
        if services.started:
            embedded.stop_services(ROOT / ".data")
    print("ratio project/bare, actions/s at saturation: " + "; ".join(action_ratios))
    print("ratio project/bare, deliveries/s at saturation: " + "; ".join(ratios))


if __name__ == "__main__":
    main()
