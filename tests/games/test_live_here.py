"""A version's messages reach the sockets of the process that published them without a trip through Redis
(games/live/layer.py): once each, whether or not another process listens (then Redis echoes them back here,
and the echo is dropped), and nothing goes to Redis when no other process listens."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

import engine
from games import services
from games.live.layer import origin
from games.live.publish import announce_flush, group_channel_name, table_group
from games.models import Hand
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0])


def _messages(subscriber: Any) -> list[dict[str, Any]]:
    """What a raw Redis subscriber got from this process, waiting up to a second for each."""
    got = []
    while (message := subscriber.get_message(timeout=1)) is not None:
        if message["type"] in ("message", "pmessage") and origin().encode() in message["data"]:
            got.append(message)
    return got


def _dealt(club_setup: Any) -> Hand:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    announce_flush()  # the deal's frames are out before anyone listens
    return hand


def _heard(hand: Hand, user: Any) -> list[dict[str, Any]]:
    """What a socket of this process in the table's group hears in the second after ``user`` acts on it."""
    layer = get_channel_layer()

    async def listen_and_act() -> list[dict[str, Any]]:
        channel = await layer.new_channel()
        await layer.group_add(table_group(hand.table_id), channel)
        await sync_to_async(services.hand_act)(hand_id=hand.pk, user=user, action={"type": "in"}, version=0)
        await sync_to_async(announce_flush)()
        heard = []
        try:
            while True:
                message = await asyncio.wait_for(layer.receive(channel), timeout=1)
                if message.get("origin") == origin():  # not a test run beside this one on the same Redis
                    heard.append(message)
        except TimeoutError:
            pass
        await layer.group_discard(table_group(hand.table_id), channel)
        return heard

    return async_to_sync(listen_and_act)()


def _heard_here_and_beyond(hand: Hand, member: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """What ``member``'s socket here hears of the hand's next version, and what another process's subscriber to
    the table's group hears of it (the version goes to Redis and back here too)."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    other = _redis().pubsub()
    other.subscribe(group_channel_name(prefix, table_group(hand.table_id)))
    try:
        return _heard(hand, member), _messages(other)
    finally:
        other.close()


def test_a_version_reaches_this_processs_socket_once_while_another_process_listens(club_setup) -> None:
    heard, theirs = _heard_here_and_beyond(_dealt(club_setup), club_setup.members[0])
    assert [m["type"] for m in heard] == ["table.public"], heard
    assert len(theirs) == 1  # the other process hears it, once


def test_a_version_reaches_another_process_after_redis_forgot_the_publishers_script(club_setup) -> None:
    """The publisher calls its script by name (EVALSHA); a Redis that forgot it (restarted, or its scripts
    flushed) is sent the script itself, and the version still goes out."""
    hand = _dealt(club_setup)
    _redis().script_flush()
    heard, theirs = _heard_here_and_beyond(hand, club_setup.members[0])
    assert [m["type"] for m in heard] == ["table.public"], heard
    assert len(theirs) == 1


def test_nothing_goes_to_redis_when_no_other_process_listens(club_setup) -> None:
    hand = _dealt(club_setup)
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    spy = _redis().pubsub()  # a pattern subscriber: not counted as a listener of the group's channel
    spy.psubscribe(group_channel_name(prefix, table_group(hand.table_id)))
    try:
        heard = _heard(hand, club_setup.members[0])
        published = _messages(spy)
    finally:
        spy.close()
    assert [m["type"] for m in heard] == ["table.public"], heard
    assert published == []


async def _frames_for(comm: Any, seconds: float) -> list[dict[str, Any]]:
    """What the socket is sent until nothing more comes for ``seconds``."""
    got = []
    while not await comm.receive_nothing(timeout=seconds):
        got.append(await comm.receive_json_from())
    return got


async def test_a_table_socket_says_when_the_members_part_changed_at_another_of_their_tables(club_setup) -> None:
    """The header's count of tables waiting follows on a table page through its one socket: a member's turn
    at their other table gives ``lobby.changed`` on this one (not to the other members), never that table's
    private frame; their turn at this table gives none (its private frame says it)."""
    from tests.games.test_consumers import open_table

    a, b, c = club_setup.members

    def two_tables() -> tuple[Hand, Hand]:
        here = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
        there = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, c])
        hands = (
            services.table_start(table_id=here.pk, user=a),
            services.table_start(table_id=there.pk, user=a),
        )
        announce_flush()
        return hands

    here, there = await sync_to_async(two_tables)()
    mine, theirs = await open_table(here.table_id, a), await open_table(here.table_id, b)
    await sync_to_async(services.hand_act)(hand_id=there.pk, user=a, action={"type": "in"}, version=0)
    await sync_to_async(announce_flush)()
    got = await _frames_for(mine, 1)
    assert [m["type"] for m in got if m["type"] == "lobby.changed"] == ["lobby.changed"]
    # Their private frame of the other table (its group spans their tables) is not forwarded here.
    assert [m for m in got if m.get("table") == there.table_id] == []
    heard = await _frames_for(theirs, 0.5)
    assert [m for m in heard if m["type"] == "lobby.changed" or m.get("table") == there.table_id] == []
    await sync_to_async(services.hand_act)(hand_id=here.pk, user=a, action={"type": "in"}, version=0)
    await sync_to_async(announce_flush)()
    assert "lobby.changed" not in [m["type"] for m in await _frames_for(mine, 1)]
    for comm in (mine, theirs):
        await comm.disconnect()
