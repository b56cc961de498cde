"""No statement had a time limit: a file's huge id made one statement run for as long as it liked, after the
client had left. Every connection now sets ``statement_timeout`` by the kind of process
(config/database/timeouts.py): 5 s for the web processes, 60 s for Celery, 10 min for manage.py
(migrations as the owner role, the operator's commands) and scripts."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from django.db import OperationalError, connection, transaction

from config.database.timeouts import COMMAND, WEB, WORKER, process_timeout, statement_timeout

from .site import ROOT

pytestmark = pytest.mark.django_db


def test_the_application_roles_statements_end_after_a_few_seconds():
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == WEB == "5s"
    started = time.monotonic()
    with (
        pytest.raises(OperationalError, match="statement timeout"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT pg_sleep(30)")
    assert time.monotonic() - started < 15


def test_each_kind_of_process_has_its_stated_timeout():
    assert process_timeout(["/app/manage.py", "migrate"]) == COMMAND == "10min"
    assert process_timeout(["/usr/local/bin/celery", "-A", "config", "worker"]) == WORKER == "60s"
    assert process_timeout(["/venv/bin/celery"]) == process_timeout(["/venv/lib/celery/__main__.py"]) == WORKER
    assert process_timeout(["/venv/lib/python3.11/site-packages/uvicorn/__main__.py", "config.asgi:application"]) == WEB
    assert process_timeout(["/venv/bin/pytest"]) == process_timeout(["/venv/lib/pytest/__main__.py"]) == WEB
    assert process_timeout(["bench/players.py"]) == COMMAND
    assert statement_timeout(["manage.py"], {"DATABASE_STATEMENT_TIMEOUT": "2min"}) == "2min"


def test_the_operators_commands_and_migrations_get_the_longer_timeout():
    script = (
        "from django.db import connections\n"
        "for alias in connections:\n"
        "    with connections[alias].cursor() as c:\n"
        "        c.execute('SHOW statement_timeout'); print('TIMEOUT', alias, c.fetchone()[0])\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env.pop("DATABASE_STATEMENT_TIMEOUT", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = dict(line.split()[1:] for line in done.stdout.splitlines() if line.startswith("TIMEOUT "))
    assert shown["default"] == "10min"
    assert shown.get("owner", "10min") == "10min"
