"""Turn clocks on a real Celery worker and the embedded Redis: a two-second clock times out and the
table's sockets hear it; a worker killed with turns overdue loses none of them, and the beat sweep
of a new worker resolves each exactly once."""

from __future__ import annotations

import re
import time

import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.db.models import Count

import engine
from games import services
from games.models import Hand, HandAction, Table
from tests.games.celery_worker import SWEPT, start_beat, start_worker, wait_for_two_more_sweeps, wait_until
from tests.games.helpers import make_table
from tests.games.test_consumers import open_table

pytestmark = [pytest.mark.celery]

CLOCK = 2  # seconds: the house clock's 10 s (the shortest allowed) times TURN_CLOCK_SCALE
SCALE = "0.2"


@pytest.fixture(autouse=True)
async def close_worker_thread_connections():
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.fixture(autouse=True)
def two_second_clocks(settings) -> None:
    settings.TURN_CLOCK_SCALE = float(SCALE)  # here; the workers get it from their environment


def quick_table(setup, players, turn_seconds: int = 10) -> Table:
    """A Piranha table with a 10 s house clock (two seconds scaled) whose drop ends the game when
    nobody is in, so one round of timeouts finishes it."""
    return make_table(
        setup.club, setup.organiser, engine.PiranhaRules(nobody_in="split", turn_seconds=turn_seconds), players=players
    )


@pytest.mark.django_db(transaction=True)
async def test_a_two_second_clock_times_out_on_the_worker_and_the_socket_hears_it(club_setup, procs, tmp_path) -> None:
    a, b, _ = club_setup.members
    procs.append(await database_sync_to_async(start_worker)(tmp_path, TURN_CLOCK_SCALE=SCALE))
    table = await database_sync_to_async(quick_table)(club_setup, [a, b])
    comm = await open_table(table.pk, a)
    started = time.monotonic()
    hand = await database_sync_to_async(services.table_start)(table_id=table.pk, user=a)
    seen = []
    while True:  # version 0 (the deal), then the timeout's version with the hand over
        message = await comm.receive_json_from(timeout=15)
        if message["type"] != "table.public" or message["hand"] is None:
            continue
        seen.append((message["hand"], message["version"], message["finished"]))
        if message["finished"]:
            break
    elapsed = time.monotonic() - started
    await comm.disconnect()
    assert seen[-1] == (hand.pk, 2, True) and CLOCK - 0.5 < elapsed < CLOCK + 8

    @database_sync_to_async
    def log() -> list[tuple[int, dict, bool]]:
        return list(
            HandAction.objects.filter(hand=hand).order_by("sequence").values_list("seat", "action", "is_timeout")
        )

    assert await log() == [(1, {"type": "out"}, True), (2, {"type": "out"}, True)]


@pytest.mark.django_db(transaction=True)
def test_a_killed_worker_loses_no_timeout_and_the_sweep_applies_each_once(club_setup, procs, tmp_path) -> None:
    a, b, c = club_setup.members
    first = start_worker(tmp_path, TURN_CLOCK_SCALE=SCALE)
    procs.append(first)
    hands = []
    for players in ([a, b], [b, c], [a, c], [a, b, c]):
        table = quick_table(club_setup, players, turn_seconds=30)  # 6 s: time to reserve all four on a busy machine
        hands.append(services.table_start(table_id=table.pk, user=players[0]))
    deadline = time.monotonic() + 5  # the worker has reserved the eta messages of these clocks ...
    while len(re.findall(r"hand_alarm\[[^]]+\] received", first.text())) < len(hands):
        assert time.monotonic() < deadline, f"the worker did not reserve every clock:\n{first.text()[-3000:]}"
        time.sleep(0.1)
    first.kill9()  # ... and dies holding them: Redis gives them back only after the visibility timeout
    second = start_worker(tmp_path, ready=False, TURN_CLOCK_SCALE=SCALE)  # starts while the clocks run out
    procs.append(second)
    while Hand.objects.filter(pk__in=[h.pk for h in hands], deadline__gte=time_now()).exists():
        time.sleep(0.2)
    second.wait_for("ready.")
    overdue = Hand.objects.filter(
        pk__in=[h.pk for h in hands], finished_at__isnull=True, deadline__lt=time_now()
    ).count()
    assert overdue == len(hands)  # nobody applied them, not even the new worker
    procs.append(start_beat(tmp_path, sweep_seconds=0.5))
    wait_until(
        lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], finished_at__isnull=True).exists(),
        20,
        "the sweep did not resolve every overdue turn",
    )
    wait_for_two_more_sweeps([second])  # none applies anything twice
    # The dead worker had taken every hand's alarm; the new worker's sweeps applied them, 4 in all.
    assert len(re.findall(r"hand_alarm\[[^]]+\] received", first.text())) == len(hands)
    swept = [int(n) for n in SWEPT.findall(second.text())]
    assert sum(swept) == len(hands)
    for hand in hands:
        rows = HandAction.objects.filter(hand=hand)
        assert rows.count() == len(hand.players) and all(r.is_timeout for r in rows)
        assert {r.seat for r in rows} == {int(s) for s in hand.players}
    counts = (
        HandAction.objects.filter(hand__in=hands)
        .values("hand", "seat")
        .annotate(n=Count("id"))
        .values_list("n", flat=True)
    )
    assert set(counts) == {1}


def time_now():
    from django.utils import timezone

    return timezone.now()
