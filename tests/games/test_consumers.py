"""The table and lobby sockets: who may connect, bad input, an idle socket, the lobby, seat changes.

Driven with Channels' WebsocketCommunicator against ``config.asgi.application`` (origin check,
session auth, routing) on the real Redis channel layer and the real PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

import engine
from accounts.models import User
from config.asgi import application
from games import services
from games.live import access
from games.live.frames import FLOOD_COUNT, RATE_COUNT
from games.live.publish import announce_flush
from games.models import Hand, Table
from tests.games.helpers import make_table

ORIGIN = b"http://localhost"


@pytest.fixture(autouse=True)
async def close_worker_thread_connections():
    """database_sync_to_async runs the ORM in a worker thread: close its connection after each test,
    or the test database cannot be dropped at the end of the run."""
    yield
    await database_sync_to_async(connections.close_all)()


def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client.cookies["sessionid"].value


def log_out(cookie: str) -> None:
    client = Client()
    client.cookies["sessionid"] = cookie
    assert client.post("/logout/").status_code == 302


async def communicator(path: str, user: User | None, *, origin: bytes = ORIGIN) -> WebsocketCommunicator:
    headers = [(b"origin", origin), (b"host", b"localhost")]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def first_frames(comm: WebsocketCommunicator) -> list[dict[str, Any]]:
    """What a table socket is sent when it opens, in order: the member's view, the chat, the member's own
    private frame when they have a part of their own, the public frame."""
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "hand.view", first
    history = await comm.receive_json_from(timeout=5)
    assert history["type"] == "chat.history"
    frames = [first, history, await comm.receive_json_from(timeout=5)]
    if frames[-1]["type"] == "table.private":
        frames.append(await comm.receive_json_from(timeout=5))
    assert frames[-1]["type"] == "table.public", frames[-1]
    return frames


async def connected_after_what_came_before(path: str, user: User | None) -> WebsocketCommunicator:
    """A socket connected once this process's publishers have sent the frames of what was done before: a deal's
    frames arriving after the connect would be one version behind the connect's own, or taken for an answer
    to what the test does next."""
    await database_sync_to_async(announce_flush)()
    comm = await communicator(path, user)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    return comm


async def open_table(table_id: int, user: User | None) -> WebsocketCommunicator:
    """A connected table socket, past its first frames."""
    comm = await connected_after_what_came_before(f"/ws/tables/{table_id}/", user)
    await first_frames(comm)
    return comm


async def open_lobby(club_id: int, user: User) -> WebsocketCommunicator:
    """A connected lobby socket."""
    return await connected_after_what_came_before(f"/ws/clubs/{club_id}/lobby/", user)


async def refused_with(path: str, user: User | None) -> tuple[int, str]:
    """Connect and expect an application close: (code, reason)."""
    comm = await communicator(path, user)
    connected, _ = await comm.connect(timeout=5)
    assert connected  # accepted so the browser sees the code, then closed at once
    message = await comm.receive_output(timeout=5)
    assert message["type"] == "websocket.close", message
    await comm.wait()
    return message["code"], message.get("reason", "")


async def next_of(comm: WebsocketCommunicator, kind: str, timeout: float = 5) -> dict[str, Any]:
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        if message["type"] == kind:
            return message


async def expect_closed(comm: WebsocketCommunicator, code: int) -> None:
    while True:
        message = await comm.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            assert message["code"] == code, message
            return


@database_sync_to_async
def piranha_table(setup: Any, *, spectators_allowed: bool = True, start: bool = True) -> Table:
    a, b, c = setup.members
    table = make_table(
        setup.club, setup.organiser, engine.PiranhaRules(), players=[a, b, c], spectators_allowed=spectators_allowed
    )
    if start:
        services.table_start(table_id=table.pk, user=a)
        announce_flush()  # the deal's frames are out before any socket opens: none arrives after its first frames
    return table


@database_sync_to_async
def hand_state(table: Table) -> tuple[int, int, dict[str, Any]]:
    hand = Hand.objects.filter(table=table).order_by("-number").first()
    assert hand is not None
    return hand.pk, hand.version, hand.state


# ---- who may connect -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_player_connects_and_gets_their_own_view(club_setup) -> None:
    table = await piranha_table(club_setup)
    a = club_setup.members[0]
    comm = await communicator(f"/ws/tables/{table.pk}/", a)
    assert (await comm.connect(timeout=5))[0]
    view = await comm.receive_json_from(timeout=5)
    hand_id, version, state = await hand_state(table)
    assert view["type"] == "hand.view" and view["hand"] == hand_id and view["version"] == version == 0
    assert view["view"]["you"] == 1 and view["view"]["my_cards"] == list(state["hole"][0])
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_sockets_of_anonymous_users_non_members_and_other_clubs_are_refused(club_setup) -> None:
    table = await piranha_table(club_setup)
    path = f"/ws/tables/{table.pk}/"
    assert (await refused_with(path, None))[0] == 4401
    # A table that is not there and one of another club look the same to a non-member: code and words.
    not_yours = await refused_with(path, club_setup.outsider)  # a member of another club
    assert not_yours[0] == 4403 and "may not watch" in not_yours[1]
    assert await refused_with("/ws/tables/999999/", club_setup.members[0]) == not_yours
    assert (await refused_with(f"/ws/clubs/{club_setup.club.pk}/lobby/", None))[0] == 4401
    not_member = await refused_with(f"/ws/clubs/{club_setup.club.pk}/lobby/", club_setup.outsider)
    assert not_member[0] == 4403
    assert await refused_with("/ws/clubs/999999/lobby/", club_setup.outsider) == not_member


@pytest.mark.django_db(transaction=True)
async def test_a_logged_out_session_is_refused(club_setup) -> None:
    table = await piranha_table(club_setup)
    a = club_setup.members[0]
    cookie = await database_sync_to_async(session_cookie)(a)
    await database_sync_to_async(log_out)(cookie)
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[(b"origin", ORIGIN), (b"host", b"localhost"), (b"cookie", f"sessionid={cookie}".encode())],
    )
    assert (await comm.connect(timeout=5))[0]
    await expect_closed(comm, 4401)


@pytest.mark.django_db(transaction=True)
async def test_a_foreign_origin_is_refused_at_the_handshake(club_setup) -> None:
    table = await piranha_table(club_setup)
    comm = await communicator(f"/ws/tables/{table.pk}/", club_setup.members[0], origin=b"https://evil.example")
    connected, _ = await comm.connect(timeout=5)
    assert not connected


@pytest.mark.django_db(transaction=True)
async def test_spectators_watch_only_where_the_house_rules_allow(club_setup) -> None:
    closed = await piranha_table(club_setup, spectators_allowed=False)
    code, reason = await refused_with(f"/ws/tables/{closed.pk}/", club_setup.organiser)
    assert code == 4403 and "spectators" in reason
    player = await open_table(closed.pk, club_setup.members[0])  # a player of that table still may
    await player.disconnect()
    open_ = await piranha_table(club_setup)
    watcher = await communicator(f"/ws/tables/{open_.pk}/", club_setup.organiser)
    assert (await watcher.connect(timeout=5))[0]
    view = await watcher.receive_json_from(timeout=5)
    assert view["view"]["you"] is None and view["view"]["my_cards"] is None  # the public view
    await watcher.disconnect()


# ---- an idle socket --------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_an_idle_socket_stays_open_and_still_hears_the_next_version(club_setup) -> None:
    """redis-py 8: a Redis read timeout once closed quiet sockets after 5-12 s (docs/settings-and-security.md)."""
    table = await piranha_table(club_setup)
    a = club_setup.members[0]
    comm = await open_table(table.pk, club_setup.members[1])
    await asyncio.sleep(13)
    assert await comm.receive_nothing(timeout=0.2)  # no close, nothing at all while idle
    hand_id, version, _ = await hand_state(table)
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=a, action={"type": "in"}, version=version)
    area = await next_of(comm, "table.public")
    assert area["version"] == version + 1
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5)) == {"type": "pong"}
    await comm.disconnect()


# ---- bad input -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_bad_frames_get_an_error_to_that_socket_only_and_change_nothing(club_setup) -> None:
    table = await piranha_table(club_setup)
    a, b, _ = club_setup.members
    sender = await open_table(table.pk, a)
    other = await open_table(table.pk, b)
    hand_id, version, state = await hand_state(table)
    cases: list[tuple[Any, str]] = [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "Unknown message type"),
        ('{"type": "launch"}', "Unknown message type"),
        ('{"no": "type"}', "Unknown message type"),
        ("[" * 2000 + "]" * 2000, "nested too deeply"),
        ('{"type": "action", "action": "in"}', "moved on"),
        ('{"type": "action", "action": 5, "version": 0}', "Choose an action"),
        ('{"type": "action", "action": "in", "version": "zero"}', "moved on"),
        ('{"type": "action", "action": "in", "version": 0, "hand": "x"}', "not being played"),
        ('{"type": "action", "action": {"type": "teleport"}, "version": 0}', "."),
        (json.dumps({"type": "action", "action": "in", "version": 7, "hand": hand_id}), "moved on"),
        ('{"type": "action", "action": "in", "version": 0}', "not being played"),  # no hand named: refused, not guessed
        ('{"type": "action", "action": "in", "version": 0, "hand": 123456}', "not being played"),
        ('{"type": "chat"}', "text"),
        ('{"type": "chat.hide", "id": "x"}', "Which message"),
    ]
    for frame, words in cases:
        await sender.send_to(text_data=frame)
        reply = await sender.receive_json_from(timeout=5)
        assert reply["type"] == "error" and words in reply["message"], (frame, reply)
    await sender.send_to(bytes_data=b"\x00\x01")
    assert (await sender.receive_json_from(timeout=5))["message"] == "Send JSON text frames."
    # Seat 2 acting out of turn? In Piranha's drop everyone decides at once; a spectator's action:
    assert await other.receive_nothing(timeout=0.3)  # nothing reached the other socket
    assert await hand_state(table) == (await hand_state(table))[0:1] + (version, state)
    await sender.disconnect()
    await other.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_spectators_action_is_refused_with_the_services_message(club_setup) -> None:
    table = await piranha_table(club_setup)
    watcher = await open_table(table.pk, club_setup.organiser)
    hand_id, _, _ = await hand_state(table)
    await watcher.send_json_to({"type": "action", "hand": hand_id, "action": "in", "version": 0})
    reply = await watcher.receive_json_from(timeout=5)
    assert reply == {"type": "error", "message": "You are not playing in this hand."}
    await watcher.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_oversized_frame_is_refused_and_the_socket_closed(club_setup) -> None:
    table = await piranha_table(club_setup)
    comm = await open_table(table.pk, club_setup.members[0])
    await comm.send_json_to({"type": "chat", "text": "x" * 5000})
    reply = await comm.receive_json_from(timeout=5)
    assert reply["type"] == "error" and "too large" in reply["message"]
    await expect_closed(comm, 1009)
    assert await database_sync_to_async(lambda: table.chat_messages.count())() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_flood_is_slowed_then_closed(club_setup) -> None:
    table = await piranha_table(club_setup)
    comm = await open_table(table.pk, club_setup.members[0])
    replies = []
    for _ in range(RATE_COUNT):
        await comm.send_json_to({"type": "ping"})
        replies.append(await comm.receive_json_from(timeout=5))
    assert all(r == {"type": "pong"} for r in replies)
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5)) == {"type": "error", "message": "Too many messages: slow down."}
    for _ in range(FLOOD_COUNT - RATE_COUNT):
        await comm.send_json_to({"type": "ping"})
    await expect_closed(comm, 4429)


@pytest.mark.django_db(transaction=True)
async def test_membership_is_checked_again_on_each_action(club_setup) -> None:
    table = await piranha_table(club_setup)
    a = club_setup.members[0]
    comm = await open_table(table.pk, a)
    from accounts.models import Membership

    await database_sync_to_async(lambda: Membership.objects.filter(user=a, club=club_setup.club).delete())()
    await comm.send_json_to({"type": "action", "action": "in", "version": 0})
    await expect_closed(comm, 4403)
    _, version, _ = await hand_state(table)
    assert version == 0


# ---- live seats and the lobby ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_hears_new_tables_seats_and_turns(club_setup) -> None:
    a, b, c = club_setup.members
    lobby = await communicator(f"/ws/clubs/{club_setup.club.pk}/lobby/", c)
    assert (await lobby.connect(timeout=5))[0]
    table = await piranha_table(club_setup, start=False)  # a new table, three seats taken
    assert (await lobby.receive_json_from(timeout=5)) == {"type": "lobby.changed"}
    watcher = await open_table(table.pk, club_setup.organiser)
    await database_sync_to_async(services.seat_sit_out)(table_id=table.pk, user=c)
    changed = await next_of(watcher, "table.public")
    assert changed["table"] == table.pk and changed["full"] and "sitting out" in changed["html"]
    assert (await next_of(lobby, "lobby.changed")) == {"type": "lobby.changed"}
    hand = await database_sync_to_async(services.table_start)(table_id=table.pk, user=a)
    assert (await next_of(lobby, "lobby.changed")) == {"type": "lobby.changed"}
    area = await next_of(watcher, "table.public")
    while area["hand"] is None:  # the seat change's frame came first
        area = await next_of(watcher, "table.public")
    assert area["hand"] == hand.pk and area["version"] == 0
    await database_sync_to_async(services.hand_act)(hand_id=hand.pk, user=b, action={"type": "in"}, version=0)
    assert (await next_of(lobby, "lobby.changed")) == {"type": "lobby.changed"}
    await lobby.send_to(text_data=json.dumps({"type": "nonsense"}))
    assert (await next_of(lobby, "error"))["message"] == "Unknown message type."
    await lobby.disconnect()
    await watcher.disconnect()


# ---- a session that ends while the socket is open ----------------------------------------------


async def logged_in_socket(path: str, user: User) -> tuple[WebsocketCommunicator, str]:
    """A connected socket and the session cookie it connected with (past the table's first messages)."""
    cookie = await database_sync_to_async(session_cookie)(user)
    comm = WebsocketCommunicator(
        application,
        path,
        headers=[(b"origin", ORIGIN), (b"host", b"localhost"), (b"cookie", f"sessionid={cookie}".encode())],
    )
    assert (await comm.connect(timeout=5))[0]
    if path.startswith("/ws/tables/"):
        await first_frames(comm)
    return comm, cookie


async def outputs_until_closed(comm: WebsocketCommunicator) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every JSON message the socket sent before it closed, and the close message."""
    sent = []
    while True:
        message = await comm.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return sent, message
        sent.append(json.loads(message["text"]))


@pytest.mark.django_db(transaction=True)
async def test_after_logout_an_open_socket_can_no_longer_act_and_gets_no_more_views(club_setup) -> None:
    table = await piranha_table(club_setup)
    a, b, _ = club_setup.members
    comm, cookie = await logged_in_socket(f"/ws/tables/{table.pk}/", a)
    await database_sync_to_async(log_out)(cookie)
    hand_id, version, state = await hand_state(table)
    await comm.send_json_to({"type": "action", "hand": hand_id, "action": "in", "version": version})
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4401 and sent == []
    assert await hand_state(table) == (hand_id, version, state)  # nothing changed
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=b, action={"type": "in"}, version=version)
    while not await comm.receive_nothing(timeout=1):  # the next version reaches the group handler: it closes again
        message = await comm.receive_output(timeout=1)
        assert message["type"] == "websocket.close" and message["code"] == 4401, message
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_after_logout_the_next_version_closes_the_socket_instead_of_sending_the_view(club_setup) -> None:
    table = await piranha_table(club_setup)
    a, b, _ = club_setup.members
    comm, cookie = await logged_in_socket(f"/ws/tables/{table.pk}/", a)
    await database_sync_to_async(log_out)(cookie)
    hand_id, version, _ = await hand_state(table)
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=b, action={"type": "in"}, version=version)
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4401 and all(
        m["type"] not in ("hand.view", "table.public", "table.private") for m in sent
    ), sent
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_after_logout_chat_is_refused_and_no_longer_heard(club_setup) -> None:
    table = await piranha_table(club_setup)
    a, b, _ = club_setup.members
    comm, cookie = await logged_in_socket(f"/ws/tables/{table.pk}/", a)
    other = await open_table(table.pk, b)
    await database_sync_to_async(log_out)(cookie)
    await other.send_json_to({"type": "chat", "text": "still there?"})
    assert (await next_of(other, "chat.message"))["message"]["text"] == "still there?"
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4401 and sent == []
    await comm.send_json_to({"type": "chat", "text": "I am logged out"})
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4401 and sent == []
    assert await database_sync_to_async(lambda: table.chat_messages.count())() == 1
    await comm.disconnect()
    await other.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_after_logout_the_lobby_socket_closes(club_setup) -> None:
    c = club_setup.members[2]
    lobby, cookie = await logged_in_socket(f"/ws/clubs/{club_setup.club.pk}/lobby/", c)
    await database_sync_to_async(log_out)(cookie)
    await lobby.send_json_to({"type": "sync"})
    sent, close = await outputs_until_closed(lobby)
    assert close["code"] == 4401 and sent == []
    await lobby.disconnect()
    lobby, cookie = await logged_in_socket(f"/ws/clubs/{club_setup.club.pk}/lobby/", c)
    await database_sync_to_async(log_out)(cookie)
    await piranha_table(club_setup, start=False)  # a new table: lobby.changed to the group
    sent, close = await outputs_until_closed(lobby)
    assert close["code"] == 4401 and sent == []
    await lobby.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_live_chat_no_longer_reaches_a_socket_whose_membership_ended(club_setup) -> None:
    from accounts.models import Membership

    table = await piranha_table(club_setup)
    a, b, _ = club_setup.members
    comm = await open_table(table.pk, a)
    other = await open_table(table.pk, b)
    await database_sync_to_async(lambda: Membership.objects.filter(user=a, club=club_setup.club).delete())()
    await other.send_json_to({"type": "chat", "text": "a is gone"})
    assert (await next_of(other, "chat.message"))["message"]["text"] == "a is gone"
    sent, close = await outputs_until_closed(comm)
    assert close["code"] == 4403 and sent == []
    await comm.disconnect()
    await other.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_action_after_the_members_access_moved_is_checked_afresh_and_applied(club_setup) -> None:
    """The access stamp moved (here: bumped as a change of the account would) but the session and the
    membership still hold: the socket checks them against the database, then applies the action."""
    table = await piranha_table(club_setup)
    a, _, _ = club_setup.members
    comm, _cookie = await logged_in_socket(f"/ws/tables/{table.pk}/", a)
    await database_sync_to_async(access.access_bump)(a.pk)
    hand_id, version, _ = await hand_state(table)
    await comm.send_json_to({"type": "action", "hand": hand_id, "action": "in", "version": version})
    while (message := await comm.receive_json_from(timeout=10))["type"] != "action.ok":
        assert message["type"] != "error", message
    assert message["version"] == version + 1
    assert (await hand_state(table))[:2] == (hand_id, version + 1)
    await comm.disconnect()
