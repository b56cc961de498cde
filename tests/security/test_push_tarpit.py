"""A member's push endpoints cannot stall the clocks: ten subscriptions point at a host on loopback that
accepts connections and never answers, at four tables where a turn notice falls due; another table's 10 s
clock (2 s scaled) is applied on time by a real worker, because pushes go out from a worker of their own
(notices/webpush.py).
Before, the alarm sent them inline, 10 s a subscription, on the threads that apply timeouts: that clock was
applied after 100 s."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

import engine
from games import services
from games.models import Hand
from notices.services.push import push_subscribe
from tests.games.celery_worker import start_push_worker, start_worker, wait_until
from tests.games.helpers import make_table
from tests.notices.push_receiver import Browser, Tarpit

pytestmark = [pytest.mark.celery]

SCALE = "0.2"  # TURN_CLOCK_SCALE: the house clock's 10 s run in 2 s


@pytest.fixture
def tarpit() -> Iterator[Tarpit]:
    pit = Tarpit()
    yield pit
    pit.close()


@pytest.mark.timeout(180)
@pytest.mark.django_db(transaction=True)
def test_a_push_host_that_never_answers_does_not_delay_another_tables_clock(
    club_setup, procs, tmp_path, tarpit, settings
) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 0  # the "your turn" notice falls due as the hand starts
    # A 2 s clock: it runs out while the pushes are still held (each notice's are given up after 5 s).
    settings.TURN_CLOCK_SCALE = float(SCALE)
    a, b, c = club_setup.members
    for number in range(10):
        browser = Browser().subscription(f"http://127.0.0.1:{tarpit.port}/push/{number}")
        push_subscribe(user=a, endpoint=browser["endpoint"], **browser["keys"])
    env = {"TURN_NOTICE_GRACE_SECONDS": "0", "TURN_CLOCK_SCALE": SCALE}
    clocks = start_worker(tmp_path, ready=False, **env)  # the push worker starts beside it
    procs.extend([clocks, start_push_worker(tmp_path, **env)])
    clocks.wait_for("ready.")

    slow = engine.PiranhaRules(nobody_in="split", turn_seconds=3600)
    for other in (b, c, club_setup.organiser, b):
        table = make_table(club_setup.club, club_setup.organiser, slow, players=[a, other])
        services.table_start(table_id=table.pk, user=a)
    wait_until(lambda: len(tarpit.held) >= 1, 30, "the pushes never reached the tarpit")

    clocked = make_table(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(nobody_in="split", turn_seconds=10), players=[b, c]
    )
    hand = services.table_start(table_id=clocked.pk, user=b)
    hand.refresh_from_db()
    due = hand.deadline
    assert due is not None
    try:
        wait_until(lambda: Hand.objects.filter(pk=hand.pk, finished_at__isnull=False).exists(), 60, "")
    except AssertionError:  # the clocks' worker's own words say where the alarm went
        raise AssertionError(
            f"the clock was never applied; the clocks' worker said:\n{clocks.text()[-4000:]}"
        ) from None
    hand.refresh_from_db()
    late = hand.finished_at - due
    assert timedelta(0) <= late < timedelta(seconds=2.5), f"the clock was applied {late} after it ran out"
    assert len(tarpit.held) >= 10  # every subscription was tried, and none answered
