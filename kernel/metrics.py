"""Prometheus instruments of the live site, and the one-line hooks that feed them.

Lives beside the settings so that any app may call a hook without importing an app above it;
the scrape (``operations/scrape.py``) adds what is read at scrape time (queue depth, overdue
turns, ledger verification). With several web processes set ``PROMETHEUS_MULTIPROC_DIR`` (an
empty folder per host, before the processes start): each process writes its values there and
the scrape adds them up.

Counts made by Celery workers (timeouts) live in Redis, so that any web process can report them
whichever worker, container or host applied the timeout.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.multiprocess import mark_process_dead

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

ACTIONS = Counter(
    "club_actions", "Player actions submitted (form or socket), by outcome: applied or refused.", ["outcome"]
)
ACTION_SECONDS = Histogram(
    "club_action_seconds", "Time to apply one player action (lock, rules, books, commit).", buckets=LATENCY_BUCKETS
)
BROADCAST_SECONDS = Histogram(
    "club_broadcast_seconds",
    "From a version's announcement (after commit) to its frame sent on a socket.",
    buckets=LATENCY_BUCKETS,
)
LIVE_VERSIONS = Counter("club_live_versions", "Hand versions published to the live table (one public frame each).")
LIVE_RENDERS = Counter(
    "club_live_renders",
    "Live table frames rendered, by kind: public and private (the publisher), "
    "sync (a socket's full render on connect or sync), socket (a socket for a group message).",
    ["kind"],
)
LIVE_SOCKET_STATEMENTS = Counter(
    "club_live_socket_statements", "Database statements sockets ran while handling a group message."
)
OPEN_SOCKETS = Gauge("club_open_sockets", "Websockets open (tables and lobbies).", multiprocess_mode="livesum")

TIMEOUT_KEYS = {"task": "timeouts:task", "sweep": "timeouts:sweep"}

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # A process that ends takes its open sockets with it: drop its live gauge values.
    atexit.register(lambda: mark_process_dead(os.getpid()))


_APPLIED, _REFUSED = ACTIONS.labels(outcome="applied"), ACTIONS.labels(outcome="refused")


def timed_action(fn: Callable[P, R]) -> Callable[P, R]:
    """Count and time a service that applies a player's action (a refusal counts as refused)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        started = time.perf_counter()
        try:
            result = fn(*args, **kwargs)
        except Exception:
            _REFUSED.inc()
            raise
        ACTION_SECONDS.observe(time.perf_counter() - started)
        _APPLIED.inc()
        return result

    return wrapper


# What a socket is doing in this task or thread: handling a group message ("socket") or its own full render
# ("sync"); None elsewhere (the publisher). Context variables follow the work into sync_to_async's threads.
SOCKET_FORWARDING, SOCKET_SYNC = "socket", "sync"
_socket_work: ContextVar[str | None] = ContextVar("socket_work", default=None)
_RENDERS = {kind: LIVE_RENDERS.labels(kind=kind) for kind in ("public", "private", SOCKET_SYNC, SOCKET_FORWARDING)}


@contextlib.contextmanager
def socket_work(kind: str) -> Iterator[None]:
    """Within: renders count as ``kind`` (SOCKET_FORWARDING or SOCKET_SYNC), and with SOCKET_FORWARDING the
    statements of ``socket_statements_counted`` functions count too."""
    token = _socket_work.set(kind)
    try:
        yield
    finally:
        _socket_work.reset(token)


def live_rendered(kind: str) -> str:
    """Count one live frame rendered: ``kind`` ("public" or "private") in the publisher, else what the socket
    rendering it is doing; the kind counted."""
    counted = _socket_work.get() or kind
    _RENDERS[counted].inc()
    return counted


def live_version_published() -> None:
    LIVE_VERSIONS.inc()


def _statement_counted(execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: Any) -> Any:
    LIVE_SOCKET_STATEMENTS.inc()
    return execute(sql, params, many, context)


def socket_statements_counted(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` (run in a worker thread) with its statements counted when a socket runs it for a group
    message; otherwise as it is."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if _socket_work.get() != SOCKET_FORWARDING:
            return func(*args, **kwargs)
        from django.db import connection

        with connection.execute_wrapper(_statement_counted):
            return func(*args, **kwargs)

    return run


def stamped(message: dict[str, Any]) -> dict[str, Any]:
    """A group message carrying the time it was sent, for ``broadcast_observe`` on the other side."""
    return {**message, "sent_at": time.time()}


def broadcast_observe(event: dict[str, Any]) -> None:
    """Record how long a stamped group message took to reach this socket's frame."""
    sent = event.get("sent_at")
    if isinstance(sent, int | float):
        BROADCAST_SECONDS.observe(max(0.0, time.time() - sent))


def _redis_key(name: str) -> str:
    from django.conf import settings

    return f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:metrics:{name}"


def redis_client() -> Any:
    import redis
    from django.conf import settings

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def timeouts_applied(count: int, *, by: str) -> None:
    """Add ``count`` applied timeouts to the shared counter of ``by`` ("task" or "sweep"). Never raises."""
    if count <= 0:
        return
    try:
        client = redis_client()
        try:
            client.incrby(_redis_key(TIMEOUT_KEYS[by]), int(count))
        finally:
            client.close()
    except Exception:  # a metric must never break the work it counts
        log.warning("Could not count %s timeouts applied by the %s", count, by, exc_info=True)


def shared_counts() -> dict[str, int]:
    """The counters kept in Redis (raises when Redis does not answer)."""
    client = redis_client()
    try:
        keys = {by: _redis_key(key) for by, key in TIMEOUT_KEYS.items()}
        values = client.mget(list(keys.values()))
        return {by: int(v or 0) for by, v in zip(keys, values, strict=True)}
    finally:
        client.close()
