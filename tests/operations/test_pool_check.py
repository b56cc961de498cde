"""The check the connection pool makes before handing out a connection (config/database/base.py): no
round trip while the connection is quiet, and a connection PostgreSQL has ended is replaced before use."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from django.db import connection

from accounts.models import User


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
def test_connections_postgresql_ended_are_replaced_before_they_are_used(monkeypatch) -> None:
    User.objects.count()
    used = connection.connection.info.backend_pid
    connection.close()
    asked = _asked(monkeypatch)
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        # Every connection of the pool (this test database's, but the one asking), as a restart would.
        ended = [pid for (pid,) in other.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND usename = current_user").fetchall()]
        assert used in ended
        for pid in ended:
            other.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)", [ended]).fetchone():
            assert time.monotonic() < deadline, "the backends did not end"
            time.sleep(0.05)
    assert User.objects.count() >= 0  # no error: no dead connection was handed out
    assert connection.connection.info.backend_pid not in ended
    assert asked  # an ended connection's socket had something to read: it was asked, failed and was dropped
