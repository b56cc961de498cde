"""One member cannot load the websocket server: a cap on open sockets per member, the frame limit
enforced by the server itself (uvicorn's --ws-max-size on every server command), deeply nested frames
refused clearly, and close codes that do not tell a non-member whether a club or table exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from channels.db import database_sync_to_async

import engine
from config.serve import web_command
from games import services
from games.live import access, frames
from games.models import Table
from tests.games.helpers import make_table
from tests.games.test_consumers import (  # noqa: F401
    close_worker_thread_connections,
    expect_closed,
    open_table,
    refused_with,
)

ROOT = Path(__file__).resolve().parents[2]


@database_sync_to_async
def running_table(setup) -> Table:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a)
    return table


@pytest.mark.django_db(transaction=True)
async def test_a_member_opening_many_sockets_has_the_oldest_closed(club_setup) -> None:
    table = await running_table(club_setup)
    member = club_setup.members[0]
    sockets = [await open_table(table.pk, member) for _ in range(access.SOCKETS_PER_MEMBER)]
    newest = await open_table(table.pk, member)
    await expect_closed(sockets[0], frames.CLOSE_REPLACED)
    for comm in sockets[1:] + [newest]:  # the others stay open and answer
        await comm.send_json_to({"type": "ping"})
        assert (await comm.receive_json_from(timeout=5)) == {"type": "pong"}
        await comm.disconnect()
    # Another member's sockets do not count against this one's.
    other = await open_table(table.pk, club_setup.members[1])
    await other.send_json_to({"type": "ping"})
    assert (await other.receive_json_from(timeout=5)) == {"type": "pong"}
    await other.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_deeply_nested_frame_gets_a_clear_refusal_and_the_socket_lives_on(club_setup) -> None:
    table = await running_table(club_setup)
    comm = await open_table(table.pk, club_setup.members[0])
    for frame in ("[" * 2000 + "]" * 2000, '{"type": "action", "action": ' + "[" * 1900 + "]" * 1900 + "}"):
        await comm.send_to(text_data=frame)
        assert (await comm.receive_json_from(timeout=5)) == {
            "type": "error",
            "message": "That message is nested too deeply.",
        }
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5)) == {"type": "pong"}
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_close_codes_do_not_tell_a_non_member_whether_a_table_or_club_exists(club_setup) -> None:
    table = await running_table(club_setup)
    outsider = club_setup.outsider
    assert await refused_with(f"/ws/tables/{table.pk}/", outsider) == await refused_with("/ws/tables/987654/", outsider)
    assert await refused_with(f"/ws/clubs/{club_setup.club.pk}/lobby/", outsider) == await refused_with(
        "/ws/clubs/987654/lobby/", outsider
    )


def test_every_server_command_limits_frames_to_the_sockets_own_limit() -> None:
    # The one launcher (config/serve.py) passes the sockets' frame limit to uvicorn, whatever else it adds.
    for environ in ({}, {"FORWARDED_ALLOW_IPS": "10.0.0.2"}):
        command = web_command(host="127.0.0.1", port=8000, environ=environ, extra=["--lifespan", "off"])
        at = command.index("--ws-max-size")
        assert int(command[at + 1]) == frames.MAX_FRAME_BYTES, command
        assert command.count("--ws-max-size") == 1, command
    # Every place that serves the site goes through that launcher, never a bare uvicorn command.
    commands = {
        "scripts/dev.py": (ROOT / "scripts/dev.py").read_text(),
        "docker-compose.yml": (ROOT / "docker-compose.yml").read_text(),
        "Dockerfile": (ROOT / "Dockerfile").read_text(),
    }
    for name, text in commands.items():
        assert not [ln for ln in text.splitlines() if "config.asgi" in ln and not ln.lstrip().startswith("#")], (
            f"{name}: a server command that does not go through config.serve"
        )
    assert "web_command(" in commands["scripts/dev.py"]
    for name in ("docker-compose.yml", "Dockerfile"):
        assert '"-m", "config.serve"' in commands[name], name
