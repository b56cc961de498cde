"""Real Celery worker (and beat) subprocesses for the timing tests, on the test database and the
embedded Redis, reading this test run's own queue (config/settings/test.py), so parallel runs and a
development worker never take each other's tasks."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent.parent
# The interpreter runs Celery's module: a console script's first line names the interpreter of the place
# the virtualenv was made in, which need not be this checkout's.
CELERY = [str(ROOT / ".venv" / "bin" / "python"), "-m", "celery"]
# A sweep's line in a worker's log, with how many turns it applied.
SWEPT = re.compile(r"sweep_overdue_turns\[[^]]+\] succeeded in [0-9.e-]+s: (\d+)")


def queue_name() -> str:
    from config.celery import app

    return str(app.conf.task_default_queue)


def push_queue_name() -> str:
    return str(settings.PUSH_QUEUE)


def wait_until(condition: Callable[[], object], timeout: float, message: str, interval: float = 0.1) -> None:
    """Poll ``condition`` until it holds: a loaded machine makes it later, never a failure, up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, message
        time.sleep(interval)


def on_database(url: str, name: str) -> str:
    """``url`` (a server and a role) naming the database ``name`` instead of its own."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def worker_env(**extra: str) -> dict[str, str]:
    db = connection.settings_dict
    host = quote(str(db.get("HOST") or ""), safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    user = db.get("USER") or "postgres"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgresql://{user}@{host}{port}/{db['NAME']}",
        "REDIS_URL": os.environ.get("REDIS_URL") or settings.CELERY_BROKER_URL,
        "CELERY_QUEUE": queue_name(),
        "PUSH_QUEUE": push_queue_name(),
        "LOG_LEVEL": "INFO",
    }
    if os.environ.get("DATABASE_OWNER_URL"):
        # The owner's steps (the run command's migrate) go to this test database as well: left to the inherited
        # URL they would migrate the embedded development database, which two tests at once then both migrate.
        env["DATABASE_OWNER_URL"] = on_database(os.environ["DATABASE_OWNER_URL"], db["NAME"])
    env.update(extra)
    return env


class Proc:
    """A started subprocess with its output in a file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._out = open(log, "wb")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(args, cwd=ROOT, env=env, stdout=self._out, stderr=subprocess.STDOUT)
        self._terminated = False

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, needle: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.popen.args[:4]} exited:\n{self.text()[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {needle!r} within {timeout}s:\n{self.text()[-3000:]}")
            time.sleep(0.1)

    def kill9(self) -> None:
        self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=10)
        self._out.close()

    def terminate(self) -> None:
        """Ask the process to stop (once), without waiting: several then shut down at the same time."""
        if self.popen.poll() is None and not self._terminated:
            self.popen.send_signal(signal.SIGTERM)
            self._terminated = True

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.terminate()
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)
        self._out.close()


def wait_for_two_more_sweeps(workers: Sequence[Proc]) -> None:
    """Until the workers have logged two sweeps beyond those logged now. Called once the last hand has ended, the
    later of the two began after it: whatever a sweep could apply a second time, it would have applied."""

    def done() -> int:
        return sum(len(SWEPT.findall(worker.text())) for worker in workers)

    before = done()
    logs = "\n".join(worker.text()[-3000:] for worker in workers)
    wait_until(lambda: done() >= before + 2, 20, f"no more sweeps:\n{logs}")


def start_worker(tmp: Path, queue: str = "", *, ready: bool = True, **env: str) -> Proc:
    """A worker of this run's queue (the clocks and notices), or of ``queue``; started, and unless ``ready`` is
    False (the caller waits for "ready." itself, doing something else meanwhile), consuming."""
    name = f"w{uuid.uuid4().hex[:8]}@%h"
    proc = Proc(
        [
            *CELERY,
            "-A",
            "config",
            "worker",
            "--pool",
            "threads",
            "-c",
            "2",
            "-Q",
            queue or queue_name(),
            "-n",
            name,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "INFO",
        ],
        worker_env(**env),
        tmp / f"worker-{uuid.uuid4().hex[:6]}.log",
    )
    if ready:
        proc.wait_for("ready.")
    return proc


def start_push_worker(tmp: Path, **env: str) -> Proc:
    """A worker of this run's push queue, as the site runs one beside the clocks' worker (docker-compose.yml)."""
    return start_worker(tmp, queue=push_queue_name(), **env)


def start_beat(tmp: Path, sweep_seconds: float = 1, **env: str) -> Proc:
    proc = Proc(
        [*CELERY, "-A", "config", "beat", "-s", str(tmp / "beat-schedule"), "--pidfile=", "-l", "INFO"],
        worker_env(TURN_SWEEP_SECONDS=str(sweep_seconds), **env),
        tmp / "beat.log",
    )
    proc.wait_for("beat: Starting")
    return proc


def run_queued_pushes() -> int:
    """Run here, one by one, the push tasks waiting in this run's push queue, as the push worker would (for
    tests whose data a worker process cannot see); how many ran."""
    import redis

    from notices.tasks import push_notice

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    ran = 0
    try:
        while (raw := client.rpop(push_queue_name())) is not None:  # kombu pushes left, workers pop right
            message = json.loads(raw)
            args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
            push_notice.apply(args=args, kwargs=kwargs)
            ran += 1
    finally:
        client.close()
    return ran


def purge_queue() -> None:
    """Drop what this run left in its queue (eta tasks requeued by a warm shutdown)."""
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        client.delete(queue_name(), push_queue_name())
    finally:
        client.close()
