"""Health checks that mean something: /healthz probes reuse connections (a probe every few seconds must not
open a PostgreSQL session and a Redis connection each time), and beat's check fails once beat stops handing
tasks to Redis (dead, hung, or cut off from Redis) while the process may still be running."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.db import connection

from kernel.beat import heartbeat_age
from tests.games.celery_worker import ROOT, start_beat, wait_until, worker_env
from tests.security.services import OwnRedis, Uvicorn, http_get

PROBES = 30


def postgres_sessions() -> int:
    """Sessions ever opened on the test database (PostgreSQL's own counter)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def redis_connections(url: str) -> int:
    client = redis.Redis.from_url(url)
    try:
        return int(client.info("stats")["total_connections_received"])
    finally:
        client.close()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.mark.timeout(120)
@pytest.mark.django_db(transaction=True)
def test_health_probes_reuse_their_connections(own_redis, tmp_path) -> None:
    import asyncio

    server = Uvicorn(worker_env(REDIS_URL=own_redis.url, LOG_LEVEL="WARNING"), tmp_path / "uvicorn.log")
    try:
        assert asyncio.run(http_get(server.port, "/healthz"))[0] == 200  # the first probe opens what it needs
        time.sleep(1.5)  # PostgreSQL publishes its session counts about once a second
        sessions, received = postgres_sessions(), redis_connections(own_redis.url)
        for _ in range(PROBES):
            status, body = asyncio.run(http_get(server.port, "/healthz"))
            assert status == 200 and b'"ok": true' in body
        time.sleep(1.5)
        new_sessions = postgres_sessions() - sessions - 2  # the two counting queries' own sessions
        new_redis = redis_connections(own_redis.url) - received - 1  # the counting client's own
        assert new_sessions <= 1, f"{new_sessions} PostgreSQL sessions for {PROBES} probes"
        assert new_redis <= 1, f"{new_redis} Redis connections for {PROBES} probes"
    finally:
        server.stop()


def beat_health(heartbeat: Path, max_age: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "beat_health", "--max-age", str(max_age)],
        cwd=ROOT,
        env=worker_env(BEAT_HEARTBEAT_FILE=str(heartbeat)),
        capture_output=True,
        text=True,
        timeout=60,
    )


MAX_AGE = 2  # seconds: beat hands the sweep to Redis every half second, so a live heartbeat is younger


def heartbeat_older_than(heartbeat: Path, seconds: float) -> bool:
    age = heartbeat_age(path=heartbeat)
    return age is not None and age > seconds


@pytest.mark.celery
@pytest.mark.timeout(180)
@pytest.mark.django_db(transaction=True)
def test_the_beat_health_check_fails_when_beat_cannot_reach_redis_or_has_stopped(own_redis, procs, tmp_path) -> None:
    heartbeat = tmp_path / "beat-heartbeat"
    never = beat_health(heartbeat, MAX_AGE)
    assert never.returncode == 1 and "has not written its heartbeat" in never.stderr

    beat = start_beat(tmp_path, sweep_seconds=0.5, BEAT_HEARTBEAT_FILE=str(heartbeat), REDIS_URL=own_redis.url)
    procs.append(beat)
    beat.wait_for("Sending due task sweep-overdue-turns")  # a task handed to Redis, not only the start-up beat
    alive = beat_health(heartbeat, MAX_AGE)
    assert alive.returncode == 0 and "beat is alive" in alive.stdout, alive.stderr

    own_redis.stop()  # beat runs on, but hands nothing to Redis
    wait_until(lambda: heartbeat_older_than(heartbeat, MAX_AGE + 0.5), 30, f"beat still beats:\n{beat.text()[-3000:]}")
    assert beat.popen.poll() is None
    cut_off = beat_health(heartbeat, MAX_AGE)
    assert cut_off.returncode == 1 and f"old (more than {MAX_AGE}s)" in cut_off.stderr, cut_off.stdout

    own_redis.start()
    wait_until(lambda: not heartbeat_older_than(heartbeat, 1), 30, f"beat did not recover:\n{beat.text()[-3000:]}")
    assert beat_health(heartbeat, MAX_AGE).returncode == 0
    beat.stop()
    wait_until(lambda: heartbeat_older_than(heartbeat, MAX_AGE + 0.5), 30, "a stopped beat still beats")
    assert beat_health(heartbeat, MAX_AGE).returncode == 1
