"""Point Django at a benchmark's own database on the embedded PostgreSQL, as its superuser.

A benchmark builds and migrates its database itself; the site's two roles stay with the site's
database (docs/settings-and-security.md, "The two database roles"). Shared by bench/ledger.py, bench/live_parts.py and
bench/stats.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from urllib.parse import quote, unquote, urlsplit

# Before anything of ``config`` is imported (its Celery app defaults to the production profile): the
# development profile, whose static files need no collectstatic; DEBUG is turned off below.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")


def _superuser() -> tuple[str, str]:
    """The embedded PostgreSQL's socket folder and its Redis URL (both started when not running)."""
    from config.embedded import ensure_services

    urls = ensure_services()
    return unquote(urlsplit(urls.database_url).netloc.rsplit("@", 1)[-1]), urls.redis_url


def drop_bench_database(db_name: str) -> None:
    """Drop database ``db_name`` (a benchmark's own, made by ``setup_bench_django``), whoever is on it."""
    import psycopg

    with psycopg.connect(dbname="postgres", user="postgres", host=_superuser()[0], autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')


def setup_bench_django(db_name: str, *, rebuild: bool) -> None:
    """Create database ``db_name`` if missing (drop it first with ``rebuild``) and set Django up on it."""
    host, redis_url = _superuser()
    import psycopg

    with psycopg.connect(dbname="postgres", user="postgres", host=host, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db_name]).fetchone()
        if rebuild and exists:
            conn.execute(f'DROP DATABASE "{db_name}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{db_name}"')
    url = f"postgresql://postgres@{quote(host, safe='')}/{db_name}"
    os.environ["DATABASE_URL"] = os.environ["DATABASE_OWNER_URL"] = url
    os.environ["REDIS_URL"] = redis_url
    # The development profile's DEBUG logs every query, which the site does not.
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["ALLOWED_HOSTS"] = "testserver"
    import django

    django.setup()


def timed(fn: Callable[[], object], repeat: int = 7) -> float:
    """Median wall milliseconds of ``fn()`` after one warm-up call."""
    import statistics
    import time

    fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
