"""A member cut off by a logout, a password change or the end of their membership gets no frame of a table after
the change and can make no action there, through sockets they opened before it: each change bumps the member's
access stamp, and an open socket checks access against the database again when the stamp moved
(games/live/access.py). Attacked as that member, holding two sockets of the table opened before the change (one
sends an action, the other waits for the next version): as a player, whose stamp the publisher sends with each
frame, and as a spectator, whose socket reads its own stamp."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import Membership, User
from accounts.services import membership_remove
from config.asgi import application
from games import services
from games.live.frames import CLOSE_FORBIDDEN, CLOSE_NOT_LOGGED_IN
from tests.accounts.factories import PASSWORD
from tests.games.test_consumers import (
    ORIGIN,
    first_frames,
    hand_state,
    log_out,
    outputs_until_closed,
    piranha_table,
    session_cookie,
)

pytestmark = pytest.mark.django_db(transaction=True)

FRAMES = ("hand.view", "table.public", "table.private", "chat.message")
NEW_PASSWORD = "a-Longer-passphrase-of-92"


def _password_changed_elsewhere(user: User) -> None:
    """The member changes their password on another device, through the site's form."""
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    response = client.post(
        "/password/change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()[:500]


def _removed_by_an_organiser(club_setup: object, user: User) -> None:
    club = club_setup.club  # type: ignore[attr-defined]
    membership = Membership.objects.get(user=user, club=club)
    membership_remove(club_id=club.pk, membership_id=membership.pk, by=club_setup.organiser)  # type: ignore[attr-defined]


async def _socket(path: str, cookie: str) -> WebsocketCommunicator:
    """A table socket opened with the session ``cookie``, past its first frames."""
    comm = WebsocketCommunicator(
        application,
        path,
        headers=[(b"origin", ORIGIN), (b"host", b"localhost"), (b"cookie", f"sessionid={cookie}".encode())],
    )
    assert (await comm.connect(timeout=5))[0]
    await first_frames(comm)
    return comm


CHANGES: dict[str, tuple[Callable[[object, User, str], Awaitable[None]], int]] = {
    "logout": (lambda setup, user, cookie: database_sync_to_async(log_out)(cookie), CLOSE_NOT_LOGGED_IN),
    "password": (
        lambda setup, user, cookie: database_sync_to_async(_password_changed_elsewhere)(user),
        CLOSE_NOT_LOGGED_IN,
    ),
    "membership": (
        lambda setup, user, cookie: database_sync_to_async(_removed_by_an_organiser)(setup, user),
        CLOSE_FORBIDDEN,
    ),
}


@pytest.mark.parametrize("who", ["player", "spectator"])
@pytest.mark.parametrize("change", list(CHANGES))
async def test_after_the_change_an_open_socket_gets_no_frame_and_makes_no_action(club_setup, change, who) -> None:
    a, b, c = club_setup.members
    table = await piranha_table(club_setup)  # a, b and c seated, dealt in; the organiser may watch
    user = a if who == "player" else club_setup.organiser
    if who == "spectator" and change == "membership":  # the last organiser cannot be removed: make another
        await database_sync_to_async(
            lambda: Membership.objects.filter(user=c, club=club_setup.club).update(role=Membership.Role.ORGANISER)
        )()
    cookie = await database_sync_to_async(session_cookie)(user)  # one session, two pages
    acting, watching = [await _socket(f"/ws/tables/{table.pk}/", cookie) for _ in range(2)]
    run, code = CHANGES[change]
    await run(club_setup, user, cookie)
    before = await hand_state(table)

    hand_id, version, _ = before
    await acting.send_json_to({"type": "action", "hand": hand_id, "action": "in", "version": version})
    sent, close = await outputs_until_closed(acting)
    assert close["code"] == code and sent == [], (sent, close)
    assert await hand_state(table) == before  # the action was not applied

    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=b, action={"type": "in"}, version=version)
    sent, close = await outputs_until_closed(watching)
    assert close["code"] == code, close
    assert [m["type"] for m in sent if m["type"] in FRAMES] == [], sent
    await acting.disconnect()
    await watching.disconnect()


def _session_ending_in(user: User, seconds: int) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    session = client.session
    session.set_expiry(seconds)
    session.save()
    return client.cookies["sessionid"].value


async def test_once_its_session_has_expired_a_socket_gets_no_frame_and_makes_no_action(club_setup) -> None:
    """No stamp moves when a session ends by itself: each frame and action is checked against the session's
    end as the socket read it on connect."""
    a, b, _ = club_setup.members
    table = await piranha_table(club_setup)
    cookie = await database_sync_to_async(_session_ending_in)(a, 2)
    acting, watching = [await _socket(f"/ws/tables/{table.pk}/", cookie) for _ in range(2)]
    await asyncio.sleep(2.2)
    before = await hand_state(table)
    hand_id, version, _ = before
    await acting.send_json_to({"type": "action", "hand": hand_id, "action": "in", "version": version})
    sent, close = await outputs_until_closed(acting)
    assert close["code"] == CLOSE_NOT_LOGGED_IN and sent == [], (sent, close)
    assert await hand_state(table) == before
    await database_sync_to_async(services.hand_act)(hand_id=hand_id, user=b, action={"type": "in"}, version=version)
    sent, close = await outputs_until_closed(watching)
    assert close["code"] == CLOSE_NOT_LOGGED_IN and [m for m in sent if m["type"] in FRAMES] == [], sent
    await acting.disconnect()
    await watching.disconnect()
