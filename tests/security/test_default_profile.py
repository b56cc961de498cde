"""Without DJANGO_SETTINGS_MODULE, manage.py, the ASGI application and the Celery app run the production profile
(DEBUG off: a 500 never shows settings or service URLs), and without a SECRET_KEY they refuse to start rather
than fall back to the development profile. scripts/dev.py names the development profile itself."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.games.celery_worker import on_database

ROOT = Path(__file__).resolve().parent.parent.parent
PRINT = "from django.conf import settings; print('PROFILE', settings.SETTINGS_MODULE, 'DEBUG', settings.DEBUG)"
ENTRIES = {
    "manage.py": ["manage.py", "shell", "-c", PRINT],
    "asgi": ["-c", f"import config.asgi; {PRINT}"],
    "celery": ["-c", f"import django; from config.celery import app; django.setup(); {PRINT}"],
}


def run(args: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG"}}
    env.update(extra)
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("entry", ENTRIES)
def test_without_a_profile_the_production_one_runs(entry) -> None:
    done = run(ENTRIES[entry], SECRET_KEY=secrets.token_urlsafe(48))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "PROFILE config.settings.production DEBUG False" in done.stdout


@pytest.mark.parametrize("entry", ENTRIES)
def test_without_a_profile_or_a_secret_key_it_refuses_to_start(entry) -> None:
    done = run(ENTRIES[entry])
    assert done.returncode != 0 and "SECRET_KEY" in done.stderr
    assert "DEBUG True" not in done.stdout


def test_the_run_command_runs_the_development_profile() -> None:
    """`scripts/dev.py run` names the development profile before anything imports config (whose Celery app
    sets the production one). Pointed at a database that does not exist, its first step (migrate) must fail
    for want of that database, not for want of a production SECRET_KEY."""
    missing = on_database(os.environ["DATABASE_URL"], "no_such_database")
    # Its owner too, so its migrate neither reaches nor races on the embedded development database.
    owner_url = os.environ.get("DATABASE_OWNER_URL")
    owner = {"DATABASE_OWNER_URL": on_database(owner_url, "no_such_database")} if owner_url else {}
    # A short pool wait: the missing database's error is logged at the first attempt, not after 10 s.
    done = run(
        ["scripts/dev.py", "run"],
        DATABASE_URL=missing,
        **owner,
        REDIS_URL=os.environ["REDIS_URL"],
        PORT="8997",
        DB_POOL_TIMEOUT="3",
    )
    assert done.returncode != 0
    assert "no_such_database" in done.stderr, done.stderr[-3000:]
    assert "SECRET_KEY" not in done.stderr, done.stderr[-3000:]


def test_the_manage_command_runs_the_development_profile() -> None:
    done = run(["scripts/dev.py", "manage", "shell", "-c", PRINT])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "PROFILE config.settings.local" in done.stdout
