"""A websocket opens only for a page of this site: its Origin must match the socket's own origin in scheme,
host and port (or be one of CSRF_TRUSTED_ORIGINS exactly); before, only the host was compared, so a page
of another service on another port or over plain http of the same host could open a member's socket."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from config.security import socket_origin_allowed
from tests.games.helpers import make_table
from tests.games.test_consumers import communicator


def scope(
    origin: str | None,
    host: str = "club.example.org",
    scheme: str = "wss",
    extra: list[tuple[bytes, bytes]] | None = None,
) -> dict:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin is not None else [])
    return {"type": "websocket", "scheme": scheme, "headers": headers + (extra or [])}


@pytest.fixture(autouse=True)
def site(settings) -> None:
    settings.ALLOWED_HOSTS = ["club.example.org", "localhost"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://club.example.org:8443"]


@pytest.mark.parametrize(
    "origin, host, scheme",
    [
        ("https://club.example.org", "club.example.org", "wss"),
        ("https://club.example.org:443", "club.example.org", "wss"),
        ("https://CLUB.example.org", "club.example.org:443", "wss"),
        ("http://club.example.org", "club.example.org", "ws"),
        ("https://club.example.org:8443", "elsewhere.example.org", "wss"),  # a trusted origin
    ],
)
def test_the_sites_own_origin_is_allowed(origin, host, scheme) -> None:
    assert socket_origin_allowed(scope(origin, host, scheme))


@pytest.mark.parametrize(
    "origin, host, scheme",
    [
        ("http://club.example.org", "club.example.org", "wss"),  # plain http page, TLS socket
        ("https://club.example.org:8080", "club.example.org", "wss"),  # another port of the same host
        ("http://club.example.org:8000", "club.example.org", "ws"),
        ("https://club.example.org", "club.example.org", "ws"),
        ("https://evil.example", "club.example.org", "wss"),
        ("https://evil.example", "evil.example", "wss"),  # a host not allowed
        ("null", "club.example.org", "wss"),
        ("https://club.example.org.evil.example", "club.example.org", "wss"),
        (None, "club.example.org", "wss"),
    ],
)
def test_another_scheme_port_or_host_is_refused(origin, host, scheme) -> None:
    assert not socket_origin_allowed(scope(origin, host, scheme))


def test_two_origin_headers_are_refused() -> None:
    assert not socket_origin_allowed(scope("https://club.example.org", extra=[(b"origin", b"https://evil.example")]))


@pytest.mark.django_db(transaction=True)
async def test_the_application_denies_a_socket_from_another_port_of_the_same_host(club_setup) -> None:
    from channels.db import database_sync_to_async

    table = await database_sync_to_async(make_table)(club_setup.club, club_setup.organiser)
    member = club_setup.members[0]
    path = f"/ws/tables/{table.pk}/"
    other_port: WebsocketCommunicator = await communicator(path, member, origin=b"http://localhost:8080")
    connected, _ = await other_port.connect(timeout=5)
    assert not connected
    own: WebsocketCommunicator = await communicator(path, member)  # http://localhost, the socket's own origin
    connected, _ = await own.connect(timeout=5)
    assert connected
    await own.disconnect()
