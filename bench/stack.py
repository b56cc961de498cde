"""The stack bench/load.py runs against: its database, the club it plays in, the processes it starts, and
what it reads off them (CPU, context switches, RSS). Everything listens on 127.0.0.1; every process
started here is stopped by ``Procs.stop_all``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from config.serve import APPLICATION, web_command  # noqa: E402 - the project's root is on the path now

BIN = ROOT / ".venv" / "bin"
# This run's own database and channel-layer prefix: two runs in one checkout (engineers sharing a machine) must
# neither drop each other's database nor hear each other's groups (table ids start at 1 in each).
DB_NAME = f"bench_load_{os.getpid()}"
SEATS = 6
# The bare app's table (bench/bare_app.py writes and reads it).
BARE_TABLE_SQL = (
    "CREATE TABLE bench_bare (id bigserial PRIMARY KEY, grp int, seq int)",
    "CREATE INDEX ON bench_bare (grp, seq)",
)
SWITCHES = "switches"  # the context switches of the web server's threads in a phase (Cpu)
MACHINE = "machine"  # the whole machine's busy CPU seconds in a phase (Cpu), anyone's


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def in_bench_db(url: str) -> str:
    """The same server and role, this run's database (the URL's path names the database)."""
    base, _, rest = url.partition("//")
    netloc_path, q, query = rest.partition("?")
    netloc, _, _ = netloc_path.partition("/")
    return f"{base}//{netloc}/{DB_NAME}" + (q + query if q else "")


def bench_env(services_env: dict[str, str]) -> dict[str, str]:
    """The application role on the bench's database (the owner role migrates it), production settings."""
    urls = {
        "DATABASE_URL": in_bench_db(services_env["DATABASE_URL"]),
        "DATABASE_OWNER_URL": in_bench_db(services_env["DATABASE_OWNER_URL"]),
    }
    return {
        **os.environ,
        **services_env,
        **urls,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOG_LEVEL": "WARNING",
        "CHANNEL_LAYER_PREFIX": f"bench{os.getpid()}",
        "CELERY_QUEUE": f"bench-{os.getpid()}",
    }  # a queue of this run's own: no other run's messages


def database_prepare(env: dict[str, str], admin_url: str) -> None:
    """This run's database made afresh and migrated, with the bare app's table readable by the site's role."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    subprocess.run(
        [str(BIN / "python"), "manage.py", "migrate", "--database", "owner", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=600,
    )
    app_role = psycopg.conninfo.conninfo_to_dict(env["DATABASE_URL"]).get("user")
    with psycopg.connect(env["DATABASE_OWNER_URL"], autocommit=True) as conn:
        for statement in BARE_TABLE_SQL:
            conn.execute(statement)
        if app_role:
            conn.execute(f'GRANT SELECT, INSERT ON bench_bare TO "{app_role}"')
            conn.execute(f'GRANT USAGE ON SEQUENCE bench_bare_id_seq TO "{app_role}"')


def drop_database(admin_url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def finish(admin_url: str, *, stop_services: bool) -> None:
    """A run's last step: drop its database (saying so when that fails, and going on), then stop the embedded
    PostgreSQL and Redis when this run started them."""
    from config import embedded

    try:
        drop_database(admin_url)
    except Exception as exc:  # noqa: BLE001 - report and go on stopping
        print(f"could not drop {DB_NAME}: {exc}")
    if stop_services:
        embedded.stop_services(ROOT / ".data")


@dataclass
class Club:
    """A run's club on the embedded services (``served_club``): the environment of its processes (this run's
    database), the processes started, the seats of its tables, the services' pids, and its books once read."""

    env: dict[str, str]
    procs: Procs
    seats: list[dict[str, Any]] = field(default_factory=list)
    pids: dict[str, int] = field(default_factory=dict)
    books: Books | None = None


@contextlib.contextmanager
def served_club(tables: int, *, books: bool = False) -> Iterator[Club]:
    """The embedded PostgreSQL and Redis (started when not running), this run's database made and migrated, and a
    club of ``tables`` tables of six in it (``make_club``). On leaving, whatever happened: every process started
    stopped and the queue emptied; with ``books``, the club's books read and printed (``Club.books``: None when
    they could not be read); then the database dropped and the services stopped if this run started them."""
    from config import embedded

    services = embedded.ensure_services(ROOT / ".data")
    admin_url = services.database_owner_url  # the owner role may create databases
    club = Club(env=bench_env(services.as_env()), procs=Procs())
    try:
        database_prepare(club.env, admin_url)
        print(f"setting up {tables * SEATS} members, {tables} tables x {SEATS} seats ...", flush=True)
        club.seats = make_club(club.env, tables)
        club.pids = service_pids()
        yield club
    finally:
        club.procs.stop_all()
        celery_purge(club.env)
        if books:
            try:  # whether money moved right: the books, read before the database goes
                club.books = read_books(club.env["DATABASE_OWNER_URL"])
                print("\nthe club's books at the end (entries by kind, chips moved):")
                for line in club.books.lines():
                    print(line)
            except Exception as exc:  # noqa: BLE001 - report and go on stopping
                print(f"could not read the books: {exc}")
        finish(admin_url, stop_services=services.started)


@dataclass(frozen=True)
class Books:
    """What the bench's club's books hold at the end of a run (read before its database is dropped)."""

    by_kind: tuple[tuple[str, int, int], ...]  # (entry kind, entries, chips moved: the postings' gains)
    postings: int
    postings_sum: int  # every posting's amount added up: zero when no chip was made or lost
    unbalanced_entries: int  # entries whose own postings do not sum to zero
    balances_sum: int  # every account's balance added up (the trigger's running balances): zero too
    balances_off: int  # accounts whose balance is not the sum of their postings

    @property
    def whole(self) -> bool:
        return (
            self.postings_sum == 0 and self.unbalanced_entries == 0 and self.balances_sum == 0 and not self.balances_off
        )

    def lines(self) -> list[str]:
        out = [
            f"  {kind:<16} {entries:7d} entries  {moved / 100:14,.2f} moved" for kind, entries, moved in self.by_kind
        ]
        if not self.by_kind:
            out.append("  (no entry: no chip moved)")
        out.append(
            f"  {self.postings} postings, summing to {self.postings_sum}; entries not summing to zero: "
            f"{self.unbalanced_entries}; balances summing to {self.balances_sum}; balances not their postings' sum: "
            f"{self.balances_off}: {'the books balance' if self.whole else 'the books do NOT balance'}"
        )
        return out


BOOKS_SQL = (
    "SELECT e.kind, count(DISTINCT e.id), coalesce(sum(p.amount) FILTER (WHERE p.amount > 0), 0) "
    "FROM ledger_journalentry e LEFT JOIN ledger_posting p ON p.entry_id = e.id GROUP BY e.kind ORDER BY e.kind",
    "SELECT count(*), coalesce(sum(amount), 0) FROM ledger_posting",
    "SELECT count(*) FROM (SELECT entry_id FROM ledger_posting GROUP BY entry_id HAVING sum(amount) <> 0) u",
    "SELECT coalesce(sum(balance), 0) FROM ledger_account",
    "SELECT count(*) FROM ledger_account a WHERE a.balance <> "
    "(SELECT coalesce(sum(p.amount), 0) FROM ledger_posting p WHERE p.account_id = a.id)",
)


def read_books(owner_url: str) -> Books:
    """The bench's club's books: entries by kind, and whether the postings sum to zero (the owner's
    connection to this run's database; read only)."""
    import psycopg

    with psycopg.connect(owner_url, autocommit=True) as conn:
        kinds, totals, unbalanced, balances, off = (conn.execute(sql).fetchall() for sql in BOOKS_SQL)
    return Books(
        tuple((str(k), int(n), int(m)) for k, n, m in kinds),
        int(totals[0][0]),
        int(totals[0][1]),
        int(unbalanced[0][0]),
        int(balances[0][0]),
        int(off[0][0]),
    )


def setup_club() -> None:
    """Members, tables, seats, first hands and one session per member; prints them as JSON. Runs in a
    child process with the bench's environment (``make_club``); BENCH_TABLES tables of six seats.

    Piranha is played with its optional betting round (piranha.txt 3.4), so that its bots bet, raise and
    fold as well as drop; Piles has its nine betting rounds and the declaration."""
    from importlib import import_module

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    import engine
    from accounts.models import Club, Membership, User
    from games import services

    tables = int(os.environ["BENCH_TABLES"])
    User.objects.bulk_create([User(username=f"bench{i}", email=f"bench{i}@example.org") for i in range(tables * SEATS)])
    users = list(User.objects.filter(username__startswith="bench").order_by("pk"))
    # No member sits out of a new game for what they lost in the last one (bench/load.py deals one when a
    # game ends, as a player's "Deal a new game" does): a limit far above anything a bench run can lose.
    club = Club.objects.create(name="Bench club", currency="USD", credit_limit=10**12)
    Membership.objects.bulk_create(
        [Membership(club=club, user=u, role="organiser" if i == 0 else "member") for i, u in enumerate(users)]
    )
    piranha = services.rule_set_create(
        club=club,
        user=users[0],
        name="Piranha",
        rules=engine.PiranhaRules(ante=25, match_cap=100, betting_round=True, turn_seconds=3600),
        max_seats=SEATS,
        spectators_allowed=True,
    )
    piles = services.rule_set_create(
        club=club,
        user=users[0],
        name="Piles",
        rules=engine.PilesRules(turn_seconds=3600),
        max_seats=SEATS,
        spectators_allowed=True,
    )
    store = import_module(settings.SESSION_ENGINE).SessionStore
    seats = []
    for t in range(tables):
        rule_set = piranha if t % 2 == 0 else piles
        version = rule_set.versions.order_by("-number").first()
        assert version is not None
        table = services.table_create(club=club, user=users[0], name=f"T{t}", rule_version_id=version.pk)
        for s in range(SEATS):
            user = users[t * SEATS + s]
            services.seat_take(table_id=table.pk, user=user, number=s + 1, version_id=version.pk)
            session = store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            seats.append({"table": table.pk, "user": user.pk, "session": session.session_key})
        services.table_start(table_id=table.pk, user=users[t * SEATS])
    print(json.dumps({"seats": seats}))


def make_club(env: dict[str, str], tables: int) -> list[dict[str, Any]]:
    out = subprocess.run(
        [str(BIN / "python"), "-c", "from bench.stack import setup_club; setup_club()"],
        cwd=ROOT,
        env={**env, "BENCH_TABLES": str(tables)},
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1])["seats"])


class Procs:
    """Processes this script started; stopped (process group) whatever happens. Each writes its stderr to a
    file of its own, read when it stops: a pipe nobody reads fills (64 KiB: uvicorn logs each socket's
    opening) and then blocks the process's logging, and with it the server."""

    def __init__(self) -> None:
        self.items: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        fd, path = tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".log")
        try:
            proc = subprocess.Popen(
                args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=fd, start_new_session=True
            )
        finally:
            os.close(fd)
        self.items[name], self.logs[name] = proc, Path(path)
        return proc

    def log(self, name: str) -> str:
        """What the process wrote to its stderr so far ('' when it never ran)."""
        path = self.logs.get(name)
        return path.read_text(errors="replace") if path is not None and path.exists() else ""

    def stop(self, name: str) -> str:
        """Stops the process; returns what it wrote to its stderr (its file removed)."""
        proc = self.items.pop(name, None)
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        text = self.log(name)
        path = self.logs.pop(name, None)
        if path is not None:
            path.unlink(missing_ok=True)
        return text

    def stop_all(self) -> None:
        for name in list(self.items):
            self.stop(name)


def server_command(app: str, port: int, workers: int) -> list[str]:
    """The production command (config/serve.py) serving ``app`` on loopback."""
    command = web_command(
        host="127.0.0.1",
        port=port,
        environ={},
        extra=["--workers", str(workers), "--lifespan", "off", "--no-access-log"],
    )
    return [app if part == APPLICATION else part for part in command]


def celery_command() -> list[str]:
    return [
        str(BIN / "python"),
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool",
        "threads",
        "--concurrency",
        "4",
        "--loglevel",
        "WARNING",
    ]


def celery_purge(env: dict[str, str]) -> None:
    """This run's leftover tasks, if any."""
    subprocess.run(
        [str(BIN / "python"), "-m", "celery", "-A", "config", "purge", "-f", "-Q", env["CELERY_QUEUE"]],
        cwd=ROOT,
        env=env,
        timeout=60,
        capture_output=True,
        check=False,
    )


def proxy_command(port: int, upstreams: list[int], folder: Path) -> list[str]:
    """Caddy (deploy/Caddyfile's proxy) on loopback ``port`` in front of the web processes on ``upstreams``,
    plain HTTP, balanced by the fewest connections as the deploy's is; its config and state in ``folder``."""
    config = folder / "Caddyfile"
    config.write_text(
        "{\n\tadmin off\n\tauto_https off\n}\n"
        f"http://127.0.0.1:{port} {{\n"
        f"\treverse_proxy {' '.join(f'127.0.0.1:{u}' for u in upstreams)} {{\n"
        "\t\tlb_policy least_conn\n\t}\n}\n"
    )
    return ["caddy", "run", "--config", str(config), "--adapter", "caddyfile"]


def wait_port(port: int, proc: subprocess.Popen[bytes], log: Path | None = None, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
            raise SystemExit(f"server exited: {said}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit("server did not start")


Pids = int | list[int]  # a process, or several (the web processes behind the proxy) counted as one


SERVER_ERROR = re.compile(r"^(?:ERROR:|CRITICAL:)|^\w[\w.]*(?:Error|Exception|Detected): ", re.MULTILINE)


def server_errors(log: str) -> Counter[str]:
    """The errors a server logged (uvicorn's 'ERROR:' lines and each traceback's last line), by their words."""
    return Counter(line.strip()[:120] for line in log.splitlines() if SERVER_ERROR.match(line))


def tree(pid: Pids, *, children: bool = True) -> list[psutil.Process]:
    """The process ``pid`` (or each of a list) and (``children``) every process under it; [] when gone."""
    if isinstance(pid, list):
        return [p for one in pid for p in tree(one, children=children)]
    try:
        proc = psutil.Process(pid)
        return [proc, *proc.children(recursive=True)] if children else [proc]
    except psutil.Error:
        return []


def rss_mib(pid: Pids) -> float:
    """Resident memory of ``pid`` (or each of a list) and its children (uvicorn's workers), MiB."""
    total = 0
    for p in tree(pid):
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


class Cpu:
    """CPU seconds per process between start() and stop() (uvicorn's with its workers; the bots' is this
    script's own with its decision process, not the servers it started), the web server's context switches
    (its threads handing the interpreter's lock to each other, mostly), and the whole machine's busy seconds
    (``MACHINE``: every process, this bench's and anyone else's, kernel included)."""

    def __init__(self, named: dict[str, Pids]) -> None:
        self.named = named
        self.before: dict[str, float] = {}

    @staticmethod
    def _total(procs: list[psutil.Process]) -> float:
        total = 0.0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def _switches(self) -> float:
        """Of every thread of the web server's processes (psutil's count is the main thread's alone)."""
        total = 0.0
        for p in tree(self.named["uvicorn"]):
            for status in Path(f"/proc/{p.pid}/task").glob("*/status"):
                with contextlib.suppress(OSError, ValueError):
                    total += sum(
                        int(line.split(":")[1])
                        for line in status.read_text().splitlines()
                        if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"))
                    )
        return total

    def _all(self) -> dict[str, float]:
        trees = {name: tree(pid) for name, pid in self.named.items()}
        servers = {p.pid for name, procs in trees.items() if name != "bots" for p in procs}
        trees["bots"] = [p for p in trees.get("bots", []) if p.pid not in servers]
        return {
            **{name: self._total(procs) for name, procs in trees.items()},
            SWITCHES: self._switches(),
            MACHINE: machine_busy_seconds(),
        }

    def start(self) -> None:
        self.before = self._all()

    def stop(self) -> dict[str, float]:
        return {name: value - self.before.get(name, 0.0) for name, value in self._all().items()}


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy since boot (/proc/stat: all but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def service_pids() -> dict[str, int]:
    """The embedded PostgreSQL (its postmaster: the backends are its children) and Redis of this checkout."""
    from config import embedded

    found: dict[str, int] = {}
    data = str(ROOT / ".data")
    redis_port = str(embedded.redis_port_for(ROOT / ".data"))
    for p in psutil.process_iter(["name", "cmdline"]):
        cmd = " ".join(p.info.get("cmdline") or [])
        name = p.info.get("name") or ""
        if "postgres" in name and " -D " in f" {cmd} " and data in cmd:
            found["postgres"] = p.pid
        elif "redis" in name and (data in cmd or redis_port in cmd):
            found["redis"] = p.pid
    return found
