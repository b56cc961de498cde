"""A burst of page loads and socket connects against a real uvicorn process: PostgreSQL's connections stay
within the process's pool (persistent connections would keep one per request thread until PostgreSQL
refuses clients) and nothing answers a server error."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from django.test import Client
from websockets.asyncio.client import connect

import engine
from accounts.models import User
from tests.games.celery_worker import worker_env
from tests.games.helpers import make_table
from tests.security.services import Uvicorn, http_get

POOL = 6
WAVES = 5  # each wave alone asks for more connections than the pool: 16 were taken when the pool allowed 16
PER_WAVE = 50


def cookie_of(user: User) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return f"sessionid={client.cookies['sessionid'].value}"


class ConnectionCounter(threading.Thread):
    """Samples the server's connections to the test database every 50 ms; keeps the largest count."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        params = connection.get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        params.pop("prepare_threshold", None)
        self.conn = psycopg.connect(**params, autocommit=True)
        self.most = 0
        self.stopping = threading.Event()

    def count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()
        return int(row[0]) if row else 0

    def run(self) -> None:
        while not self.stopping.is_set():
            self.most = max(self.most, self.count())
            time.sleep(0.05)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)
        self.conn.close()


@pytest.mark.timeout(300)
@pytest.mark.django_db(transaction=True)
def test_a_burst_of_page_loads_and_sockets_stays_within_the_connection_pool(club_setup, tmp_path: Path) -> None:
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=club_setup.members[:2])
    cookies = [cookie_of(user) for user in club_setup.everyone]
    base = (
        connection.cursor()
        .connection.execute(  # the test's own connections (this one, the fixtures')
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend'"
        )
        .fetchone()[0]
    )
    connection.close()
    server = Uvicorn(
        worker_env(DB_POOL_MAX_SIZE=str(POOL), DB_POOL_TIMEOUT="30", LOG_LEVEL="WARNING"), tmp_path / "uvicorn.log"
    )
    counter = ConnectionCounter()
    counter.start()
    try:
        page = f"/tables/{table.pk}/"
        socket_url = f"ws://127.0.0.1:{server.port}/ws/tables/{table.pk}/"

        async def load(n: int) -> int:
            status, _ = await http_get(server.port, page, cookie=cookies[n % len(cookies)])
            return status

        async def open_socket(n: int) -> str:
            async with connect(
                socket_url,
                open_timeout=30,
                additional_headers={"Cookie": cookies[n % len(cookies)], "Origin": f"http://127.0.0.1:{server.port}"},
            ) as ws:
                first = await asyncio.wait_for(ws.recv(), 30)
                return str(first)[:40]

        async def wave() -> tuple[list[int], list[str]]:
            loads = asyncio.gather(*(load(n) for n in range(PER_WAVE)))
            sockets = asyncio.gather(*(open_socket(n) for n in range(PER_WAVE)), return_exceptions=True)
            statuses, frames = await asyncio.gather(loads, sockets)
            return list(statuses), [repr(f) if isinstance(f, BaseException) else f for f in frames]

        started = time.monotonic()
        for number in range(WAVES):
            assert time.monotonic() - started < 240, f"too slow: {number} waves in 240 s"
            statuses, frames = asyncio.run(wave())
            assert statuses == [200] * PER_WAVE, (number, sorted(set(statuses)), server.text()[-3000:])
            assert all('"type":"hand.view"' in f for f in frames), (number, frames[:3], server.text()[-3000:])
        counter.stop()
        # The server held at most its pool (plus the sampler and this test's own connections).
        assert counter.most - base <= POOL, f"{counter.most - base} server connections for a pool of {POOL}"
    finally:
        if counter.is_alive():
            counter.stop()
        server.stop()
