"""Load on the live path: the real stack against a bare Channels app, in the same run, same server command.

    .venv/bin/python bench/load.py --workers 1,2 --seconds 10 --rounds 3   # the targets' table, 25-45 minutes
    .venv/bin/python bench/load.py --workers 1 --seconds 10 --rounds 1     # one round, 5-10 minutes
    .venv/bin/python bench/load.py --tables 2 --workers 1 --seconds 4      # a quick check of the script
    .venv/bin/python bench/load.py --soak 600                              # memory over ten minutes at 30/s
    .venv/bin/python bench/load.py --soak 600 --trace                      # the same under tracemalloc
    .venv/bin/python bench/load.py --workers 2 --proxy --rounds 1          # two web processes behind Caddy

Starts (or reuses) the embedded PostgreSQL and Redis of this checkout, makes a database of this run's own
(``bench_load_<pid>``, its channel-layer prefix too: two runs in one checkout do not meet), migrates it, and
creates a club of 300 members and 50 tables of six seats (half
Piranha with its betting round, half Piles), each dealt its first hand (bench/stack.py). For each worker
count it serves the site with the production command (and a Celery worker), opens one websocket per seat
(each logged in with its own session) and lets a bot per seat play: it reads its screen from its socket
(bench/screens.py, the one module that knows the frames) and, when the hand waits for it, chooses among
the actions offered as the engine's computer player of its strength would (bench/bots.py; the beginner by
default: bets, raises, calls, folds, drops, declares), or by its hand's strength as the screen words it
(bench/play.py) when the player's choice is not offered. A bot keeps to the site's limit on a socket's
messages (as a member's clicks do), and when a table's game ends (piranha.txt 3.3) one of its players deals
the next as the page's "Deal a new game" does, so that tables keep playing and an action left undone is
backlog, not a game that is over.
Then the bare app (bench/bare_app.py: one INSERT and one SELECT per message, a group send to six sockets)
runs under the same command. The sockets stay open across a server's phases:

- saturation (closed loop: each action is due when its screen offers it, and is sent at once);
- offered loads (``--rates``, actions/s over all tables): each table's actions are due at random
  (Poisson) arrival times; an action is sent at its due time or, when the table is still busy with the
  one before, as soon as its screen allows; a slot missed is never dropped, so a backlog shows. A table
  is offered 3 actions/s at most (two seats heads-up then send within the site's limit): fewer tables than
  a load needs run at the load they can take, said at the start.

Latency runs from an action's due time to each screen of its table showing the version it made or a newer
one (a screen shows every version up to the newest it has; frames a server coalesces are not counted
against it); the figure printed is to all six screens. Each phase ends with a drain (no new actions, up
to ``--drain`` seconds, until every action is on every screen): an action of the phase not on a screen
then is a lost update. Printed per phase: actions/s, screen updates/s (versions shown, per screen) and
table frames/s received, p50/p95/p99, errors, stale refusals, lost updates, CPU per process, the web
process's memory per open socket, and per version the live wing's counts read from /metrics
(bench/counters.py). CPU per process is printed in seconds and as the share of one core (the web server,
PostgreSQL with its backends, Redis, the Celery worker, the bots). A bare round whose p99 at the offered
load is over 100 ms (a stall of the machine, not of the app) is run three times in all; every attempt is
printed and the one at the median of the saturation's sends/s kept (never the last that passes, nor the best).

The ratio is on actions: the project's actions/s at saturation over the bare app's sends/s, when every
screen got every version (no lost update); the median of ``--rounds`` rounds. The targets are
printed beside the figures, held or not.

The soak (``--soak``) runs the plain site and samples its RSS and the backlog every 30 s; ``--trace`` runs
it under tracemalloc instead (what grew, by line; tracemalloc slows the process, so those figures are not
the plain site's). It says NOT held when fewer actions were done than were due, a backlog grows over the
last half, an error or a lost update occurred, or the RSS moved more than 10% over the last half.

Before the database is dropped, the club's books are printed: journal entries by kind and the chips they
moved, and whether the postings (each entry's, and all of them) and the accounts' balances sum to zero; the
script fails when they do not. Everything listens on 127.0.0.1, every phase and loop is bounded in time,
and every process this script started is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import heapq
import http.client
import json
import math
import os
import random
import secrets
import shutil
import signal
import statistics
import string
import sys
import tempfile
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import bots, counters, play, stack  # noqa: E402 - the project's root is on the path now
from bench.screens import FRAME, OK, REFUSED, STALE, Key, Screen, Turn, action_message, turn_of_area  # noqa: E402
from bench.stack import BARE_TABLE_SQL, MACHINE, SEATS, SWITCHES  # noqa: E402
from games.live.frames import RATE_COUNT, RATE_SECONDS  # noqa: E402 - the site's limit on a socket's messages

__all__ = ["BARE_TABLE_SQL", "choose", "main"]  # bench/live_parts.py takes the first two from here

DRAIN = 15.0  # seconds at most a phase's drain waits for its actions to reach every screen
CONNECT_SECONDS = 240.0  # at most, for every socket of a server to show its table
ANSWER_SECONDS = 10.0  # an action unanswered this long counts as an error and the bot goes on
PACE_COUNT = RATE_COUNT - 2  # a bot's own sends in RATE_SECONDS: the site's limit, a sync or two to spare
TABLE_RATE = 3.0  # the most actions/s a table is offered: two seats heads-up then send 1.5 a second each
SLOW_DOWN = "Too many messages"  # games/live/consumer.py: a message over the socket's limit, refused
STALL_MS = 100.0  # a bare round whose p99 at the offered load is above this is run again
STALL_ATTEMPTS = 3  # a stalled bare round is run this many times in all and the median attempt kept
SAMPLE_SECONDS = 30.0  # the soak's RSS samples
WARM_TABLES = 4  # tables whose sockets open before the web process's RSS is read for memory per socket
PROJECT_APP, BARE_APP, TRACED_APP = (
    "config.asgi:application",
    "bench.bare_app:application",
    "bench.traced_app:application",
)

# The live path's targets (one worker, the median of three rounds; 0.35 was the hope).
RATIO_TARGET = 0.30
SCALING_TARGET = 1.4
P95_TARGETS = {60.0: 50.0, 100.0: 100.0}  # offered actions/s: p95 ms
SOAK_GROWTH_TARGET = 0.10
BACKLOG_SECONDS = 5.0  # a soak whose backlog reaches this many seconds of its load did not keep up
SOCKET_MEMORY_TARGET = 1.25


T = TypeVar("T")

_PARTS_RNG = random.Random(27)  # the same choices run after run


def choose(html: str) -> str | None:
    """One of the actions ``html`` offers (a table area, or a private frame's own part), drawn by the hand's
    strength as the screen words it, never leaving the hand: bench/live_parts.py plays whole games with it
    (a Piranha game ends when one player alone stays in)."""
    return play.choose(turn_of_area(html, 0, 0), _PARTS_RNG, may_leave=False)


def median_attempt(attempts: list[T], key: Callable[[T], float]) -> T:
    """The attempt at the median of ``key`` (of an even number, the lower of the two middle ones): every
    attempt counts, neither the last one nor the best."""
    if not attempts:
        raise ValueError("no attempt")
    ordered = sorted(attempts, key=key)
    return ordered[(len(ordered) - 1) // 2]


def offered_rates(rates: list[float], tables: int) -> list[float]:
    """The offered loads a run of ``tables`` tables can take: at most TABLE_RATE actions/s a table, so that
    no seat is asked to send more than the site lets a socket send (a quick check at two tables would
    otherwise be refused 'Too many messages' and stop). Each kept once, in order."""
    most = TABLE_RATE * tables
    out: list[float] = []
    for rate in rates:
        if min(rate, most) not in out:
            out.append(min(rate, most))
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- a phase ------------------------------------------------------------------------------------


class Schedule:
    """A table's due times: Poisson arrivals at ``rate`` a second from ``start``. A slot taken and not used
    (the turn went, the action was refused as stale) goes back, to the table's next action."""

    def __init__(self, rate: float, start: float, rng: random.Random) -> None:
        self.rate, self.rng = rate, rng
        self.arrivals = [start + rng.expovariate(rate)]  # every due time drawn so far, in order
        self.taken = 0
        self.returned: list[float] = []

    def take(self) -> float:
        if self.returned:
            return heapq.heappop(self.returned)
        while self.taken >= len(self.arrivals):
            self.arrivals.append(self.arrivals[-1] + self.rng.expovariate(self.rate))
        self.taken += 1
        return self.arrivals[self.taken - 1]

    def due_by(self, moment: float) -> int:
        """How many actions were due at this table up to ``moment``."""
        while self.arrivals[-1] <= moment:
            self.arrivals.append(self.arrivals[-1] + self.rng.expovariate(self.rate))
        return bisect.bisect_right(self.arrivals, moment)

    def give_back(self, due: float) -> None:
        heapq.heappush(self.returned, due)


@dataclass
class Made:
    """An action applied: its table (the bare app: its group), the version it made, when it was due."""

    table: int
    key: Key
    due: float


@dataclass
class Phase:
    name: str
    rate: float | None  # offered actions/s over all tables; None: closed loop
    seconds: float
    started: float = 0.0
    ends: float = 0.0
    acting: bool = False
    schedules: dict[int, Schedule] = field(default_factory=dict)
    made: list[Made] = field(default_factory=list)
    done: int = 0  # actions applied and answered while the phase ran
    sent: int = 0  # actions sent that were due while the phase ran
    in_flight: int = 0
    errors: int = 0
    stale: int = 0
    syncs: int = 0  # full renders the screens asked for (a private part behind its public frame)
    error_words: Counter[str] = field(default_factory=Counter)
    chosen: Counter[str] = field(default_factory=Counter)  # the kinds of action the bots sent

    def begin(self, tables: list[int], seed: int) -> None:
        self.started = time.monotonic()
        self.ends = self.started + self.seconds
        if self.rate is not None:
            per_table = self.rate / len(tables)
            self.schedules = {t: Schedule(per_table, self.started, random.Random(seed * 7919 + t)) for t in tables}
        self.acting = True

    def undone(self) -> int:
        """Actions due while the phase ran (an offered load) that were never sent: the backlog it left."""
        return sum(s.due_by(self.ends) for s in self.schedules.values()) - self.sent if self.schedules else 0

    def slot(self, table: int, seen: float) -> float:
        """When the table's next action is due: at once in a closed loop (when the screen offered it)."""
        return seen if self.rate is None else self.schedules[table].take()

    def unused(self, table: int, due: float) -> None:
        if self.rate is not None:
            self.schedules[table].give_back(due)

    def applied(self, made: Made, now: float) -> None:
        self.made.append(made)
        if now <= self.ends:
            self.done += 1

    def refused(self, words: str, stale: bool) -> None:
        if stale:
            self.stale += 1
        else:
            self.errors += 1
            self.error_words[words[:80]] += 1


class Watched:
    """What one screen showed and when: the versions it advanced to, in order (keys only grow)."""

    def __init__(self) -> None:
        self.keys: list[Key] = []
        self.times: list[float] = []

    def shown(self, key: Key, now: float) -> None:
        self.keys.append(key)
        self.times.append(now)

    def first_showing(self, key: Key) -> float | None:
        """When this screen first showed ``key`` or a newer version; None if it never did."""
        i = bisect.bisect_left(self.keys, key)
        return self.times[i] if i < len(self.times) else None


# ---- the project's bots -------------------------------------------------------------------------


class Floor:
    """Every bot of a server, the phase they play, and per table how many players left the hand (the bots
    keep two in: bench/play.py)."""

    chooser: bots.Chooser | None = None  # the engine's players (main sets it; None: the screen's choice)

    def __init__(self, seed: int) -> None:
        self.phase: Phase | None = None
        self.gone: dict[int, tuple[int, int]] = {}
        self.rng = random.Random(seed)
        self.dealing: set[int] = set()  # tables whose game ended, a new game being dealt
        self.new_games = 0  # games dealt again at their table (every phase of this server)

    async def choose(self, turn: Turn, user_id: int, table: int) -> str | None:
        """A seat's choice. A leave is held for it while it decides: the table's other seats decide at the same
        time (a sealed decision), and without the hold all could leave and end the game (play.py)."""
        may_leave = self.may_leave(table, turn.hand)
        if may_leave:
            self.left(table, turn.hand, 1)
        if self.chooser is None:
            value = play.choose(turn, self.rng, may_leave=may_leave)
        else:
            value = await self.chooser.choose(turn, user_id, may_leave=may_leave)
        leaving = value is not None and play.leaves(value)
        if may_leave != leaving:  # the held leave not taken, or a leave that was the only offer
            self.left(table, turn.hand, 1 if leaving else -1)
        return value

    def may_leave(self, table: int, hand: int) -> bool:
        held, count = self.gone.get(table, (hand, 0))
        return held != hand or count < SEATS - 2

    def left(self, table: int, hand: int, change: int) -> None:
        held, count = self.gone.get(table, (hand, 0))
        self.gone[table] = (hand, (count if held == hand else 0) + change)


class Bot:
    """One seat: its socket, its screen, one action in flight at a time (as a person clicks and waits)."""

    def __init__(self, floor: Floor, seat: dict[str, Any]) -> None:
        self.floor = floor
        self.table = int(seat["table"])
        self.user = int(seat["user"])
        self.session = str(seat["session"])
        self.screen = Screen()
        self.watched = Watched()
        self.ws: Any = None
        self.task: asyncio.Task[None] | None = None
        self.waiting = False  # for the table's slot: nothing sent yet
        self.in_flight: tuple[Phase, float, str, Key, float] | None = None  # phase, due, value, turn, sent
        self.refused_at: Key = (-1, -1)  # the turn of the last action refused: not offered again as it was
        self.http = ""  # the server's address, for the 'Deal a new game' post
        self.sends: deque[float] = deque()  # when this socket sent its messages (the site's rate limit)

    async def connect(self, url: str) -> None:
        from websockets.asyncio.client import connect

        self.http = url.replace("ws://", "http://")
        headers = {"Cookie": f"sessionid={self.session}", "Origin": self.http}
        self.ws = await connect(
            f"{url}/ws/tables/{self.table}/",
            additional_headers=headers,
            max_size=None,
            open_timeout=120,
            ping_interval=None,
        )
        while not self.screen.ready:
            self.screen.hear(await self.ws.recv())

    async def listen(self) -> None:
        async for raw in self.ws:
            self.hear(raw, time.monotonic())

    def hear(self, raw: str | bytes, now: float) -> None:
        heard = self.screen.hear(raw, now)
        if heard.reply is not None:
            self.send_sync(heard.reply)
        if heard.kind == FRAME and heard.advanced and heard.key is not None:
            self.watched.shown(heard.key, now)
        elif heard.kind == OK and self.in_flight is not None and heard.key is not None:
            phase, due, _, _, _ = self.in_flight
            self.in_flight = None
            phase.in_flight -= 1
            phase.applied(Made(self.table, heard.key, due), now)
        elif heard.kind in (STALE, REFUSED) and self.in_flight is not None:
            phase, due, value, turn, _ = self.in_flight
            self.in_flight = None
            if not heard.words.startswith(SLOW_DOWN):  # refused for its pace, not its turn: it may try again
                self.refused_at = turn
            phase.in_flight -= 1
            phase.refused(heard.words, heard.kind == STALE)
            phase.unused(self.table, due)  # the table's next action takes the slot
            if play.leaves(value):
                self.floor.left(self.table, turn[0], -1)
        if self.screen.game_over and self.table not in self.floor.dealing:
            self.floor.dealing.add(self.table)
            asyncio.ensure_future(self.deal_new_game())
        self.poke(now)

    async def deal_new_game(self) -> None:
        """The table's game ended (piranha.txt 3.3): deal the next one as a player's 'Deal a new game' does,
        so that a table keeps playing and its due actions wait as backlog only while it is dealt."""
        try:
            for _ in range(3):
                try:
                    status: int | str = await asyncio.to_thread(post_new_game, self.http, self.session, self.table)
                except OSError as exc:  # no answer in time, or refused: said, and tried again
                    status = repr(exc)
                for _ in range(40):  # the new game's first frame, 10 s at most
                    if not self.screen.game_over:
                        self.floor.new_games += 1
                        return
                    await asyncio.sleep(0.25)
                print(f"    (table {self.table}: 'Deal a new game' answered {status}, no new game in 10 s)", flush=True)
        finally:
            self.floor.dealing.discard(self.table)

    def send_sync(self, message: str) -> None:
        if self.floor.phase is not None:
            self.floor.phase.syncs += 1
        self.sends.append(time.monotonic())
        asyncio.ensure_future(self.ws.send(message))

    def tick(self, now: float) -> None:
        """Ask ``sync`` when the private part has been behind for a while (bench/screens.py)."""
        message = self.screen.sync_due(now)
        if message is not None:
            self.send_sync(message)

    def turn(self) -> Turn | None:
        """The screen's turn, unless it is the one an action was just refused at (wait for a newer one)."""
        turn = self.screen.turn
        return None if turn is None or (turn.hand, turn.version) <= self.refused_at else turn

    def poke(self, now: float) -> None:
        """Act when the screen offers a turn and nothing is in flight."""
        if self.in_flight is not None and now - self.in_flight[4] > ANSWER_SECONDS:
            waited = self.in_flight[0]
            waited.refused("no answer in 10 s", stale=False)
            waited.in_flight -= 1
            self.in_flight = None
        phase = self.floor.phase
        if (
            phase is None
            or not phase.acting
            or self.in_flight is not None
            or self.turn() is None
            or (self.task is not None and not self.task.done())
        ):
            return
        self.task = asyncio.ensure_future(self.act(phase, now))

    async def act(self, phase: Phase, seen: float) -> None:
        """Take the table's next slot, wait for it, then choose from the newest turn on screen."""
        due = phase.slot(self.table, seen)
        wait = max(due - time.monotonic(), pace(self.sends, time.monotonic(), PACE_COUNT, RATE_SECONDS))
        if wait > 0:
            self.waiting = True
            try:
                await asyncio.sleep(wait)
            finally:
                self.waiting = False
        turn = self.turn()
        if turn is None or not phase.acting or self.in_flight is not None:
            phase.unused(self.table, due)
            return
        deciding = time.monotonic()
        value = await self.floor.choose(turn, self.user, self.table)
        if value is None or not phase.acting or self.in_flight is not None:
            phase.unused(self.table, due)
            if value is not None and play.leaves(value):
                self.floor.left(self.table, turn.hand, -1)  # not sent: the held leave goes back
            return
        due += time.monotonic() - deciding  # a player's thinking is not the server's latency
        self.in_flight = (phase, due, value, (turn.hand, turn.version), time.monotonic())
        phase.in_flight += 1
        phase.sent += due <= phase.ends
        phase.chosen[value.partition(":")[0] if not value.startswith("declare:") else value] += 1
        self.sends.append(time.monotonic())
        await self.ws.send(action_message(turn, value))


def pace(sends: deque[float], now: float, count: int, window: float) -> float:
    """Seconds to wait before a socket that sent at ``sends`` (oldest first; older than ``window`` are
    forgotten) may send again and stay within ``count`` messages in any ``window`` seconds: the site's
    limit per socket, which a member's clicks keep to (0.0: at once)."""
    while sends and sends[0] <= now - window:
        sends.popleft()
    if len(sends) < count:
        return 0.0
    return sends[len(sends) - count] + window - now


def post_new_game(base: str, session: str, table: int) -> int:
    """A seated player's 'Deal a new game' (games/views/tables.py table_new_game): the post with the member's
    session and a CSRF cookie and header of the bench's own (as a browser's form sends the page's token).
    Returns the HTTP status (302: done, or refused in words on the table page)."""
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    host, _, port = base.removeprefix("http://").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=ANSWER_SECONDS)
    try:
        conn.request(
            "POST",
            f"/tables/{table}/new-game/",
            body=b"",
            headers={
                "Cookie": f"sessionid={session}; csrftoken={token}",
                "X-CSRFToken": token,
                "Origin": base,
                "Referer": f"{base}/tables/{table}/",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        return conn.getresponse().status
    finally:
        conn.close()


# ---- the bare app's groups ----------------------------------------------------------------------


class BareGroup:
    """Six sockets on one group; the first sends, one message in flight (sent when due, after its own copy
    of the one before came back), the six record when each message reached them."""

    def __init__(self, floor: Floor, group: int) -> None:
        self.floor = floor
        self.table = group
        self.sockets: list[Any] = []
        self.screens = [Watched() for _ in range(SEATS)]
        self.echo = asyncio.Event()
        self.seq = 0
        self.frames = 0

    async def connect(self, url: str) -> None:
        from websockets.asyncio.client import connect

        self.sockets = [
            await connect(f"{url}/bare/{self.table}/", max_size=None, open_timeout=60, ping_interval=None)
            for _ in range(SEATS)
        ]

    async def listen(self) -> None:
        async def reader(i: int) -> None:
            async for raw in self.sockets[i]:
                now = time.monotonic()
                seq = int(json.loads(raw)["seq"])
                self.frames += 1
                self.screens[i].shown((0, seq), now)
                if i == 0 and seq == self.seq:
                    self.echo.set()

        await asyncio.gather(*(reader(i) for i in range(SEATS)))

    async def send_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            phase = self.floor.phase
            if phase is None or not phase.acting:
                await asyncio.sleep(0.05)
                continue
            due = phase.slot(self.table, time.monotonic())
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not phase.acting:
                continue
            self.seq += 1
            phase.sent += due <= phase.ends
            self.echo.clear()
            await self.sockets[0].send(json.dumps({"seq": self.seq}))
            try:
                await asyncio.wait_for(self.echo.wait(), timeout=ANSWER_SECONDS)
            except TimeoutError:
                phase.refused("no echo in 10 s", stale=False)
            phase.applied(Made(self.table, (0, self.seq), due), time.monotonic())


# ---- running a server's phases ------------------------------------------------------------------


@dataclass
class Row:
    """One phase's figures."""

    label: str
    actions: float  # actions (bare: sends) applied per second
    updates: float  # screen updates per second: versions shown, per screen
    frames: float  # table frames received per second
    p50: float
    p95: float
    p99: float
    errors: int
    stale: int
    lost: int
    undone: int = 0  # actions due in the phase (an offered load) never sent: the backlog left at its end
    syncs: int = 0
    private_frames: float = 0.0  # private frames received per action applied (the frames protocol)
    per_version: dict[str, float | None] = field(default_factory=dict)


def settle(phase: Phase, screens: dict[int, list[Watched]]) -> tuple[list[float], int, int]:
    """(latency to all six screens of each action that reached them, screen updates, lost updates)."""
    latencies: list[float] = []
    updates = lost = 0
    for made in phase.made:
        times = [w.first_showing(made.key) for w in screens[made.table]]
        shown = [t for t in times if t is not None]
        updates += len(shown)
        lost += len(times) - len(shown)
        if len(shown) == len(times):
            latencies.append(max(0.0, max(shown) - made.due))
    return latencies, updates, lost


async def drain(phase: Phase, screens: dict[int, list[Watched]], seconds: float) -> None:
    """Wait (``seconds`` at most) until no action is in flight and every action is on every screen."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if phase.in_flight <= 0 and settle(phase, screens)[2] == 0:
            return
        await asyncio.sleep(0.25)


@dataclass
class Server:
    """A running web server and what the bench reads off it."""

    app: str
    port: int  # where the bots connect: the web process, or the proxy in front of several
    pid: int  # the (first) web process
    named: dict[str, stack.Pids]
    metrics_dir: str
    pids: list[int] = field(default_factory=list)  # every web process
    metrics_port: int = 0  # a web process's own port: its /metrics adds up every process's counts
    sockets: int = 0
    per_socket_kib: float = float("nan")


async def open_floor(server: Server, floor: Floor, seats: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Connect every socket (the first WARM_TABLES tables' first, then the web process's RSS is read before
    and after the rest: memory per open socket); returns the players (bots or bare groups) and their
    listeners."""
    url = f"ws://127.0.0.1:{server.port}"
    players: list[Any]
    if server.app == BARE_APP:
        players = [BareGroup(floor, g) for g in range(len({s["table"] for s in seats}))]
    else:
        players = [Bot(floor, s) for s in seats]
    gate = asyncio.Semaphore(10)  # a few connects at a time: a storm of handshakes is not what is measured

    async def one(player: Any) -> None:
        async with gate:
            await player.connect(url)

    tables = sorted({p.table for p in players})
    warm = tables[: max(1, min(WARM_TABLES, len(tables) // 4))]  # every worker's first sockets: imports, caches
    first = [p for p in players if p.table in warm]
    await asyncio.wait_for(asyncio.gather(*(one(p) for p in first)), CONNECT_SECONDS)
    await asyncio.sleep(1)
    before = stack.rss_mib(server.pids)
    rest = [p for p in players if p not in first]
    await asyncio.wait_for(asyncio.gather(*(one(p) for p in rest)), CONNECT_SECONDS)
    await asyncio.sleep(2)
    sockets_after_first = sum(SEATS if isinstance(p, BareGroup) else 1 for p in rest)
    server.sockets = sockets_after_first + SEATS * len(warm)
    if sockets_after_first:
        server.per_socket_kib = (stack.rss_mib(server.pids) - before) * 1024 / sockets_after_first
    listeners = [asyncio.ensure_future(p.listen()) for p in players]
    return players, listeners


def screens_of(players: list[Any]) -> dict[int, list[Watched]]:
    screens: dict[int, list[Watched]] = defaultdict(list)
    for p in players:
        if isinstance(p, BareGroup):
            screens[p.table] = p.screens
        else:
            screens[p.table].append(p.watched)
    return screens


def frames_of(players: list[Any]) -> tuple[int, int]:
    """Table frames received by every screen so far: (public or whole-area frames, private frames)."""
    bots = [p for p in players if isinstance(p, Bot)]
    return (
        sum(p.frames for p in players if isinstance(p, BareGroup)) + sum(b.screen.frames for b in bots),
        sum(b.screen.private_frames for b in bots),
    )


async def run_phase(
    server: Server, floor: Floor, players: list[Any], phase: Phase, seed: int, drain_seconds: float
) -> Row:
    project = server.app != BARE_APP
    before = await asyncio.to_thread(counters.scrape, server.metrics_port) if project else {}
    counted = frames_of(players)
    dealt = floor.new_games
    cpu = stack.Cpu(server.named)
    cpu.start()
    tables = sorted({p.table for p in players})
    phase.begin(tables, seed)
    floor.phase = phase
    now = time.monotonic()
    for p in players:
        if isinstance(p, Bot):
            p.poke(now)
    await asyncio.sleep(phase.seconds)
    phase.acting = False
    for p in players:  # a bot waiting for a slot after the phase: its turn is the next phase's
        if isinstance(p, Bot) and p.waiting and p.task is not None:
            p.task.cancel()
    elapsed = time.monotonic() - phase.started
    used = cpu.stop()
    frames, private = (now_ - before_ for now_, before_ in zip(frames_of(players), counted, strict=True))
    screens = screens_of(players)
    await drain(phase, screens, drain_seconds)
    latencies, updates, lost = settle(phase, screens)
    after = await asyncio.to_thread(counters.scrape, server.metrics_port) if project else {}
    row = Row(
        phase.name,
        phase.done / elapsed,
        updates / elapsed,
        frames / elapsed,
        percentile(latencies, 0.5) * 1000,
        percentile(latencies, 0.95) * 1000,
        percentile(latencies, 0.99) * 1000,
        phase.errors,
        phase.stale,
        lost,
        phase.undone(),
        phase.syncs,
        private / max(phase.done, 1),
    )
    if project:
        row.per_version = counters.per_version(counters.difference(before, after), len(phase.made), SEATS)
    print_row(row, used, elapsed, len(phase.made))
    over = len({p.table for p in players if isinstance(p, Bot) and p.screen.game_over})
    if floor.new_games > dealt or over:
        print(
            f"    {floor.new_games - dealt} games ended and were dealt again at their table (their due actions wait "
            f"as backlog meanwhile); {over} of {len(tables)} tables' games over at the phase's end",
            flush=True,
        )
    if phase.chosen:
        total = sum(phase.chosen.values())
        chooser = floor.chooser
        by = f" (the engine's {'/'.join(chooser.strengths)} players {chooser.share():.0%})" if chooser else ""
        print(
            f"    the bots chose{by}: "
            + ", ".join(f"{kind} {count / total:.0%}" for kind, count in phase.chosen.most_common()),
            flush=True,
        )
    for words, count in phase.error_words.most_common(3):
        print(f"    {count} x {words!r}", flush=True)
    return row


def print_row(row: Row, used: dict[str, float], elapsed: float, actions: int) -> None:
    cpu = ", ".join(
        f"{k} {v:.1f}s ({v / elapsed:.0%})" for k, v in used.items() if k not in (SWITCHES, MACHINE)
    )  # (the share of one core)
    if MACHINE in used:  # what the two cores did: ours, and what the machine's other users took
        ours = sum(v for k, v in used.items() if k not in (SWITCHES, MACHINE))
        cores = os.cpu_count() or 1
        cpu += (
            f"; machine busy {used[MACHINE] / (elapsed * cores):.0%} of {cores} cores "
            f"(others {max(0.0, used[MACHINE] - ours):.1f}s)"
        )
    if actions:
        cpu += (
            f"; per action: uvicorn {used.get('uvicorn', 0.0) / actions * 1000:.1f} ms, "
            f"{used.get(SWITCHES, 0.0) / actions:.0f} switches"
        )
    print(
        f"  {row.label:<22} actions/s {row.actions:6.1f}  updates/s {row.updates:7.1f}  frames/s {row.frames:7.1f}"
        f"  to all six: p50 {row.p50:7.1f}  p95 {row.p95:7.1f}  p99 {row.p99:7.1f} ms  errors {row.errors}"
        f"  stale {row.stale}  lost {row.lost}  undone {row.undone}"
        + (f"  syncs {row.syncs}  private frames/action {row.private_frames:.2f}" if row.private_frames else "")
        + f"  | {elapsed:.0f} s, CPU {cpu}",
        flush=True,
    )
    if row.per_version and all(v is None for v in row.per_version.values()):
        print("    per version: the site exposes none of the live wing's counts (bench/counters.py LIVE)", flush=True)
    elif row.per_version:
        print(
            "    per version: "
            + ", ".join(f"{k} {'not exposed' if v is None else f'{v:.2f}'}" for k, v in row.per_version.items()),
            flush=True,
        )


async def close(players: list[Any], listeners: list[asyncio.Task[None]]) -> None:
    for task in listeners:
        task.cancel()
    for p in players:
        for ws in p.sockets if isinstance(p, BareGroup) else [p.ws]:
            if ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)
    await asyncio.gather(*listeners, return_exceptions=True)


async def ticker(bots: list[Bot], stop: asyncio.Event) -> None:
    while not stop.is_set():
        await asyncio.sleep(0.5)
        now = time.monotonic()
        for bot in bots:
            bot.tick(now)


async def play_server(
    server: Server, seats: list[dict[str, Any]], phases: list[Phase], seed: int, drain_seconds: float
) -> dict[str, Row]:
    floor = Floor(seed)
    players, listeners = await open_floor(server, floor, seats)
    print(
        f"  ({server.sockets} sockets open; {server.per_socket_kib:.0f} KiB of web process RSS per socket)", flush=True
    )
    stop = asyncio.Event()
    senders = [asyncio.ensure_future(p.send_loop(stop)) for p in players if isinstance(p, BareGroup)]
    senders.append(asyncio.ensure_future(ticker([p for p in players if isinstance(p, Bot)], stop)))
    rows: dict[str, Row] = {}
    try:
        for phase in phases:
            rows[phase.name] = await run_phase(server, floor, players, phase, seed, drain_seconds)
    finally:
        stop.set()
        floor.phase = None
        for task in senders:
            task.cancel()
        await asyncio.gather(*senders, return_exceptions=True)
        await close(players, listeners)
    return rows


def start_server(
    procs: stack.Procs,
    env: dict[str, str],
    app: str,
    workers: int,
    pids: dict[str, int],
    extra_env: dict[str, str] | None = None,
    proxy: bool = False,
) -> Server:
    """The app served by uvicorn with ``workers`` workers; or (``proxy``) by ``workers`` uvicorn processes of
    one worker each behind Caddy, as the deploy runs web replicas behind its proxy."""
    metrics_dir = tempfile.mkdtemp(prefix="bench-metrics-")  # every worker's counts, added up by a scrape
    run_env = {**env, "PROMETHEUS_MULTIPROC_DIR": metrics_dir, **(extra_env or {})}
    named: dict[str, stack.Pids] = {**pids, "bots": os.getpid()}
    ports = [stack.free_port() for _ in range(workers if proxy else 1)]
    webs = [
        procs.start(f"web{i or ''}", stack.server_command(app, p, 1 if proxy else workers), run_env)
        for i, p in enumerate(ports)
    ]
    named["uvicorn"] = [w.pid for w in webs]
    if app != BARE_APP:
        named["celery"] = procs.start("celery", stack.celery_command(), run_env).pid
    for i, (port, web) in enumerate(zip(ports, webs, strict=True)):
        stack.wait_port(port, web, procs.logs[f"web{i or ''}"])
    front = ports[0]
    if proxy:
        front = stack.free_port()
        folder = Path(metrics_dir) / "caddy"
        folder.mkdir()
        caddy_env = {**env, "HOME": str(folder), "XDG_DATA_HOME": str(folder), "XDG_CONFIG_HOME": str(folder)}
        caddy = procs.start("proxy", stack.proxy_command(front, ports, folder), caddy_env)
        named["caddy"] = caddy.pid
        stack.wait_port(front, caddy, procs.logs["proxy"])
    return Server(app, front, webs[0].pid, named, metrics_dir, [w.pid for w in webs], ports[0])


def stop_server(procs: stack.Procs, server: Server) -> None:
    """Stops the server's processes and says what errors they logged (a deadlock, an exception in a socket)."""
    errors = stack.server_errors(procs.stop("proxy"))
    for i in range(len(server.pids)):
        errors += stack.server_errors(procs.stop(f"web{i or ''}"))
    errors += stack.server_errors(procs.stop("celery"))
    if errors:
        print(f"  the server logged {sum(errors.values())} error lines:", flush=True)
        for words, count in errors.most_common(5):
            print(f"    {count} x {words}", flush=True)
    shutil.rmtree(server.metrics_dir, ignore_errors=True)


# ---- the modes ----------------------------------------------------------------------------------


@dataclass
class Round:
    project: dict[str, Row]
    bare: dict[str, Row]
    project_kib: float
    bare_kib: float
    stalled: bool = False  # the bare app stalled in each of its attempts

    @property
    def ratio(self) -> float:
        return self.project[SATURATION].actions / max(self.bare[SATURATION].actions, 1e-9)


SATURATION = "saturation"


def offered(rate: float) -> str:
    return f"offered {rate:.0f}/s"


def run_round(
    procs: stack.Procs,
    env: dict[str, str],
    seats: list[dict[str, Any]],
    pids: dict[str, int],
    workers: int,
    args: argparse.Namespace,
    seed: int,
) -> Round:
    rates = [float(r) for r in args.rates.split(",") if r]
    server = start_server(procs, env, PROJECT_APP, workers, pids, proxy=args.proxy)
    try:
        print("  project:", flush=True)
        project = asyncio.run(
            play_server(
                server,
                seats,
                [Phase(SATURATION, None, args.seconds)] + [Phase(offered(r), r, args.seconds) for r in rates],
                seed,
                args.drain,
            )
        )
    finally:
        stop_server(procs, server)
    attempts: list[tuple[dict[str, Row], float]] = []  # the bare app's rows and its memory per socket
    top = offered(max(rates))
    for attempt in range(1, STALL_ATTEMPTS + 1):
        server_bare = start_server(procs, env, BARE_APP, workers, pids, proxy=args.proxy)
        try:
            print(f"  bare app (attempt {attempt}):", flush=True)
            rows = asyncio.run(
                play_server(
                    server_bare,
                    seats,
                    [Phase(SATURATION, None, args.seconds), Phase(top, max(rates), args.seconds)],
                    seed,
                    args.drain,
                )
            )
        finally:
            stop_server(procs, server_bare)
        attempts.append((rows, server_bare.per_socket_kib))
        if attempt == 1 and rows[top].p99 <= STALL_MS:
            break
        if attempt == 1:
            print(
                f"  (the bare app's p99 at the offered load was over {STALL_MS:.0f} ms, a stall of the machine: "
                f"{STALL_ATTEMPTS} attempts in all, the median kept)",
                flush=True,
            )
    bare, bare_kib = median_attempt(attempts, lambda a: a[0][SATURATION].actions)
    stalled = all(a[0][top].p99 > STALL_MS for a in attempts)
    if len(attempts) > 1:
        print(
            "  bare app attempts, saturation sends/s: "
            + ", ".join(f"{a[0][SATURATION].actions:.1f} (p99 {a[0][top].p99:.0f} ms)" for a in attempts)
            + f"; kept the median: {bare[SATURATION].actions:.1f}/s",
            flush=True,
        )
    return Round(project, bare, server.per_socket_kib, bare_kib, stalled)


def held(ok: bool) -> str:
    return "held" if ok else "NOT held"


def socket_memory_verdict(project_kib: float, bare_kib: float) -> str:
    if math.isnan(project_kib) or math.isnan(bare_kib):
        return "not measured (too few tables)"
    return (
        f"project {project_kib:.0f} KiB, bare {bare_kib:.0f} KiB; target <= bare + 25%: "
        f"{held(project_kib <= bare_kib * SOCKET_MEMORY_TARGET)}"
    )


def print_targets(by_workers: dict[int, list[Round]], rates: list[float], seconds: float) -> None:
    print("\ntargets, measured on this machine in this run:")
    medians: dict[int, float] = {}
    for workers, rounds in by_workers.items():
        ratios = [r.ratio for r in rounds]
        medians[workers] = statistics.median(ratios)
        lost = sum(r.project[SATURATION].lost for r in rounds)
        every = "every screen got every version" if lost == 0 else f"NOT every version on every screen ({lost} lost)"
        if any(r.stalled for r in rounds):
            every += f"; the bare app stalled in {sum(r.stalled for r in rounds)} round(s), the machine busy"
        print(
            f"  {workers} worker(s): ratio on actions project/bare {medians[workers]:.3f} "
            f"(rounds {', '.join(f'{x:.3f}' for x in ratios)}; {every}); target >= {RATIO_TARGET}: "
            f"{held(medians[workers] >= RATIO_TARGET and lost == 0)}"
        )
        for rate in rates:
            rows = [r.project[offered(rate)] for r in rounds]
            p95 = statistics.median(row.p95 for row in rows)
            clean = all(
                row.errors == 0 and row.lost == 0 and row.undone <= max(5, rate * seconds * 0.02) for row in rows
            )
            target = P95_TARGETS.get(rate)
            verdict = (
                f"target < {target:.0f} ms, no error, no lost update, no backlog: {held(p95 < target and clean)}"
                if target is not None
                else "(no target at this rate)"
            )
            print(
                f"    at {rate:.0f}/s offered: done {statistics.median(row.actions for row in rows):.1f}/s, "
                f"p95 to all six {p95:.1f} ms, errors {sum(r.errors for r in rows)}, "
                f"lost {sum(r.lost for r in rows)}, left undone {sum(r.undone for r in rows)}; {verdict}"
            )
        figures = [r.project[SATURATION].per_version for r in rounds]
        for key in figures[0] if figures else []:
            values = [v for f in figures if (v := f.get(key)) is not None]
            shown = f"{statistics.median(values):.2f}" if values else "not exposed"
            print(f"    {key}: {shown}")
        kib = [(r.project_kib, r.bare_kib) for r in rounds]
        project_kib, bare_kib = statistics.median(k[0] for k in kib), statistics.median(k[1] for k in kib)
        print(f"    memory per open socket: {socket_memory_verdict(project_kib, bare_kib)}")
    if 1 in medians and 2 in medians:
        one = statistics.median(r.project[SATURATION].actions for r in by_workers[1])
        two = statistics.median(r.project[SATURATION].actions for r in by_workers[2])
        print(
            f"  two workers / one worker, project actions/s: {two / one:.2f} ({two:.1f} / {one:.1f}); "
            f"target >= {SCALING_TARGET}: {held(two / one >= SCALING_TARGET)}"
        )
    print("  real browsers (p95 < 50 ms on an idle machine): tests/e2e/test_live_table.py prints it, not this bench")


def run_load(
    procs: stack.Procs, env: dict[str, str], seats: list[dict[str, Any]], pids: dict[str, int], args: argparse.Namespace
) -> None:
    by_workers: dict[int, list[Round]] = {}
    for workers in [int(w) for w in args.workers.split(",") if w]:
        served = (
            f"{workers} uvicorn process(es) of one worker behind Caddy"
            if args.proxy
            else f"uvicorn --workers {workers}"
        )
        print(f"\n{served} (the same for both apps), {args.seconds:.0f} s a phase", flush=True)
        by_workers[workers] = []
        for n in range(1, args.rounds + 1):
            if args.rounds > 1:
                print(f" round {n} of {args.rounds}", flush=True)
            by_workers[workers].append(run_round(procs, env, seats, pids, workers, args, args.seed + n))
            print(f"  ratio on actions, project/bare: {by_workers[workers][-1].ratio:.2f}", flush=True)
    print_targets(by_workers, [float(r) for r in args.rates.split(",") if r], args.seconds)


# ---- the soak -----------------------------------------------------------------------------------


def traced_lines(out: str, pid: int) -> list[dict[str, Any]]:
    """What bench/traced_app.py wrote so far (one worker: the server's own process)."""
    path = Path(f"{out}.{pid}")
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def traced(server: Server, out: str, sig: int, wait: float = 20.0) -> dict[str, Any]:
    """Signal the traced web process and wait (``wait`` seconds at most) for the line it writes."""
    count = len(traced_lines(out, server.pid))
    os.kill(server.pid, sig)
    for _ in range(int(wait * 10)):
        await asyncio.sleep(0.1)
        lines = traced_lines(out, server.pid)
        if len(lines) > count:
            return lines[-1]
    return {}


@dataclass
class SoakSample:
    at: float  # seconds since the soak began
    rss: float  # the web process's RSS, MiB (traced: less tracemalloc's own bookkeeping)
    backlog: int  # actions due so far and not yet sent


def soak_verdict(samples: list[SoakSample], due: int, done: int, errors: int, lost: int, rate: float) -> list[str]:
    """The soak's judgement, one line a target and a last line 'held' or 'NOT held': every action due done
    (1% to spare for the ones in flight at the end), no backlog of BACKLOG_SECONDS of the offered load at any
    sample and none that grows over the last half (by more than a second of the load), no error or lost
    update, and the RSS within SOAK_GROWTH_TARGET over the last half (at least three samples; fewer cannot
    be judged, and so is not held)."""
    lines: list[str] = []
    kept = done >= due - max(5, due // 100)
    lines.append(
        f"done {done} of {due} actions due ({done / max(due, 1):.1%}), errors {errors}, lost {lost}: "
        f"{held(kept and errors == 0 and lost == 0)}"
    )
    half = [s for s in samples if samples and s.at >= samples[-1].at / 2]
    if len(half) < 3:
        lines.append("too short to judge the RSS and the backlog: they are read over the last half, 3 samples at least")
        lines.append("soak: NOT held (not judged)")
        return lines
    grew = half[-1].backlog - half[0].backlog
    peak = max(samples, key=lambda x: x.backlog)
    flat = grew <= max(5, rate) and peak.backlog <= max(5, rate * BACKLOG_SECONDS)
    lines.append(
        f"backlog: at most {peak.backlog} actions ({peak.backlog / max(rate, 1e-9):.0f} s of the load, at "
        f"{peak.at:.0f} s); over the last half ({half[0].at:.0f} s to {half[-1].at:.0f} s) {half[0].backlog} -> "
        f"{half[-1].backlog}; target: never {BACKLOG_SECONDS:.0f} s of the load behind, no growth over the last "
        f"half: {held(flat)}"
    )
    levels = [x.rss for x in half]
    spread = (max(levels) - min(levels)) / min(levels)
    lines.append(
        f"RSS over the last half: {half[0].rss:.1f} -> {half[-1].rss:.1f} MiB, {min(levels):.1f} to "
        f"{max(levels):.1f} MiB ({spread * 100:.1f}%); target within {SOAK_GROWTH_TARGET * 100:.0f}%: "
        f"{held(spread <= SOAK_GROWTH_TARGET)}"
    )
    ok = kept and errors == 0 and lost == 0 and flat and spread <= SOAK_GROWTH_TARGET
    lines.append(f"soak: {held(ok)}")
    return lines


async def soak_server(server: Server, seats: list[dict[str, Any]], args: argparse.Namespace, out: str | None) -> None:
    """The soak on a plain server (``out`` None: RSS read off the process) or a traced one (``--trace``:
    tracemalloc's snapshots through bench/traced_app.py, its own bookkeeping taken off the RSS)."""
    floor = Floor(args.seed)
    players, listeners = await open_floor(server, floor, seats)
    print(
        f"  ({server.sockets} sockets open; {server.per_socket_kib:.0f} KiB of RSS per socket"
        + (", tracemalloc's own bookkeeping included)" if out else ")"),
        flush=True,
    )
    phase = Phase(f"soak {offered(args.soak_rate)}", args.soak_rate, args.soak)
    samples: list[SoakSample] = []

    async def sampler() -> None:
        if out:
            await traced(server, out, signal.SIGUSR2, wait=120.0)  # the first snapshot: growth is measured from here
        started = time.monotonic()
        while True:
            own = 0.0
            if out:
                line = await traced(server, out, signal.SIGUSR1)
                own = float(line.get("tracemalloc_bytes", 0)) / 2**20
            rss = stack.rss_mib(server.pid)
            now = time.monotonic()
            backlog = sum(x.due_by(now) for x in phase.schedules.values()) - phase.sent if phase.schedules else 0
            samples.append(SoakSample(now - started, rss - own, backlog))
            print(
                f"    {now - started:5.0f} s  RSS {rss:7.1f} MiB"
                + (f", less tracemalloc's own {own:6.1f} MiB: {rss - own:7.1f} MiB" if out else "")
                + f"; backlog {backlog} actions",
                flush=True,
            )
            await asyncio.sleep(SAMPLE_SECONDS)

    stop = asyncio.Event()
    tasks = [
        asyncio.ensure_future(sampler()),
        asyncio.ensure_future(ticker([p for p in players if isinstance(p, Bot)], stop)),
    ]
    try:
        row = await run_phase(server, floor, players, phase, args.seed, args.drain)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if out:
        last = await traced(server, out, signal.SIGUSR2, wait=120.0)  # a snapshot of a large heap takes a while
        print(
            "  top growth since the soak began (tracemalloc, by line):"
            if "growth" in last
            else "  (the web process wrote no growth in 120 s)"
        )
        for item in last.get("growth", []):
            print(f"    {item['bytes'] / 1024:+9.1f} KiB {item['blocks']:+7d} blocks  {item['where']}")
    await close(players, listeners)
    due = sum(x.due_by(phase.ends) for x in phase.schedules.values())
    for line in soak_verdict(samples, due, phase.done, row.errors, row.lost, args.soak_rate):
        print(f"  {line}", flush=True)


async def socket_memory(server: Server, seats: list[dict[str, Any]], seed: int) -> None:
    players, listeners = await open_floor(server, Floor(seed), seats)
    await close(players, listeners)


def run_soak(
    procs: stack.Procs, env: dict[str, str], seats: list[dict[str, Any]], pids: dict[str, int], args: argparse.Namespace
) -> None:
    """The bare app's memory per socket, then the site's, then the soak: on the plain site, or with
    ``--trace`` on the traced one (tracemalloc slows the process: its figures are not the plain site's)."""
    workers = 1  # the traced app's signals reach the one process that serves (bench/traced_app.py)
    print(
        f"\nsoak: uvicorn --workers {workers}, {args.soak:.0f} s at {args.soak_rate:.0f} actions/s offered", flush=True
    )
    kib = {}
    for app in (BARE_APP, PROJECT_APP):
        server = start_server(procs, env, app, workers, pids)
        try:
            asyncio.run(socket_memory(server, seats, args.seed))
            kib[app] = server.per_socket_kib
        finally:
            stop_server(procs, server)
    print(f"  memory per open socket: {socket_memory_verdict(kib[PROJECT_APP], kib[BARE_APP])}", flush=True)
    if not args.trace:
        server = start_server(procs, env, PROJECT_APP, workers, pids)
        try:
            asyncio.run(soak_server(server, seats, args, None))
        finally:
            stop_server(procs, server)
        return
    out = str(Path(tempfile.mkdtemp(prefix="bench-tracemalloc-")) / "lines")  # the server appends its pid
    server = start_server(procs, env, TRACED_APP, workers, pids, {"BENCH_TRACEMALLOC_OUT": out})
    try:
        asyncio.run(soak_server(server, seats, args, out))
    finally:
        stop_server(procs, server)
        shutil.rmtree(Path(out).parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2", help="uvicorn worker counts to run (default 1,2)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measured phase")
    parser.add_argument("--rates", default="60,100", help="offered loads, actions/s over all tables (default 60,100)")
    parser.add_argument("--tables", type=int, default=50, help="six-seat tables (default 50: 300 members)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per worker count; ratios are their median")
    parser.add_argument("--drain", type=float, default=DRAIN, help="longest wait for a phase's actions to arrive")
    parser.add_argument("--seed", type=int, default=27, help="the bots' choices and the arrival times")
    parser.add_argument("--soak", type=float, default=0.0, help="instead: a soak of this many seconds")
    parser.add_argument(
        "--players",
        default=",".join(bots.STRENGTHS),
        help="the engine's players the seats take turns at, e.g. beginner,solid (default beginner); 'screen': "
        "the screen's weighted choice (bench/play.py)",
    )
    parser.add_argument("--soak-rate", type=float, default=30.0, help="the soak's offered load (default 30/s)")
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="serve N workers as N web processes of one worker each behind Caddy (the deploy's proxy; caddy on "
        "the PATH), not one uvicorn with N workers",
    )
    parser.add_argument(
        "--trace", action="store_true", help="the soak under tracemalloc (what grew, by line; slower than plain)"
    )
    args = parser.parse_args()
    args.seconds, args.soak = min(args.seconds, 3600.0), min(args.soak, 4 * 3600.0)  # bounded, whatever is asked
    asked = [float(r) for r in args.rates.split(",") if r]
    rates = offered_rates(asked, args.tables)
    if rates != asked:
        print(
            f"offered loads {', '.join(f'{r:g}/s' for r in asked)} are more than {args.tables} tables' members may "
            f"send (at most {TABLE_RATE:g} actions/s a table; the site lets a socket send {RATE_COUNT} messages in "
            f"{RATE_SECONDS:g} s): offered {', '.join(f'{r:g}/s' for r in rates)} instead",
            flush=True,
        )
    args.rates = ",".join(f"{r:g}" for r in rates)
    args.soak_rate = min(args.soak_rate, TABLE_RATE * args.tables)

    with stack.served_club(args.tables, books=True) as club:
        if args.players != "screen":
            Floor.chooser = bots.Chooser(club.env["DATABASE_URL"], tuple(args.players.split(",")), args.seed)
        try:
            (run_soak if args.soak else run_load)(club.procs, club.env, club.seats, club.pids, args)
        finally:
            if Floor.chooser is not None:
                Floor.chooser.close()
    books = club.books
    if books is None or not books.whole:
        raise SystemExit("FAILED: the books do not balance (or could not be read)")


if __name__ == "__main__":
    main()
