"""The production compose file: valid for Debian's docker-compose, web behind the TLS proxy only,
forwarded headers believed from the proxy alone, Redis persistent, every service memory-bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The file as docker-compose resolves it (anchors merged, defaults filled in)."""
    return _resolve({})


def _resolve(settings: dict[str, str]) -> dict[str, Any]:
    program = shutil.which("docker-compose")
    if program is None:
        pytest.skip("docker-compose is not installed (Debian: apt-get install docker-compose)")
    env = {
        **os.environ,
        "SECRET_KEY": "check",
        "POSTGRES_PASSWORD": "x",
        "CLUB_OWNER_PASSWORD": "y",
        "CLUB_APP_PASSWORD": "z",
    }
    for name in (
        "SITE_ADDRESS",
        "PROXY_ADDRESS",
        "EDGE_SUBNET",
        "FORWARDED_ALLOW_IPS",
        "PUBLISH_ADDRESS",
        "HTTP_PORT",
        "HTTPS_PORT",
    ):
        env.pop(name, None)
    env.update(settings)
    # Only the settings given here: never an .env beside the file (an operator's, or the deploy check's).
    with tempfile.NamedTemporaryFile("w", suffix=".env") as empty:
        result = subprocess.run(
            [program, "-f", str(ROOT / "docker-compose.yml"), "--env-file", empty.name, "config"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)


def test_web_is_reached_through_the_proxy_only(compose):
    services = compose["services"]
    assert "ports" not in services["web"]
    assert {
        p["target"] if isinstance(p, dict) else int(str(p).split(":")[-1].split("/")[0])
        for p in services["proxy"]["ports"]
    } == {80, 443}
    assert "edge" in services["web"]["networks"] and "edge" in services["proxy"]["networks"]


def test_the_proxy_is_on_the_edge_network_only(compose):
    """On a second network it would reach web from another address than PROXY_ADDRESS: web would take it for a
    client, ignore its X-Forwarded-Proto and redirect every page to itself over HTTPS."""
    assert set(compose["services"]["proxy"]["networks"]) == {"edge"}


def test_the_proxy_publishes_on_the_address_it_is_given():
    """The deploy check publishes it on loopback only; a server on all its addresses by default."""
    ports = _resolve({"PUBLISH_ADDRESS": "127.0.0.1", "HTTPS_PORT": "18443"})["services"]["proxy"]["ports"]
    assert set(ports) == {"127.0.0.1:80:80/tcp", "127.0.0.1:18443:443/tcp", "127.0.0.1:18443:443/udp"}


def test_the_redis_comment_says_what_a_restart_loses():
    """The queued clocks survive a restart in the append-only file; the ones a worker had reserved do not, and
    the beat sweep applies those (a sweep late at most)."""
    text = (ROOT / "docker-compose.yml").read_text()
    comment = " ".join(
        line.strip().lstrip("# ") for line in text.split("\n  redis:\n")[1].split("    command:")[0].splitlines()
    )
    assert "reserved" in comment and "beat sweep" in comment and "TURN_SWEEP_SECONDS" in comment


def test_web_believes_forwarded_headers_from_the_proxy_alone(compose):
    services = compose["services"]
    proxy_address = services["proxy"]["networks"]["edge"]["ipv4_address"]
    command = services["web"]["command"]
    assert "*" not in command and services["web"]["environment"]["FORWARDED_ALLOW_IPS"] == proxy_address
    subnet = compose["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    import ipaddress

    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(subnet)


def test_redis_keeps_its_queue_across_a_restart(compose):
    redis = compose["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and any(":/data" in v for v in _volumes(redis))


def test_every_long_running_service_has_a_memory_limit(compose):
    for name, service in compose["services"].items():
        assert service.get("mem_limit"), f"{name} has no memory limit"


def test_backups_go_to_a_volume_on_their_own_worker(compose):
    backup = compose["services"]["backup"]
    assert "backups" in backup["command"] and any(":/backups" in v for v in _volumes(backup))
    assert backup["environment"]["BACKUP_QUEUE"] == "backups"
    assert "DATABASE_OWNER_URL" not in compose["services"]["worker"]["environment"]


def test_the_proxy_config_never_serves_metrics():
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "respond @metrics 404" in caddyfile and "@metrics path /metrics" in caddyfile


def _volumes(service: dict[str, Any]) -> list[str]:
    out = []
    for volume in service.get("volumes", []):
        out.append(volume if isinstance(volume, str) else f"{volume.get('source')}:{volume['target']}")
    return out
