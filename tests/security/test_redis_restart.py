"""A Redis restart in the middle of play (all of Redis's data gone, as with no persistence): the Celery worker
holding a turn's eta message lives on, the overdue timeout is applied exactly once, a new action's timeout
fires on time; a chat post and the first socket after the restart answer without a server error and heal.

Each test restarts a Redis of its own, not the embedded one the other tests share."""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connections
from django.test import Client
from kombu import pools as kombu_pools

import engine
from config.celery import app
from games import services
from games.models import ChatMessage, Hand, HandAction, Table
from tests.games.celery_worker import start_beat, start_worker, wait_for_two_more_sweeps, wait_until
from tests.games.helpers import make_table
from tests.games.test_consumers import communicator
from tests.security.services import OwnRedis

SCALE = "0.2"  # the house clock's 30 s turns run in 6 s


def _reset_celery_pools() -> None:
    # kombu keeps one connection pool per broker URL for the whole process: closing the current one
    # and leaving it registered would make every later publish of this process fail with "Acquire on
    # closed pool". Reset the registry too, so the next publish opens a fresh pool.
    if app._pool is not None:
        app._pool.force_close_all()
    kombu_pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def own_redis(tmp_path: Path, settings) -> Iterator[OwnRedis]:
    """This test's Redis for the cache, the channel layer and the Celery broker of this process."""
    server = OwnRedis(tmp_path / "redis")
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = server.url
    settings.CACHES = caches
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"] = [server.url]
    settings.CHANNEL_LAYERS = layers
    settings.TURN_CLOCK_SCALE = float(SCALE)
    broker = app.conf.broker_url
    settings.CELERY_BROKER_URL = server.url
    app.conf.broker_url = server.url
    _reset_celery_pools()
    assert app.connection_for_write().as_uri().endswith(f":{server.port}/0")
    try:
        yield server
    finally:
        app.conf.broker_url = broker
        _reset_celery_pools()
        server.stop()


def slow_table(setup, players, turn_seconds: int = 30) -> Table:
    """Piranha with a 30 s house clock (6 s scaled) unless told; nobody in after the drop ends the hand."""
    return make_table(
        setup.club, setup.organiser, engine.PiranhaRules(nobody_in="split", turn_seconds=turn_seconds), players=players
    )


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_redis_restart_while_the_worker_holds_a_turn_clock_loses_neither_worker_nor_timeout(
    club_setup, own_redis, procs, tmp_path
) -> None:
    a, b, c = club_setup.members
    env = {"TURN_CLOCK_SCALE": SCALE, "REDIS_URL": own_redis.url}
    worker = start_worker(tmp_path, ready=False, **env)  # beat starts beside it
    procs.append(worker)
    beat = start_beat(tmp_path, sweep_seconds=0.5, BEAT_HEARTBEAT_FILE=str(tmp_path / "beat-heartbeat"), **env)
    procs.append(beat)
    worker.wait_for("ready.")

    first = services.table_start(table_id=slow_table(club_setup, [a, b]).pk, user=a)
    worker.wait_for("hand_alarm[", timeout=10)  # the worker holds the hand's alarm (an eta message), unacknowledged
    own_redis.restart()
    wait_until(
        lambda: worker.text().count("Connected to redis") >= 2 or worker.popen.poll() is not None,
        30,
        "the worker did not reconnect",
    )
    assert worker.popen.poll() is None, f"the worker died:\n{worker.text()[-3000:]}"

    # The clock runs out 6 s after the deal: the overdue turn is applied once, by the alarm or the sweep.
    wait_until(lambda: Hand.objects.get(pk=first.pk).is_finished, 40, "the overdue timeout was never applied")
    wait_for_two_more_sweeps([worker])  # none applies it again
    rows = list(HandAction.objects.filter(hand=first).values_list("seat", "is_timeout"))
    assert sorted(rows) == [(1, True), (2, True)]
    beat.stop()

    # A new action after the restart: its clock (the house's 10 s, 2 s scaled) fires on the worker at its
    # deadline (no sweep runs now).
    started = time.monotonic()
    second = services.table_start(table_id=slow_table(club_setup, [b, c], turn_seconds=10).pk, user=b)
    wait_until(
        lambda: Hand.objects.get(pk=second.pk).is_finished, 20, f"the new clock did not fire:\n{worker.text()[-3000:]}"
    )
    assert 1 < time.monotonic() - started < 11
    wait_until(
        lambda: re.search(r"hand_alarm\[[^]]+\] succeeded in [0-9.e-]+s: True", worker.text()),
        5,
        f"the worker did not apply the new clock:\n{worker.text()[-3000:]}",
    )
    assert sorted(HandAction.objects.filter(hand=second).values_list("seat", "is_timeout")) == [(1, True), (2, True)]
    assert worker.popen.poll() is None


@pytest.fixture
async def close_thread_connections():
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
async def test_while_redis_restarts_chat_and_sockets_are_told_to_wait_and_heal_after(
    club_setup, own_redis, close_thread_connections
) -> None:
    a, b, _ = club_setup.members
    table = await database_sync_to_async(slow_table)(club_setup, [a, b])
    client = Client(raise_request_exception=False)
    await sync_to_async(client.force_login)(a, backend="django.contrib.auth.backends.ModelBackend")

    async def post(text: str) -> tuple[int, str]:
        """The chat form's answer and the page it leads to."""
        response = await sync_to_async(client.post)(f"/tables/{table.pk}/chat/", {"text": text}, follow=True)
        return int(
            response.redirect_chain[0][1] if response.redirect_chain else response.status_code
        ), response.content.decode()

    async def connect() -> tuple[bool, int | None]:
        """Whether the socket opened and stayed open, or the close code it was given."""
        comm = await communicator(f"/ws/tables/{table.pk}/", a)
        connected, code = await comm.connect(timeout=5)
        if connected:
            first = await comm.receive_output(timeout=5)
            if first["type"] == "websocket.close":
                return False, first["code"]
        await comm.disconnect()
        return bool(connected), code if not connected else None

    def stored() -> list[str]:
        return list(ChatMessage.objects.filter(table=table).order_by("pk").values_list("text", flat=True))

    assert (await post("before"))[0] == 302 and await connect() == (True, None)  # warm pooled connections

    await sync_to_async(own_redis.stop)()
    status, page = await post("while down")
    assert status == 302 and "The chat is unavailable for a moment" in page
    assert await connect() == (False, 1013)  # "try again": the page reconnects with backoff

    await sync_to_async(own_redis.start)()
    assert (await post("after"))[0] == 302 and await connect() == (True, None)
    await sync_to_async(own_redis.restart)(0.2)
    assert (await post("again"))[0] == 302 and await connect() == (True, None)
    assert await database_sync_to_async(stored)() == ["before", "after", "again"]


@pytest.mark.django_db(transaction=True)
async def test_a_logout_after_a_redis_restart_still_cuts_off_a_socket_granted_before_it(
    club_setup, own_redis, close_thread_connections
) -> None:
    """A restart forgets every access stamp. The member's socket holds the stamp it was last granted at (here
    after one bump, as any change of the account makes); a logout after the restart must give a stamp the
    socket does not hold: were stamps counted up from nothing again, it would be the same one, and the
    logged-out member's socket would go on forwarding the table's frames."""
    from games.live.access import access_bump
    from tests.games.test_consumers import hand_state, log_out, logged_in_socket, outputs_until_closed, piranha_table

    a, b, c = club_setup.members
    table = await piranha_table(club_setup)
    comm, cookie = await logged_in_socket(f"/ws/tables/{table.pk}/", a)
    await database_sync_to_async(access_bump)(a.pk)  # a changed their display name, say
    hand_id, version, _ = await hand_state(table)
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=b, action={"type": "in"}, version=version)
    while (await comm.receive_json_from(timeout=5))["type"] != "table.public":  # checked afresh, still allowed
        pass

    await sync_to_async(own_redis.restart)(0.2)
    await database_sync_to_async(log_out)(cookie)
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=c, action={"type": "in"}, version=version + 1)
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4401 and [m["type"] for m in sent if m["type"].startswith("table.")] == [], sent
    await comm.disconnect()


def test_a_threads_own_connection_broken_by_a_restart_still_answers_the_next_command(own_redis) -> None:
    """The access stamps and the publisher's script go to Redis on each thread's own connection (games/live/
    layer.py ``command``). A restart breaks it between two commands; the command after it is answered, not
    failed: an action's stamp read that failed would refuse the action, a publisher's send lose the version for
    the other web processes."""
    from games.live.access import access_bump, access_stamp_read

    access_bump(4242)
    assert access_stamp_read(4242) is not None
    own_redis.restart(0.2)
    assert access_stamp_read(4242) is None  # answered: the restart forgot the stamp
    access_bump(4242)
    assert access_stamp_read(4242) is not None
