"""A task's message (a hand's alarm, a computer turn) is sent with the broker channel's kept redis-py client
(config/celery.py ``RedisTransport``), not a client made for it: kombu's own Redis channel makes one per
command, and redis-py builds its reply handlers anew each time (docs/live.md "Machinery", "Kept clients")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from config.celery import app
from games.services.after_commit import HAND_ALARM
from tests.games.celery_worker import queue_name


@pytest.fixture
def clients_made(monkeypatch) -> list[int]:
    """How many redis-py clients this process makes from now on (each one still made)."""
    made: list[int] = []
    init = redis.Redis.__init__

    def counted(self: redis.Redis, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    return made


def _alarm(hand_id: int) -> None:
    at = timezone.now() + timedelta(days=1)  # an eta no worker of this test takes
    HAND_ALARM.apply_async(kwargs={"hand_id": hand_id, "at": at.isoformat()}, eta=at)


def test_alarms_are_sent_without_a_redis_client_each(clients_made: list[int]) -> None:
    _alarm(1)  # the channel's first command makes its client (and its pool, once)
    clients_made.clear()
    for hand_id in range(2, 7):
        _alarm(hand_id)
    assert clients_made == []
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        assert client.llen(queue_name()) == 6  # every message is on the broker
    finally:
        client.close()


def test_a_channel_whose_pool_was_dropped_sends_with_a_client_of_its_new_pool() -> None:
    """kombu drops a channel's pools after a lost connection (and in a forked child): the kept client goes with
    the pool it wraps."""
    with app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        first = channel._create_client()
        assert channel._create_client() is first
        channel._disconnect_pools()
        second = channel._create_client()
        assert second is not first
        assert second.connection_pool is channel.pool
        second.lpush(queue_name(), "probe")  # the new pool connects
        assert second.llen(queue_name()) == 1
