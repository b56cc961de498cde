"""The operator commands (`scripts/dev.py manage ledger_verify`, `... manage changepassword`) work beside
the running site without DATABASE_URL: manage.py finds this checkout's embedded PostgreSQL and Redis as the run
command does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    return subprocess.run(
        [sys.executable, "scripts/dev.py", "manage", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.timeout(300)
def test_the_operator_commands_find_the_embedded_database_without_database_url() -> None:
    migrated = manage("migrate", "--database", "owner", "--noinput")  # as `scripts/dev.py run` does first
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    verified = manage("ledger_verify")
    assert verified.returncode == 0 and "the books balance" in verified.stdout, verified.stderr[-3000:]
    # A query on the accounts table ran (no such member), rather than a refused database connection.
    changed = manage("changepassword", "no-such-member-here")
    assert changed.returncode == 1 and "user 'no-such-member-here' does not exist" in changed.stderr, changed.stderr[
        -3000:
    ]
