"""The run command's set-up steps, in a fresh data folder: embedded PostgreSQL and Redis start,
migrate and seed_demo run against them, a second seed_demo adds nothing, and both servers stop.

The folder lives inside the checkout (git-ignored .data/) because pgserver, run as root,
hands it to its `pgserver` OS user, which must be able to reach it (every parent folder opened to it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from config.embedded import DEFAULT_DATA_DIR, ensure_services, stop_services

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_data_dir() -> Iterator[Path]:
    folder = DEFAULT_DATA_DIR / f"test-{uuid.uuid4().hex[:10]}"
    assert not folder.exists()
    try:
        yield folder
    finally:
        stop_services(folder)  # harmless if already stopped; never leave servers behind
        shutil.rmtree(folder, ignore_errors=True)


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def demo_counts(database_url: str) -> dict[str, int]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT m.role, count(*) FROM accounts_membership m JOIN accounts_club c ON c.id = m.club_id "
            "WHERE c.name = 'Demo club' GROUP BY m.role"
        ).fetchall()
        counts: dict[str, int] = dict(rows)
        for table in (
            "accounts_user",
            "accounts_club",
            "accounts_membership",
            "games_ruleset",
            "games_table",
            "ledger_journalentry",
        ):
            counts[table] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608 - fixed names
    return counts


def test_run_setup_starts_services_migrates_seeds_once_and_stops(fresh_data_dir):
    urls = ensure_services(fresh_data_dir)
    assert urls.started

    with psycopg.connect(urls.database_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert redis.Redis.from_url(urls.redis_url).ping()
    # Called again, it reuses the running servers (and says it started nothing).
    again = ensure_services(fresh_data_dir)
    assert again.as_env() == urls.as_env() and not again.started

    env = {**os.environ, **urls.as_env(), "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    env.pop("PYTEST_XDIST_WORKER", None)
    manage(env, "migrate", "--noinput", "--database", "owner")
    first = manage(env, "seed_demo", "--url", "http://127.0.0.1:8123/")
    assert "Demo club created" in first and "http://127.0.0.1:8123/" in first

    counts = demo_counts(urls.database_url)
    assert counts["organiser"] == 1 and counts["member"] == 4
    # Three agreed house rules and two open tables, plus the simulated tables with their books.
    assert counts["games_ruleset"] == 5 and counts["games_table"] == 4
    assert counts["ledger_journalentry"] > 0
    # After the simulated hands every demo member can still sit down (none below the credit limit).
    with psycopg.connect(urls.database_url) as conn:
        below = conn.execute(
            "SELECT count(*) FROM ledger_account a JOIN accounts_club c ON c.id = a.club_id "
            "WHERE a.kind = 'member' AND a.balance < -c.credit_limit"
        ).fetchone()[0]
    assert below == 0

    second = manage(env, "seed_demo")
    assert "already set up" in second
    assert demo_counts(urls.database_url) == counts

    stop_services(fresh_data_dir)
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(urls.redis_url, socket_connect_timeout=1).ping()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(urls.database_url, connect_timeout=2)
    assert not (fresh_data_dir / "pg" / "postmaster.pid").exists()
