"""Timestamps are read by psycopg's loader (C with psycopg[binary]), not Django's Python one, and come out as
Django's would: the same instants, aware, in ``datetime.timezone.utc`` itself (config/database/base.py)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import DataError, connection
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.utils import timezone
from psycopg.postgres import types
from psycopg.pq import Format

from accounts.models import User
from config.database.base import UtcTimestamptzLoader

TIMESTAMPTZ = types["timestamptz"].oid
EVERYDAY = (
    "SELECT now(), now() - interval '1 day 3 hours', '2001-02-03 04:05:06.789+05:30'::timestamptz,"
    " '1999-12-31 23:59:59.999999-08'::timestamptz, NULL::timestamptz"
)
VALUES = f"{EVERYDAY}, '0001-01-01 00:00:00+00'::timestamptz, '9999-12-31 23:59:59.999999+00'::timestamptz"


def _read(sql: str, *, djangos: bool) -> list[Any]:
    with connection.cursor() as cursor:
        if djangos:  # what Django's backend registers (psycopg_any.get_adapters_template)
            register_tzloader(datetime.UTC, cursor.cursor)
        cursor.execute(sql)
        return list(cursor.fetchone())


def _the_same(ours: list[Any], djangos: list[Any]) -> None:
    assert ours == djangos
    for mine, theirs in zip(ours, djangos, strict=True):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert mine.tzinfo is datetime.UTC and theirs.tzinfo is datetime.UTC
            assert mine.utcoffset() == datetime.timedelta(0) and repr(mine) == repr(theirs)


@pytest.mark.django_db
def test_timestamps_are_read_by_psycopgs_loader_as_django_reads_them() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT transaction_timestamp()")  # now() below: the same in both reads (one transaction)
        loader = cursor.cursor.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)
    assert loader is UtcTimestamptzLoader  # for the connection and for each cursor: Django registers none
    _the_same(_read(VALUES, djangos=False), _read(VALUES, djangos=True))
    user = User.objects.create(username="stamped", email="stamped@example.org", last_login=timezone.now())
    read = User.objects.get(pk=user.pk)
    assert read.last_login == user.last_login and read.last_login.tzinfo is datetime.UTC
    assert read.date_joined == user.date_joined and read.date_joined.tzinfo is datetime.UTC


@pytest.mark.django_db
def test_a_value_python_cannot_hold_fails_as_with_djangos_loader() -> None:
    for djangos in (False, True):
        with pytest.raises(DataError, match="too large"):
            _read("SELECT 'infinity'::timestamptz", djangos=djangos)


@pytest.mark.django_db
def test_a_connection_in_another_time_zone_reads_as_django_reads_it() -> None:
    """Django's loader only relabels a value as UTC; the connection is UTC whenever Django opened it. Should a
    session move it, the values read stay exactly Django's."""
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'America/New_York'")
    try:
        _the_same(_read(EVERYDAY, djangos=False), _read(EVERYDAY, djangos=True))
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")
