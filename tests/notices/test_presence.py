"""Presence: no "your turn" or reminder email while the member has the table or the club's lobby open with
a live socket (real sockets through ``config.asgi.application``, the real Redis cache and the notice
tasks of notices/tasks.py); sent once the socket closed or its presence ran out without a ping."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games.live import presence
from games.models import Hand
from notices.tasks import sweep_due_notices
from tests.games.async_helpers import piles_turn
from tests.games.helpers import turn_notice, turn_reminder
from tests.games.test_consumers import close_worker_thread_connections, open_lobby, open_table

__all__ = ["close_worker_thread_connections"]


@pytest.fixture
def turn(club_setup, settings) -> tuple[Hand, User, int]:
    settings.SITE_URL = "https://club.example.org"
    return piles_turn(club_setup)


def _notify(hand: Hand, seat: int) -> bool:
    return bool(turn_notice(hand.pk, seat, 0))


@pytest.mark.django_db(transaction=True)
async def test_no_turn_email_while_the_table_is_open_and_one_after_it_closed(turn, mailoutbox) -> None:
    hand, player, seat = turn
    comm = await open_table(hand.table_id, player)
    assert await database_sync_to_async(presence.is_present)(user_id=player.pk)
    assert await database_sync_to_async(_notify)(hand, seat) is False
    assert await database_sync_to_async(turn_reminder)(hand.pk, seat, 0) is False
    assert mailoutbox == []
    await comm.disconnect()
    assert not await database_sync_to_async(presence.is_present)(user_id=player.pk)
    assert await database_sync_to_async(_notify)(hand, seat) is True
    assert [m.to for m in mailoutbox] == [[player.email]] and mailoutbox[0].subject.startswith("Your turn at")


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_counts_as_present_and_the_sweep_sends_after_it_closed(
    turn, club_setup, mailoutbox, settings
) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 0
    hand, player, seat = turn
    comm = await open_lobby(club_setup.club.pk, player)
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5))["type"] == "pong"
    assert await database_sync_to_async(sweep_due_notices)() == 0
    assert mailoutbox == []
    await comm.disconnect()
    assert await database_sync_to_async(sweep_due_notices)() == 1  # the backstop sends it once they left
    assert [m.to for m in mailoutbox] == [[player.email]]


@pytest.mark.django_db(transaction=True)
async def test_another_members_socket_does_not_hold_back_the_players_email(turn, club_setup, mailoutbox) -> None:
    hand, player, seat = turn
    other = next(
        u
        for u in await database_sync_to_async(lambda: list(User.objects.filter(memberships__club=club_setup.club.pk)))()
        if u.pk != player.pk
    )
    comm = await open_table(hand.table_id, other)
    assert await database_sync_to_async(_notify)(hand, seat) is True
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_of_another_club_does_not_hold_back_this_clubs_email(turn, mailoutbox) -> None:
    hand, player, seat = turn
    elsewhere = await database_sync_to_async(_other_club_of)(player)
    comm = await open_lobby(elsewhere, player)
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5))["type"] == "pong"
    assert await database_sync_to_async(presence.is_present)(user_id=player.pk, club_id=elsewhere)
    assert await database_sync_to_async(_notify)(hand, seat) is True
    await comm.disconnect()


def _other_club_of(user: User) -> int:
    from tests.accounts.factories import ClubFactory, MembershipFactory

    club = ClubFactory()
    MembershipFactory(club=club, user=user)
    return int(club.pk)


@pytest.mark.django_db(transaction=True)
async def test_presence_runs_out_without_a_ping_and_a_ping_keeps_it(turn, mailoutbox, settings) -> None:
    settings.PRESENCE_TTL_SECONDS = 2.0
    hand, player, seat = turn
    comm = await open_table(hand.table_id, player)
    await asyncio.sleep(1.2)
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=5))["type"] == "pong"
    await asyncio.sleep(1.2)  # 2.4 s after opening, 1.2 s after the ping
    assert await database_sync_to_async(_notify)(hand, seat) is False
    await asyncio.sleep(2.2)  # no ping for 3.4 s: the socket no longer counts (its page went quiet)
    assert await database_sync_to_async(_notify)(hand, seat) is True
    assert len(mailoutbox) == 1
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_members_presence_set_stays_bounded(club_setup) -> None:
    user = club_setup.members[0]
    for n in range(presence.MAX_ENTRIES + 20):
        presence.presence_mark(user_id=user.pk, club_id=club_setup.club.pk, channel=f"c{n}")
    client, key = presence._client_key(user.pk)
    assert client.zcard(key) == presence.MAX_ENTRIES
    assert 0 < client.ttl(key) <= 71
    for n in range(presence.MAX_ENTRIES + 20):
        presence.presence_clear(user_id=user.pk, club_id=club_setup.club.pk, channel=f"c{n}")
    assert not presence.is_present(user_id=user.pk)
