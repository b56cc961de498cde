"""The turn clock (hand_apply_timeout) and the on-commit announcement to the table's group."""

from __future__ import annotations

import copy
import json
import logging
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone
from redis.exceptions import RedisError

import engine
from games import services
from games.live.layer import origin
from games.live.publish import announce_flush
from games.models import Hand, HandAction
from tests.games.helpers import make_table


def expire(hand: Hand) -> None:
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))


@pytest.mark.django_db
def test_the_deadline_follows_the_rule_sets_turn_clock(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(turn_seconds=600), players=[a, b])
    before = timezone.now()
    hand = services.table_start(table_id=table.pk, user=a)
    assert before + timedelta(seconds=599) < hand.deadline < timezone.now() + timedelta(seconds=601)
    # A sealed drop has one clock for everyone: one decision does not restart it.
    deadline = hand.deadline
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    hand.refresh_from_db()
    assert hand.deadline == deadline


@pytest.mark.django_db
def test_a_timeout_applies_the_default_for_every_awaited_seat_once(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    assert services.hand_apply_timeout(hand_id=hand.pk, version=1) is False  # the clock has not run out
    expire(hand)
    assert services.hand_apply_timeout(hand_id=hand.pk, version=0) is False  # the version moved on
    assert services.hand_apply_timeout(hand_id=hand.pk, version=1) is True
    hand.refresh_from_db()
    assert hand.is_finished
    timeouts = list(HandAction.objects.filter(hand=hand, is_timeout=True).order_by("sequence"))
    assert [(t.seat, t.action) for t in timeouts] == [(2, {"type": "out"}), (3, {"type": "out"})]
    # A alone stayed in: uncontested, the game is over.
    assert engine.result(engine.state_from_json(hand.state)).game_over is True
    assert services.hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False  # twice: no change


@pytest.mark.django_db
def test_a_betting_timeout_checks_when_free(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    expire(hand)
    assert services.hand_apply_timeout(hand_id=hand.pk, version=0) is True
    row = HandAction.objects.get(hand=hand)
    assert row.action == {"type": "check"} and row.is_timeout
    hand.refresh_from_db()
    assert hand.version == 1 and hand.deadline > timezone.now()  # the next player's clock


@pytest.mark.django_db(transaction=True)
def test_an_action_announces_the_new_version_to_the_tables_group_on_commit(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    announce_flush()  # the deal's frames are out before the listener joins
    layer = get_channel_layer()

    async def listen_and_act() -> dict:
        import asyncio

        from asgiref.sync import sync_to_async

        channel = await layer.new_channel()
        await layer.group_add(f"table.{table.pk}", channel)
        await sync_to_async(services.hand_act)(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
        message = await asyncio.wait_for(layer.receive(channel), timeout=5)
        await layer.group_discard(f"table.{table.pk}", channel)
        return message

    message = async_to_sync(listen_and_act)()
    assert isinstance(message.pop("sent_at"), float)  # when it was sent: the broadcast latency metric
    assert message.pop("origin") == origin()  # the sending process: its own echo from Redis is dropped
    frame = json.loads(message.pop("text"))
    # The players' access stamps as the publisher read them: their sockets read none to forward the frame.
    assert message == {
        "type": "table.public",
        "stamps": {str(a.pk): message["stamps"][str(a.pk)], str(b.pk): message["stamps"][str(b.pk)]},
    }
    assert (frame["type"], frame["table"], frame["hand"], frame["version"]) == ("table.public", table.pk, hand.pk, 1)


@pytest.mark.django_db(transaction=True)  # the announcement runs when the action's transaction commits
def test_a_redis_hiccup_never_breaks_the_action(club_setup, settings, caplog) -> None:
    from channels.layers import channel_layers

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    announce_flush()  # the deal's announcement goes out on the working layer
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
        }
    }
    channel_layers.backends.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="games.live.publish"):
            services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
            announce_flush()  # the process's sender sends (and fails) after the action has returned
    finally:
        channel_layers.backends.clear()
    assert Hand.objects.get(pk=hand.pk).version == 1  # the action stands
    told = [r for r in caplog.records if r.name == "games.live.publish"]
    assert [r.getMessage() for r in told] == [f"Could not announce table {table.pk} version 1"]
    assert told[0].exc_info is not None
    assert isinstance(told[0].exc_info[1], OSError | RedisError), told[0].exc_info  # Redis, not the database


@pytest.mark.django_db(transaction=True)
def test_the_action_returns_without_waiting_for_its_announcement(club_setup, monkeypatch) -> None:
    """The thread that committed hands the announcement over and returns: a slow Redis delays the screens,
    never the player's answer (nor, for a socket's action, the worker thread it runs in)."""
    import threading
    import time

    import msgpack

    from games.live import publish

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    announce_flush()
    release = threading.Event()
    sent: list[int] = []
    original = publish.command

    def slow_send(client, *args):  # Redis answering the publisher's script late (at most 3 s here)
        release.wait(3)
        first = next(arg for arg in args if isinstance(arg, bytes))  # the version's first message
        sent.append(json.loads(msgpack.unpackb(first)["text"])["version"])
        return original(client, *args)

    monkeypatch.setattr(publish, "command", slow_send)
    started = time.monotonic()
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    took = time.monotonic() - started
    assert sent == [], sent  # not sent yet, and the action has returned
    assert took < 1.5, took
    release.set()
    announce_flush()
    assert sent[0] == 1, sent


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "backend", ["channels_redis.pubsub.RedisPubSubChannelLayer", "channels_redis.core.RedisChannelLayer"]
)
def test_announcements_reach_the_group_in_the_order_the_versions_were_committed(club_setup, settings, backend) -> None:
    """Through the pub/sub layer the publisher PUBLISHes a version's messages itself, in one Redis call; another
    layer gets them through its own group_send. Either way the group hears every version, in order."""
    from channels.layers import channel_layers

    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    announce_flush()
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["BACKEND"] = backend
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    layer = get_channel_layer()

    def play() -> None:  # six checks in a row, each committed and announced before the next
        from tests.games.async_helpers import awaited, user_at

        for version in range(6):
            services.hand_act(
                hand_id=hand.pk, user=user_at(hand, awaited(hand)[0]), action={"type": "check"}, version=version
            )

    async def listen_and_play() -> list[int]:
        import asyncio

        from asgiref.sync import sync_to_async

        channel = await layer.new_channel()
        await layer.group_add(f"table.{table.pk}", channel)
        await sync_to_async(play)()
        versions = []
        while len(versions) < 6:
            message = await asyncio.wait_for(layer.receive(channel), timeout=5)
            if message["type"] == "table.public":
                versions.append(json.loads(message["text"])["version"])
        await layer.group_discard(f"table.{table.pk}", channel)
        return versions

    try:
        assert async_to_sync(listen_and_play)() == [1, 2, 3, 4, 5, 6]
    finally:
        channel_layers.backends.clear()
