"""How long one SQL statement may run before PostgreSQL cancels it (``statement_timeout``), by the kind of
process that connects (docs/operations.md, "Statement timeouts").

A runaway statement (a file's huge id, a query a member's input made slow) then ends with an error
instead of holding a backend, its locks and the disk for as long as it likes. The site's own
statements take milliseconds; the worker's sweeps and the ledger's verification read whole tables;
migrations and the operator's commands (restores, verification, backfills) may take minutes.
``DATABASE_STATEMENT_TIMEOUT`` (a PostgreSQL duration such as "5s" or "10min"; "0" for none) overrides
the choice for one process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath

WEB = "5s"  # the web and socket processes (config.serve runs uvicorn), and the tests
WORKER = "60s"  # Celery worker and beat
COMMAND = "10min"  # manage.py (migrations as the owner role, the operator's commands), scripts, benchmarks

WEB_SERVERS = frozenset({"uvicorn", "daphne", "gunicorn", "hypercorn", "pytest", "py.test"})


def process_timeout(argv: Sequence[str]) -> str:
    """The statement timeout of this process, from the program it runs as (``sys.argv``: a script, or a
    package's ``__main__.py`` under ``python -m``)."""
    program = PurePath(argv[0]) if argv else PurePath("")
    names = {program.name, program.parent.name if program.name == "__main__.py" else ""}
    if names & WEB_SERVERS:
        return WEB
    if "celery" in names:
        return WORKER
    return COMMAND


def statement_timeout(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    """``DATABASE_STATEMENT_TIMEOUT`` when set, else ``process_timeout``."""
    return environ.get("DATABASE_STATEMENT_TIMEOUT", "").strip() or process_timeout(argv)


def connection_options(timeout: str) -> str:
    """The libpq ``options`` value that sets ``timeout`` on every connection."""
    return f"-c statement_timeout={timeout.replace(' ', '')}"
