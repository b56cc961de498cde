"""GET /metrics: never public; the counts an operator watches move when the site works."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

import engine
from games import services
from games.models import Hand
from games.tasks import hand_alarm, sweep_overdue_turns
from notices.tasks import push_notice
from operations.tasks import verify_books
from tests.games.async_helpers import expire, user_at
from tests.games.celery_worker import purge_queue
from tests.games.helpers import make_table
from tests.games.test_consumers import open_table

pytestmark = pytest.mark.django_db


def scrape(**extra: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client(REMOTE_ADDR="127.0.0.1", **extra).get("/metrics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.mark.parametrize("address", ["203.0.113.9", "10.0.0.7", "::ffff:1.2.3.4"])
def test_metrics_are_refused_to_other_addresses_without_the_token(settings, address):
    settings.METRICS_TOKEN = "s3cret-token"
    client = Client(REMOTE_ADDR=address)
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 200


def test_without_a_token_only_the_allowed_addresses_may_scrape(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8"]
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 403
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 200
    settings.METRICS_ALLOWED_IPS = []
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 403


def test_metrics_answer_whatever_the_host_header(settings):
    settings.ALLOWED_HOSTS = ["club.example"]
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics", HTTP_HOST="web:8000").status_code == 200


@pytest.fixture
def unverified_books():
    """No verification stored yet (Redis outlives a test)."""
    from kernel.metrics import _redis_key, redis_client
    from operations.scrape import LEDGER_KEY

    client = redis_client()
    client.delete(_redis_key(LEDGER_KEY))
    client.close()


def test_actions_timeouts_overdue_turns_and_the_ledger_are_counted(club_setup, unverified_books):
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    before = scrape()
    seat = engine.to_act(engine.state_from_json(hand.state))[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "out"}, version=hand.version)
    with pytest.raises(Exception):  # the same version again: refused
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "out"}, version=hand.version)
    hand.refresh_from_db()
    expire(hand, ago=3600)  # a clock that ran out an hour ago and nobody applied: overdue
    mid = scrape()
    assert (
        value(mid, "club_actions_total", outcome="applied")
        == value(before, "club_actions_total", outcome="applied") + 1
    )
    assert (
        value(mid, "club_actions_total", outcome="refused")
        == value(before, "club_actions_total", outcome="refused") + 1
    )
    assert value(mid, "club_action_seconds_count") == value(before, "club_action_seconds_count") + 1
    assert value(mid, "club_overdue_turns") == 1
    assert value(mid, "club_ledger_ok") == -1  # not verified yet

    assert sweep_overdue_turns() == 1
    assert verify_books() is True
    after = scrape()
    assert value(after, "club_overdue_turns") == 0
    assert (
        value(after, "club_timeouts_applied_total", by="sweep")
        == value(mid, "club_timeouts_applied_total", by="sweep") + 1
    )
    assert value(after, "club_timeouts_applied_total", by="task") == value(
        mid, "club_timeouts_applied_total", by="task"
    )
    assert value(after, "club_ledger_ok") == 1 and value(after, "club_ledger_problems") == 0
    assert value(after, "club_ledger_verified_timestamp_seconds") > 0


def test_the_queue_depth_counts_waiting_tasks(club_setup):
    purge_queue()
    assert value(scrape(), "club_celery_queue_depth", queue=_queue()) == 0
    for version in range(3):  # no worker reads this run's queue: they wait
        hand_alarm.apply_async(kwargs={"hand_id": 0, "at": f"2026-01-01T00:00:0{version}+00:00"})
    try:
        assert value(scrape(), "club_celery_queue_depth", queue=_queue()) == 3
        push_notice.apply_async(
            kwargs={"user_id": 0, "kind": "turn", "title": "", "body": "", "url": "", "tag": ""}, queue=_push_queue()
        )
        assert value(scrape(), "club_celery_queue_depth", queue=_push_queue()) == 1
    finally:
        purge_queue()


def _push_queue() -> str:
    from tests.games.celery_worker import push_queue_name

    return push_queue_name()


def _queue() -> str:
    from tests.games.celery_worker import queue_name

    return queue_name()


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_and_broadcast_latency(club_setup):
    a, b, _ = club_setup.members
    table = await database_sync_to_async(make_table)(club_setup.club, club_setup.organiser, players=[a, b])
    before = await database_sync_to_async(scrape)()
    comms = [await open_table(table.pk, a), await open_table(table.pk, b)]
    opened = await database_sync_to_async(scrape)()
    assert value(opened, "club_open_sockets") == value(before, "club_open_sockets") + 2
    hand = await database_sync_to_async(services.table_start)(table_id=table.pk, user=a)
    for comm in comms:  # each socket is sent the new hand's public frame
        while not (
            (frame := await comm.receive_json_from(timeout=5))["type"] == "table.public" and frame["hand"] == hand.pk
        ):
            pass
    seen = await database_sync_to_async(scrape)()
    assert value(seen, "club_broadcast_seconds_count") >= value(before, "club_broadcast_seconds_count") + 2
    for comm in comms:
        await comm.disconnect()
    closed = await database_sync_to_async(scrape)()
    assert value(closed, "club_open_sockets") == value(before, "club_open_sockets")
    await database_sync_to_async(connections.close_all)()


def test_a_hand_past_its_deadline_but_within_the_sweeps_reach_is_not_overdue(club_setup):
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert value(scrape(), "club_overdue_turns") == 0
