"""A table socket's frames are not compressed.

With per-message deflate a member's frames share one compression context: their own hole cards and
sealed choices sit in it beside text another member chose (chat, a table name). Anyone who can see the
sizes of the (encrypted) frames, on the club's Wi-Fi say, could then guess a hidden card by chatting it
and watching the victim's next frame shrink, as with CRIME and BREACH. So the server command turns the
extension off, and a client that asks for it is answered without it.

The site is served by a real uvicorn process started with the project's flags (`config.serve`)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

import engine
from config.serve import web_command
from games import services
from tests.accounts.factories import PASSWORD
from tests.games.helpers import make_table

from .site import Browser, running_site

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_server_command_turns_compression_off() -> None:
    command = web_command(host="127.0.0.1", port=8000, environ={})
    at = command.index("--ws-per-message-deflate")
    assert command[at + 1] == "false"


def test_a_table_socket_asking_for_compression_gets_plain_frames(tmp_path, club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    services.table_start(table_id=table.pk, user=a)
    with running_site(tmp_path) as site:
        browser = Browser(site.port)
        assert browser.post_form("/login/", {"username": a.username, "password": PASSWORD}) == 302
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())

        async def first_frames() -> tuple[list[object], list[str | bytes]]:
            async with connect(
                f"ws://127.0.0.1:{site.port}/ws/tables/{table.pk}/",
                compression="deflate",
                additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{site.port}"},
                open_timeout=30,
            ) as ws:
                # The view, the chat, the member's private frame, the public frame (docs/live.md).
                return list(ws.protocol.extensions), [await asyncio.wait_for(ws.recv(), 30) for _ in range(4)]

        extensions, frames = asyncio.run(first_frames())
    assert extensions == []  # asked for, not granted
    assert any("table-live" in str(frame) for frame in frames)  # and the socket works: the table's area arrives
