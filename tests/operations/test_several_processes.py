"""More than one server process on the same PostgreSQL and Redis, as production scales them:
two separate uvicorn processes on two loopback ports (an action posted to one reaches the sockets
held by the other, every version in order, none lost), and two Celery workers with the beat sweep
beside them (each timeout applied exactly once)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import socket
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.db.models import Count
from django.test import Client

import engine
from accounts.models import User
from games import services
from games.models import Hand, HandAction, Table
from ledger.verify import ledger_problems
from tests.games.celery_worker import (
    ROOT,
    SWEPT,
    Proc,
    start_beat,
    start_worker,
    wait_for_two_more_sweeps,
    wait_until,
    worker_env,
)
from tests.games.helpers import make_table
from tests.games.test_async_worker import SCALE, quick_table

UVICORN = str(ROOT / ".venv" / "bin" / "uvicorn")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_web(tmp: Path, port: int, **env: str) -> Proc:
    proc = Proc(
        [
            UVICORN,
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--ws",
            "websockets-sansio",
            "--log-level",
            "info",
        ],
        worker_env(LOG_LEVEL="WARNING", **env),
        tmp / f"web-{port}.log",
    )
    proc.wait_for("Application startup complete", timeout=60)
    return proc


def session_of(user: User) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client.cookies["sessionid"].value


def announced(frame: str) -> tuple[int, int, bool] | None:
    """The (hand, version) a table socket's public frame announces, and whether it is the version's own frame
    (``at`` 0: sent once per version; a sync or a seat change makes another at a time) (None for any other
    frame)."""
    data = json.loads(frame)
    if data.get("type") != "table.public" or not isinstance(data.get("hand"), int):
        return None  # the public frames: every version's, the same bytes on every screen (docs/live.md)
    return data["hand"], data["version"], data.get("at") == 0


class Watcher:
    """A member's table socket on one server, recording every (hand, version) it announces."""

    def __init__(self, name: str, port: int, table_id: int, session: str) -> None:
        self.name, self.port, self.table_id, self.session = name, port, table_id, session
        self.seen: list[tuple[int, int]] = []
        self.versions: list[tuple[int, int]] = []  # the versions' own frames, as they came
        self.ready = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        from websockets.asyncio.client import connect

        origin = f"http://127.0.0.1:{self.port}"
        async with connect(
            f"ws://127.0.0.1:{self.port}/ws/tables/{self.table_id}/",
            origin=origin,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"sessionid={self.session}"},
            open_timeout=20,
        ) as ws:
            self.ready.set()
            while not stop.is_set():
                try:
                    frame = await asyncio.wait_for(ws.recv(), timeout=0.2)
                except TimeoutError:
                    continue
                found = announced(frame if isinstance(frame, str) else frame.decode())
                if found is not None:
                    self.seen.append(found[:2])
                    if found[2]:
                        self.versions.append(found[:2])


def post_action(port: int, session: str, hand: Hand, action: engine.Action) -> None:
    """The table page's plain form post, with its CSRF cookie and field."""
    token = secrets.token_hex(16)  # 32 characters: a CSRF secret the form repeats
    fields = {
        "csrfmiddlewaretoken": token,
        "hand": str(hand.pk),
        "version": str(hand.version),
        "action": action.type if action.choice is None else f"{action.type}:{action.choice}",
    }
    if action.amount is not None:
        fields["amount"] = str(action.amount)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/tables/{hand.table_id}/act/",
        data=urllib.parse.urlencode(fields).encode(),
        headers={"Cookie": f"sessionid={session}; csrftoken={token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310 - our own loopback server
        assert response.status == 200


def choose(state: Any, seat: int, step: int) -> engine.Action:
    """A legal action: stay in for the first steps so the hand has several versions, then leave."""
    actions = engine.legal_actions(state, seat)
    quitting = [a for a in actions if a.type in ("out", "fold")]
    staying = [a for a in actions if a.type not in ("out", "fold")]
    if step < 8 and staying:
        return staying[0]
    return (quitting or actions)[0]


@pytest.mark.django_db(transaction=True)
def test_an_action_posted_to_one_web_process_reaches_the_sockets_of_the_other(club_setup, procs, tmp_path):
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    first_port, second_port = free_port(), free_port()
    procs.extend([start_web(tmp_path, first_port), start_web(tmp_path, second_port)])
    sessions = {u.pk: session_of(u) for u in (a, b, c)}
    watchers = [Watcher(f"{u.username} on the second", second_port, table.pk, sessions[u.pk]) for u in (a, b, c)]
    watchers.append(Watcher(f"{a.username} on the first", first_port, table.pk, sessions[a.pk]))

    async def play() -> Hand:
        from asgiref.sync import sync_to_async

        stop = asyncio.Event()
        tasks = [asyncio.create_task(w.run(stop)) for w in watchers]
        try:
            await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), timeout=30)
            hand = await sync_to_async(services.table_start)(table_id=table.pk, user=a)
            await until_everyone_saw(hand.pk, 0)
            step = 0
            while True:
                hand = await sync_to_async(Hand.objects.get)(pk=hand.pk)
                state = engine.state_from_json(hand.state)
                if engine.is_over(state) or hand.finished_at is not None:
                    return hand
                seat = engine.to_act(state)[0]
                user_id = hand.players[str(seat)]
                # Every action goes to the first server; three of the sockets hang on the second.
                await sync_to_async(post_action)(first_port, sessions[user_id], hand, choose(state, seat, step))
                hand = await sync_to_async(Hand.objects.get)(pk=hand.pk)
                assert hand.version == step + 1 or hand.finished_at is not None, "the action was not applied"
                await until_everyone_saw(hand.pk, hand.version)
                step += 1
                assert step < 60, "the hand did not end"
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await sync_to_async(connections.close_all)()

    async def until_everyone_saw(hand_id: int, version: int) -> None:
        deadline = time.monotonic() + 15
        while not all((hand_id, version) in w.seen for w in watchers):
            if time.monotonic() > deadline:
                raise AssertionError(f"version {version} not seen: {[(w.name, w.seen) for w in watchers]}")
            await asyncio.sleep(0.02)

    hand = asyncio.run(play())
    assert hand.version >= 3
    expected = [(hand.pk, v) for v in range(hand.version + 1)]
    for watcher in watchers:
        # Every version, in order, none lost. The same version may come twice in a row: a seat change
        # re-renders the table area at the version it is at (it never goes back).
        of_hand = [pair for pair in watcher.seen if pair[0] == hand.pk]
        collapsed = [pair for i, pair in enumerate(of_hand) if i == 0 or pair != of_hand[i - 1]]
        assert collapsed == expected, f"{watcher.name} saw {of_hand}"
        assert watcher.seen == sorted(watcher.seen), f"{watcher.name}: out of order {watcher.seen}"
        # Each version's own frame exactly once, on the process that published it too (served there without
        # Redis, its echo from Redis dropped) as on the other.
        of_hand = [pair for pair in watcher.versions if pair[0] == hand.pk]
        assert of_hand == expected, f"{watcher.name}: the versions' frames came as {of_hand}"
    for proc in procs:
        assert "Traceback" not in proc.text(), proc.text()[-3000:]


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_two_workers_apply_each_timeout_exactly_once(club_setup, procs, tmp_path, settings):
    settings.TURN_CLOCK_SCALE = float(SCALE)
    a, b, c = club_setup.members
    organiser = club_setup.organiser
    workers = [start_worker(tmp_path, ready=False, TURN_CLOCK_SCALE=SCALE) for _ in range(2)]  # all three at once
    procs.extend(workers)
    procs.append(start_beat(tmp_path, sweep_seconds=0.5, TURN_CLOCK_SCALE=SCALE))
    for worker in workers:
        worker.wait_for("ready.")
    hands = []
    for players in (
        [a, b],
        [b, c],
        [a, c],
        [a, b, c],
        [organiser, a],
        [organiser, b],
        [organiser, c],
        [organiser, a, b, c],
    ):
        table: Table = quick_table(club_setup, players)
        hands.append(services.table_start(table_id=table.pk, user=players[0]))
    wait_until(
        lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], finished_at__isnull=True).exists(),
        40,
        "not every clock ran out and was applied",
        interval=0.2,
    )
    wait_for_two_more_sweeps(workers)  # and any late duplicate delivery: nothing is applied twice
    for hand in hands:
        rows = HandAction.objects.filter(hand=hand)
        assert {r.seat for r in rows} == {int(s) for s in hand.players} and all(r.is_timeout for r in rows)
    counts = (
        HandAction.objects.filter(hand__in=hands)
        .values("hand", "seat")
        .annotate(n=Count("id"))
        .values_list("n", flat=True)
    )
    assert set(counts) == {1}
    # Each hand's alarm went to one worker only; between them they took every one.
    received = Counter(task for w in workers for task in re.findall(r"hand_alarm\[([^]]+)\] received", w.text()))
    assert received and set(received.values()) == {1}
    applied = sum(len(re.findall(r"hand_alarm\[[^]]+\] succeeded in [0-9.e-]+s: True", w.text())) for w in workers)
    swept = sum(int(n) for n in SWEPT.findall(procs[2].text() + "".join(w.text() for w in workers)))
    assert applied + swept == len(hands)  # one round of timeouts ends each hand: one application each
    problems, _ = ledger_problems(club_id=club_setup.club.pk)
    assert problems == []


@pytest.mark.django_db(transaction=True)
def test_metrics_add_up_the_processes_of_one_server(club_setup, procs, tmp_path):
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    port = free_port()
    folder = tmp_path / "prometheus"
    folder.mkdir()
    proc = Proc(
        [
            UVICORN,
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "2",
            "--ws",
            "websockets-sansio",
            "--log-level",
            "info",
        ],
        worker_env(LOG_LEVEL="WARNING", PROMETHEUS_MULTIPROC_DIR=str(folder)),
        tmp_path / "web.log",
    )
    procs.append(proc)
    deadline = time.monotonic() + 60
    while proc.text().count("Application startup complete") < 2:
        assert time.monotonic() < deadline and proc.popen.poll() is None, proc.text()[-3000:]
        time.sleep(0.1)
    sessions = [session_of(u) for u in (a, b)]

    def open_sockets() -> list[float]:
        values = []
        for _ in range(6):  # several scrapes: the kernel hands them to either process
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:  # noqa: S310
                text = response.read().decode()
            values.append(float(re.search(r"^club_open_sockets (\S+)$", text, re.M).group(1)))  # type: ignore[union-attr]
        return values

    async def hold() -> list[float]:
        from websockets.asyncio.client import connect

        sockets = [
            await connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/",
                origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                additional_headers={"Cookie": f"sessionid={sessions[i % 2]}"},
                open_timeout=20,
            )
            for i in range(8)
        ]
        for ws in sockets:
            await asyncio.wait_for(ws.recv(), timeout=10)  # accepted and served its first view
        try:
            return await asyncio.to_thread(open_sockets)
        finally:
            for ws in sockets:
                await ws.close()

    assert asyncio.run(hold()) == [8.0] * 6
    assert len(list(folder.glob("*.db"))) >= 2  # both processes wrote their values
