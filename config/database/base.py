"""Django's PostgreSQL backend, except for the check its connection pool makes before handing out a
connection (``CONN_HEALTH_CHECKS``).

psycopg_pool's own check sends an empty query on every checkout: one more round trip to PostgreSQL for
every request, every socket's action and every version a server process reads, unseen by Django's query
log. A connection that PostgreSQL is ending (a restart, a terminated backend, a server gone away on
this host or over TCP) says why and closes its end, so its socket has something to read while the
connection is idle; a healthy idle connection's has nothing. So the check looks at the socket, which
costs no round trip, and asks PostgreSQL (the pool's own check) only when there is something to read:
a dead connection then fails it, and the pool drops it and hands out another. A server that vanished
without closing (a cut network) is found only by the statement that fails, as without any check.
bench/pool_check.py measures a checkout: about a quarter less wall time and a third less CPU.

Timestamps are read by psycopg's own loader, in C with psycopg[binary] (``UtcTimestamptzLoader``). Django's
loader subclasses psycopg's Python one (the C class cannot be subclassed) to give each value the connection's
time zone as Django's tzinfo object; when that is UTC, psycopg's loader gives that same object
(``datetime.timezone.utc``) and the same instant, six to nine times cheaper (bench/action_books.py). Any other
time zone keeps Django's loader.

A connection can also die between that check and a statement (PostgreSQL restarting under load answers
"terminating connection due to administrator command" to the statement in flight). Where nothing can have
happened yet, the statement is sent once more on a fresh connection from the pool (``RetryOnce``): the first
statement of a transaction (nothing of it was sent before; the dead connection took its work with it), a
read outside a transaction, or a write outside one that PostgreSQL answered "terminating connection due to
administrator command" (57P01: it ended the session instead of completing the statement, so nothing was
committed). A statement after others of its transaction, or a write outside one whose connection just
vanished (it may have committed), is never sent twice: it fails as before.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import logging
import select
from typing import Any

import psycopg
from django.db import DatabaseError
from django.db.backends import utils
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg import abc
from psycopg.abc import AdaptContext
from psycopg.adapt import AdaptersMap, Loader
from psycopg.postgres import types as postgres_types
from psycopg.pq import Format
from psycopg.types.datetime import TimestamptzLoader
from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)


def check_when_stirred(conn: psycopg.Connection[Any]) -> None:
    """The pool's check (see the module's docstring): raises when the connection is no longer usable."""
    poller = select.poll()  # not select(): a busy server's descriptors go beyond its 1024
    poller.register(conn.fileno(), select.POLLIN)  # raises for a connection closed already
    if poller.poll(0):
        ConnectionPool.check_connection(conn)


_TIMESTAMPTZ = postgres_types["timestamptz"].oid
#: psycopg's timestamptz loader, C when psycopg[binary] is installed (a final class: no subclass of it)
_PSYCOPG_TIMESTAMPTZ: type[abc.Loader] = psycopg.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT) or TimestamptzLoader


class _DjangoUtcLoader(BaseTzLoader):
    timezone = datetime.UTC


class UtcTimestamptzLoader(Loader):
    """A timestamptz as Django reads it when its connections are in UTC (a datetime in ``datetime.timezone.utc``),
    by psycopg's loader when the connection's time zone is UTC, else by Django's."""

    #: compared by Django's ``create_cursor`` with the connection's: equal, it registers no loader of its own
    timezone = datetime.UTC

    def __init__(self, oid: int, context: AdaptContext | None = None) -> None:
        super().__init__(oid, context)
        utc = self.connection is not None and self.connection.info.timezone is datetime.UTC
        # The loader's own ``load``, not a method of ours calling it: no Python frame of ours per value.
        self._load = (_PSYCOPG_TIMESTAMPTZ if utc else _DjangoUtcLoader)(oid, context).load
        self.load = self._load  # type: ignore[method-assign]

    def load(self, data: Any) -> datetime.datetime:
        return self._load(data)


@functools.cache
def _utc_adapters(django_adapters: AdaptersMap) -> AdaptersMap:
    """Django's adapters for its connections (one map, made once), with ``UtcTimestamptzLoader``."""
    adapters = AdaptersMap(django_adapters)
    adapters.register_loader(_TIMESTAMPTZ, UtcTimestamptzLoader)
    return adapters


class DatabaseWrapper(base.DatabaseWrapper):
    # Django's backend keeps its pools by alias in ``_connection_pools`` and configures each new connection
    # with ``_configure_connection``; its type stubs name neither.
    _connection_pools: dict[str, ConnectionPool[Any]]
    _configure_connection: Any

    @property
    def pool(self) -> Any:
        """Django's pool, made with ``check_when_stirred`` as its check when health checks are on."""
        made = self._connection_pools.get(self.alias)
        if made is not None:  # asked six times a checkout and return: once made, what Django's property returns
            return made
        options = self.settings_dict["OPTIONS"].get("pool")
        if (
            self.alias != NO_DB_ALIAS
            and options
            and self.settings_dict["CONN_HEALTH_CHECKS"]
            and self.settings_dict.get("CONN_MAX_AGE", 0) == 0
            and self.alias not in self._connection_pools
        ):
            pool: ConnectionPool[Any] = ConnectionPool(
                kwargs={**self.get_connection_params(), "autocommit": True},
                open=False,
                configure=self._configure_connection,
                check=check_when_stirred,
                **({} if options is True else options),
            )
            self._connection_pools.setdefault(self.alias, pool)  # another thread's, if it was first
        return super().pool  # type: ignore[misc]  # a property of Django's backend its stubs leave out

    # --- one cursor kept for the statements a process writes out itself ------------------------------

    #: (the psycopg connection, the cursor kept for it): ``kept_cursor``'s
    _kept: tuple[Any, Any] | None = None

    def kept_cursor(self) -> utils.CursorWrapper:
        """``cursor()``, over one psycopg cursor kept for the connection instead of a new one each time: making
        one copies the connection's adapters: a short statement 49 -> 34 us of CPU, the action's lock and players'
        statements 5 to 19% less (bench/db_statements.py). Only for a statement whose rows are all fetched before another
        is sent on it (games/selectors/rows.py, kernel/statements.py); never closed by its user (no ``with``)."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        kept = self._kept
        if kept is None or kept[0] is not self.connection:
            with self.wrap_database_errors:
                kept = self._kept = (self.connection, self.create_cursor())
        return self._prepare_cursor(kept[1])  # type: ignore[attr-defined]  # Django's, unstubbed

    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        if "context" in params and self.timezone is datetime.UTC:
            params["context"] = _utc_adapters(params["context"])
        return params

    # --- one retry of a statement whose connection died before anything could have happened ---------

    #: statements sent in the current transaction (reset when one begins or ends)
    statements_in_transaction = 0

    def _set_autocommit(self, autocommit: bool) -> None:
        self.statements_in_transaction = 0
        try:
            super()._set_autocommit(autocommit)  # type: ignore[misc]
        except DatabaseError:
            if not self.connection_lost():
                raise
            self.reconnect_in_place()  # a transaction begins here: nothing of it was sent
            super()._set_autocommit(autocommit)  # type: ignore[misc]

    def _commit(self) -> None:
        self.statements_in_transaction = 0
        super()._commit()  # type: ignore[misc]

    def _rollback(self) -> None:
        self.statements_in_transaction = 0
        super()._rollback()  # type: ignore[misc]

    def connection_lost(self) -> bool:
        conn = self.connection
        return conn is not None and (conn.closed or getattr(conn, "broken", False))

    def ended_since_last_statement(self) -> bool:
        """Whether PostgreSQL ended the connection this request holds since its last statement (the pool's check,
        ``check_when_stirred``: a look at the socket, a round trip only when it has something to read).

        Ending a busy session, PostgreSQL (16) does not always say so: of sessions ended by a restart or by
        ``pg_terminate_backend`` while their client sent statement after statement, an eighth to a half closed
        without "terminating connection" (57P01), about half of those before the next statement was sent.
        That statement then fails with "server closed the connection unexpectedly", which says nothing of
        whether it ran; looking first, one that was never sent can go on a fresh connection."""
        try:
            check_when_stirred(self.connection)
        except (psycopg.Error, OSError, ValueError):
            return True
        return False

    def reconnect_in_place(self) -> None:
        """Put a fresh connection from the pool in place of the dead one, keeping Django's own state of the
        transaction (``connect`` would reset it), and in its autocommit mode."""
        dead = self.connection
        pool = getattr(dead, "_pool", None)
        with contextlib.suppress(Exception):
            # Pooled: given back (as Django's own close does), so the pool drops it and counts it no more as
            # lent; closing it would leave the pool one connection short for good.
            pool.putconn(dead) if pool is not None else dead.close()
        self.connection = self.get_new_connection(self.get_connection_params())
        self.init_connection_state()
        if not self.autocommit:
            self.connection.autocommit = False
        log.warning("PostgreSQL connection lost before anything was sent; retried on a fresh connection")

    def retry_allowed(self, sql: str) -> tuple[bool, bool]:
        """Whether the statement about to be sent may be sent again if its connection dies (see the module's
        docstring): (whatever ended the connection, only if PostgreSQL said it ended the session itself).
        Counts the statement, on its way out on a cursor: so connected (``autocommit``, not ``get_autocommit()``,
        which connects first)."""
        first = self.statements_in_transaction == 0
        if not self.autocommit:
            self.statements_in_transaction += 1
            return first, first
        read = sql.lstrip()[:6].upper() == "SELECT" and " FOR UPDATE" not in sql.upper()
        return read, True

    def make_cursor(self, cursor: Any) -> Any:
        return RetryingCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor: Any) -> Any:
        return RetryingCursorDebugWrapper(cursor, self)


class RetryOnce:
    """A cursor wrapper's execute, sent once more on a fresh connection when the connection died and
    ``DatabaseWrapper.retry_allowed`` said it may."""

    db: DatabaseWrapper
    cursor: Any

    def _execute(self, sql: str, params: Any, *ignored: Any) -> Any:
        always, if_ended_by_server = self.db.retry_allowed(sql)
        if not always and self.db.autocommit and self.db.ended_since_last_statement():
            # A write outside a transaction is never sent twice, so it is not sent on a connection PostgreSQL
            # has ended already: nothing of it was sent, so it goes on a fresh one.
            self.db.reconnect_in_place()
            self.cursor = self.db.create_cursor(getattr(self.cursor, "name", None))
        try:
            return super()._execute(sql, params, *ignored)  # type: ignore[misc]
        except DatabaseError as exc:
            # 57P01: the backend was told to end (a restart's "fast" shutdown) and said so instead of an answer,
            # so the statement did not complete: outside a transaction, nothing of it was committed.
            ended_by_server = isinstance(exc.__cause__, psycopg.errors.AdminShutdown)
            if not ((always or (if_ended_by_server and ended_by_server)) and self.db.connection_lost()):
                raise
        name = getattr(self.cursor, "name", None)
        self.db.reconnect_in_place()
        self.db.errors_occurred = False
        self.cursor = self.db.create_cursor(name)
        return super()._execute(sql, params, *ignored)  # type: ignore[misc]


class RetryingCursorWrapper(RetryOnce, utils.CursorWrapper):
    pass


class RetryingCursorDebugWrapper(RetryOnce, base.CursorDebugWrapper):
    pass
