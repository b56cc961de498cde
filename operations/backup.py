"""Backups of the whole database with PostgreSQL's own tools, and restores that check the books.

A backup is two files in ``BACKUP_DIR``: ``club-<UTC time>.dump`` (``pg_dump`` custom format) and
``club-<UTC time>.json``, its manifest: when, the schema version (the latest migration of each
app), the row count of every table and the ledger's totals. The counts and totals are read in the
very snapshot that ``pg_dump`` dumps (``pg_export_snapshot``), so the manifest describes the dump
exactly even while members play.

A dump holds every deck, salt and password hash: the folder is kept 0700 and each file is written 0600
(readable by the backup's own user only), whatever the umask.

The PostgreSQL programs come from ``PG_BIN_DIR`` when set (a server's own binaries), else from the
pgserver package (PostgreSQL 16, the major version of the compose database).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

MANIFEST_FORMAT = 1


class BackupError(Exception):
    """A backup or restore that could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    """How to reach one database with libpq (the owner role when one is configured)."""

    host: str
    port: str
    user: str
    password: str
    dbname: str

    @classmethod
    def from_settings(cls, alias: str = "default") -> Target:
        owner_url = os.environ.get("DATABASE_OWNER_URL", "")
        if owner_url and alias == "default":
            import dj_database_url

            cfg: Any = dj_database_url.parse(owner_url)
            # The owner URL names the same server; the database is the one Django uses now
            # (a test run's own database differs from the URL's).
            cfg["NAME"] = connections[alias].settings_dict["NAME"]
        else:
            cfg = connections[alias].settings_dict
        return cls(
            host=str(cfg.get("HOST") or ""),
            port=str(cfg.get("PORT") or ""),
            user=str(cfg.get("USER") or ""),
            password=str(cfg.get("PASSWORD") or ""),
            dbname=str(cfg["NAME"]),
        )

    def with_dbname(self, dbname: str) -> Target:
        return Target(host=self.host, port=self.port, user=self.user, password=self.password, dbname=dbname)

    def conninfo(self) -> str:
        return psycopg.conninfo.make_conninfo(**{k: v for k, v in self.libpq().items() if v})

    def libpq(self) -> dict[str, str]:
        return {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "dbname": self.dbname,
        }

    def env(self) -> dict[str, str]:
        """The environment for a PostgreSQL program: PG* variables, the password never on a command line."""
        names = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD", "dbname": "PGDATABASE"}
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update({names[k]: v for k, v in self.libpq().items() if v})
        return env


def pg_program(name: str) -> str:
    """The path of a PostgreSQL program (``pg_dump``, ``pg_restore``)."""
    configured = getattr(settings, "PG_BIN_DIR", "")
    if configured:
        return str(Path(configured) / name)
    # The pgserver package's binaries, found without importing it (its import warns and reads the environment).
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise BackupError("Set PG_BIN_DIR to the folder of pg_dump and pg_restore (PostgreSQL 16).")
    return str(Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin" / name)


def _run(args: list[str], target: Target) -> None:
    result = subprocess.run(  # noqa: S603
        args,
        env=target.env(),
        capture_output=True,
        text=True,
        check=False,
        umask=0o077,
    )  # what pg_dump writes is the backup user's alone
    if result.returncode != 0:
        raise BackupError(f"{Path(args[0]).name} failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}")


def _tables(cursor: psycopg.Cursor[Any]) -> list[str]:
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    return [row[0] for row in cursor.fetchall()]


def database_facts(cursor: psycopg.Cursor[Any]) -> dict[str, Any]:
    """Schema version, row counts and ledger totals as this cursor's transaction sees them."""
    tables = _tables(cursor)
    counts: dict[str, int] = {}
    for table in tables:
        cursor.execute(psycopg.sql.SQL("SELECT count(*) FROM {}").format(psycopg.sql.Identifier(table)))
        row = cursor.fetchone()
        counts[table] = int(row[0]) if row else 0
    schema: dict[str, str] = {}
    if "django_migrations" in tables:
        cursor.execute("SELECT app, max(name) FROM django_migrations GROUP BY app ORDER BY app")
        schema = dict(cursor.fetchall())
    ledger: dict[str, Any] = {}
    if "ledger_posting" in tables:
        cursor.execute("SELECT count(*), coalesce(sum(amount), 0), coalesce(sum(abs(amount)), 0) FROM ledger_posting")
        postings, total, moved = cursor.fetchone() or (0, 0, 0)
        cursor.execute("""SELECT club_id::text, count(*), coalesce(sum(balance), 0),
                                 coalesce(sum(balance) FILTER (WHERE kind = 'member'), 0)
                            FROM ledger_account GROUP BY club_id ORDER BY club_id""")
        clubs = {
            club: {"accounts": int(n), "balance_sum": int(s), "member_balances": int(m)}
            for club, n, s, m in cursor.fetchall()
        }
        ledger = {"postings": int(postings), "postings_sum": int(total), "moved_cents": int(moved) // 2, "clubs": clubs}
    return {"schema": schema, "rows": counts, "ledger": ledger}


def backup_create(*, directory: Path, keep: int | None = None) -> Path:
    """Dump the database into ``directory`` with its manifest; returns the dump's path.

    With ``keep``, the newest ``keep`` backups stay and older ones are deleted (after the new one
    is complete). Raises BackupError when a PostgreSQL program fails."""
    _private_folder(directory)
    target = Target.from_settings()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    dump = directory / f"club-{stamp}.dump"
    partial = dump.with_suffix(".dump.partial")
    # One REPEATABLE READ snapshot for the manifest and the dump: they describe the same moment.
    with psycopg.connect(target.conninfo()) as conn:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot_row = conn.execute("SELECT pg_export_snapshot()").fetchone()
        assert snapshot_row is not None
        with conn.cursor() as cursor:
            facts = database_facts(cursor)
        _run(
            [
                pg_program("pg_dump"),
                "--format=custom",
                f"--snapshot={snapshot_row[0]}",
                "--no-password",
                f"--file={partial}",
                target.dbname,
            ],
            target,
        )
        conn.rollback()
    manifest = {
        "format": MANIFEST_FORMAT,
        "created_at": datetime.now(UTC).isoformat(),
        "dump": dump.name,
        "database": target.dbname,
        "bytes": partial.stat().st_size,
        **facts,
    }
    os.chmod(partial, 0o600)
    partial.rename(dump)
    _write_private(dump.with_suffix(".json"), json.dumps(manifest, indent=2, sort_keys=True))
    if keep is not None:
        backups_prune(directory=directory, keep=keep)
    return dump


def _private_folder(directory: Path) -> None:
    """Make ``directory`` (and missing parents) and keep it 0700; a folder this user does not own (a volume
    mounted by another) is left as it is, with a warning: the files in it are 0600 all the same."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.chmod(directory, 0o700)
    except PermissionError:
        log.warning(
            "Backup folder %s is not this user's: its mode stays %o", directory, directory.stat().st_mode & 0o777
        )


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to a new file ``path`` readable by this user only (0600 from its creation)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT
    with os.fdopen(fd, "w") as out:
        out.write(text)


def backups_list(*, directory: Path) -> list[Path]:
    """The complete backups in ``directory``, oldest first (their names sort by time)."""
    return sorted(p for p in directory.glob("club-*.dump") if p.with_suffix(".json").exists())


def backups_prune(*, directory: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups (at least one stays); returns the deleted dumps."""
    old = backups_list(directory=directory)[: -max(keep, 1)]
    for dump in old:
        dump.unlink(missing_ok=True)
        dump.with_suffix(".json").unlink(missing_ok=True)
    return old


def manifest_read(dump: Path) -> dict[str, Any] | None:
    path = dump.with_suffix(".json")
    return json.loads(path.read_text()) if path.exists() else None


def backup_restore(*, dump: Path, replace: bool = False) -> dict[str, Any]:
    """Restore ``dump`` into the configured database and return what it now holds.

    Refuses (BackupError) a database that already has tables unless ``replace``, which drops what
    the dump holds first. The restore runs in one transaction: on any error nothing changes. When
    the dump has a manifest, the restored row counts and ledger totals must equal it."""
    if not dump.is_file():
        raise BackupError(f"No backup file at {dump}.")
    target = Target.from_settings()
    connections.close_all()  # nothing of ours holds a lock or a transaction during the restore
    with psycopg.connect(target.conninfo(), autocommit=True) as conn, conn.cursor() as cursor:
        tables = _tables(cursor)
    if tables and not replace:
        raise BackupError(
            f"The database {target.dbname} is not empty ({len(tables)} tables). Restore into a new, "
            "empty database, or pass --force to replace what it holds."
        )
    args = [
        pg_program("pg_restore"),
        "--single-transaction",
        "--exit-on-error",
        "--no-owner",
        "--no-password",
        f"--dbname={target.dbname}",
    ]
    if replace and tables:
        args += ["--clean", "--if-exists"]
    _run([*args, str(dump)], target)
    with psycopg.connect(target.conninfo(), autocommit=True) as conn, conn.cursor() as cursor:
        facts = database_facts(cursor)
    manifest = manifest_read(dump)
    if manifest is not None:
        for key in ("rows", "ledger", "schema"):
            if facts[key] != manifest[key]:
                raise BackupError(
                    f"The restored {key} differ from the backup's manifest: "
                    f"{manifest[key]} expected, {facts[key]} found."
                )
    return facts
