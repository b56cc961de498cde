"""/healthz tells which of PostgreSQL and Redis failed only to the proxy's own host name or loopback: a stranger
who sends any other Host header (through the proxy: the site's own name) reads a bare 200 or 503."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("host", ["club.example", "attacker.example", "testserver", "10.0.0.5", "[2001:db8::1]"])
def test_anyone_else_reads_a_bare_status(client, settings, host) -> None:
    settings.ALLOWED_HOSTS = ["club.example"]
    response = client.get("/healthz", HTTP_HOST=host)
    assert response.status_code == 200
    assert response.content == b"ok\n" and b"postgres" not in response.content

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    down = client.get("/healthz", HTTP_HOST=host)
    assert down.status_code == 503
    assert down.content == b"unavailable\n" and b"redis" not in down.content


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "[::1]:8000", "proxy", "PROXY:80"])
def test_loopback_and_the_proxy_read_the_details(client, settings, host) -> None:
    settings.ALLOWED_HOSTS = ["club.example"]
    settings.HEALTH_DETAIL_HOSTS = ["proxy"]
    assert client.get("/healthz", HTTP_HOST=host).json() == {"ok": True, "postgres": True, "redis": True}
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    down = client.get("/healthz", HTTP_HOST=host)
    assert down.status_code == 503 and down.json()["redis"] is False
