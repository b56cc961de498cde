"""`scripts/dev.py run` keeps the site up when the worker or beat dies (as a Redis restart used to make the
worker do): it says so, starts it again after a pause that doubles on each quick crash, and the web server
keeps answering."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.games.celery_worker import ROOT, purge_queue, worker_env
from tests.security.services import free_port, http_get


def wait_for(log: Path, pattern: str, proc: subprocess.Popen[bytes], timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found
        assert proc.poll() is None, f"the run command exited:\n{log.read_text(errors='replace')[-3000:]}"
        assert time.monotonic() < deadline, f"no {pattern!r}:\n{log.read_text(errors='replace')[-3000:]}"
        time.sleep(0.2)


@pytest.mark.celery
@pytest.mark.timeout(240)
@pytest.mark.django_db(transaction=True)
def test_the_run_command_restarts_a_crashed_worker_and_beat_with_backoff(tmp_path) -> None:
    port = free_port()
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        run = subprocess.Popen(
            [sys.executable, "scripts/dev.py", "run"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=worker_env(PORT=str(port), LOG_LEVEL="WARNING"),
            start_new_session=True,
        )
    try:
        wait_for(log, r"the club site is at", run, 180)
        first = int(wait_for(log, r"worker started \(pid (\d+)\)", run, 10).group(1))
        beat = int(wait_for(log, r"beat started \(pid (\d+)\)", run, 10).group(1))
        wait_for(log, r"worker@\S+ ready\.", run, 60)  # the worker is up and consuming

        os.kill(first, signal.SIGKILL)
        wait_for(log, r"worker exited with -9; restarting it in 1s", run, 10)
        second = int(wait_for(log, rf"worker started \(pid (?!{first}\))(\d+)\)", run, 10).group(1))
        os.kill(second, signal.SIGKILL)  # crashed again at once: the pause doubles
        wait_for(log, r"worker exited with -9; restarting it in 2s", run, 10)
        wait_for(log, rf"worker started \(pid (?!{first}\)|{second}\))(\d+)\)", run, 10)

        os.kill(beat, signal.SIGKILL)
        wait_for(log, r"beat exited with -9; restarting it in 1s", run, 10)
        wait_for(log, rf"beat started \(pid (?!{beat}\))(\d+)\)", run, 10)

        assert run.poll() is None
        assert asyncio.run(http_get(port, "/healthz"))[0] == 200
        assert "stopping the rest" not in log.read_text()
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGTERM)
            try:
                run.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait(timeout=10)
        purge_queue()
