"""The check the connection pool makes before handing out a connection (config/database/base.py): no
round trip while the connection is quiet, and a connection PostgreSQL has ended is replaced before use."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from django.db import connection
from psycopg_pool import ConnectionPool

from accounts.models import User
from config.database.base import check_when_stirred


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The round trips of the pool's check from now on: psycopg_pool asks a connection with an empty query
    (``ConnectionPool.check_connection``), which Django's query log does not see."""
    asked: list[Any] = []
    real = psycopg.Connection.execute

    def counted(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        if query == "":
            asked.append(self)
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", counted)
    return asked


@pytest.mark.django_db(transaction=True)
def test_a_quiet_pooled_connection_is_handed_out_without_a_round_trip(monkeypatch) -> None:
    assert connection.pool is not None and connection.settings_dict["CONN_HEALTH_CHECKS"]
    User.objects.count()
    asked = _asked(monkeypatch)
    for _ in range(5):
        connection.close()  # back to the pool
        User.objects.count()  # out of it again, checked
    assert asked == []


@pytest.mark.django_db(transaction=True)
def test_a_connection_postgresql_ended_is_replaced_before_it_is_used(monkeypatch) -> None:
    """On a pool of its own with the project's check (the site's pool is shared with the other tests of
    this process): the pooled connection's backend is ended, as a restart ends it; the next checkout is
    a working connection, not the dead one."""
    params = {**connection.get_connection_params(), "autocommit": True}
    with ConnectionPool(kwargs=params, min_size=1, max_size=1, check=check_when_stirred, timeout=10) as pool:
        with pool.connection() as conn:
            ended = conn.info.backend_pid
        asked = _asked(monkeypatch)
        with psycopg.connect(**params) as other:
            assert other.execute("SELECT pg_terminate_backend(%s)", [ended]).fetchone() == (True,)
            deadline = time.monotonic() + 10
            while other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [ended]).fetchone():
                assert time.monotonic() < deadline, "the backend did not end"
                time.sleep(0.05)
        with pool.connection() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)  # no error: the dead one was not handed out
            assert conn.info.backend_pid != ended
    assert asked  # the ended connection's socket had something to read: it was asked, failed and was dropped
