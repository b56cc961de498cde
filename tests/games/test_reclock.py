"""Quiet hours changed while a turn runs: the running clock moves (games/services/clocks.py hands_reclock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

import engine
from games import services
from games.models import Hand
from games.services.after_commit import HAND_ALARM, hand_alarm_pending, turn_work_flush
from games.timing.turn_clock import clock_deadline
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table
from tests.games.test_consumers import close_worker_thread_connections, open_table  # noqa: F401


def profile_post(user, **extra: str) -> dict[str, str]:
    return {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": "UTC",
        "turn_notices": "each",
        "turn_reminder": "on",
        **extra,
    }


def clock_of(hand: Hand, seat: int) -> datetime:
    hand.refresh_from_db()
    return clock_deadline(hand.clocks[str(seat)])


@pytest.mark.django_db
def test_saving_quiet_hours_moves_the_running_clock_and_schedules_it_again(
    club_setup, client_for, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    a, b, _ = club_setup.members
    for user in (a, b):
        user.time_zone = "UTC"
        user.save(update_fields=["time_zone"])
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(turn_seconds=3600), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    seat = awaited(hand)[0]
    player = user_at(hand, seat)
    before = clock_of(hand, seat)
    assert timedelta(minutes=59) < before - timezone.now() <= timedelta(hours=1)
    began = datetime.fromisoformat(hand.clocks[str(seat)]["began"])
    notice_due = began + timedelta(seconds=settings.TURN_NOTICE_GRACE_SECONDS)  # the first moment due
    sent: list[dict] = []
    original = HAND_ALARM.apply_async

    def send(*args: Any, **kwargs: Any) -> Any:
        sent.append(kwargs["kwargs"])
        return original(*args, **kwargs)

    monkeypatch.setattr(HAND_ALARM, "apply_async", send)
    # Quiet hours that open in 20 minutes (before the clock runs out) and last two hours.
    start = (timezone.now() + timedelta(minutes=20)).astimezone(UTC).replace(second=0, microsecond=0)
    end = start + timedelta(hours=2)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(player).post(
            reverse("profile"),
            profile_post(player, quiet_start=start.strftime("%H:%M"), quiet_end=end.strftime("%H:%M")),
        )
    assert response.status_code == 302
    turn_work_flush()  # the clocks are published from a background thread
    moved = clock_of(hand, seat)
    assert abs((moved - before) - timedelta(hours=2)) < timedelta(seconds=2)  # it stands still two hours
    assert hand.deadline == moved and hand.version == 0
    # The hand's one alarm rings first for the turn's notice, and then sets itself for the moved clock.
    assert sent == [{"hand_id": hand.pk, "at": notice_due.isoformat()}]
    assert hand_alarm_pending(hand_id=hand.pk, commitment=hand.commitment) == notice_due
    # Quiet hours removed again: the clock runs out when it first would have.
    with django_capture_on_commit_callbacks(execute=True):
        client_for(player).post(reverse("profile"), profile_post(player, quiet_start="", quiet_end=""))
    assert abs(clock_of(hand, seat) - before) < timedelta(seconds=2)
    turn_work_flush()
    assert len(sent) == 1  # the alarm already set rings early enough: no second message
    assert hand_alarm_pending(hand_id=hand.pk, commitment=hand.commitment) == notice_due


@pytest.mark.django_db
def test_a_profile_save_without_new_quiet_hours_leaves_the_clock_alone(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(turn_seconds=3600), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    seat = awaited(hand)[0]
    player = user_at(hand, seat)
    player.time_zone = "UTC"
    player.save(update_fields=["time_zone"])
    before = clock_of(hand, seat)
    client_for(player).post(reverse("profile"), profile_post(player, display_name="Renamed"))
    assert clock_of(hand, seat) == before


@pytest.mark.django_db(transaction=True)
async def test_the_open_screens_at_the_table_show_the_moved_clock(club_setup, client_for) -> None:
    """A moved clock keeps the hand's version: the table's sockets still send every screen the new time."""
    a, b, _ = club_setup.members

    def start() -> tuple[Hand, int]:
        for user in (a, b):
            user.time_zone = "UTC"
            user.save(update_fields=["time_zone"])
        table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(turn_seconds=3600), players=[a, b])
        hand = services.table_start(table_id=table.pk, user=a)
        return hand, awaited(hand)[0]

    hand, seat = await database_sync_to_async(start)()
    player = await database_sync_to_async(user_at)(hand, seat)
    other = b if player.pk == a.pk else a
    screens = [await open_table(hand.table_id, u) for u in (player, other)]
    start_at = (timezone.now() + timedelta(minutes=20)).astimezone(UTC).replace(second=0, microsecond=0)
    post = sync_to_async(
        lambda: client_for(player).post(
            reverse("profile"),
            profile_post(
                player,
                quiet_start=start_at.strftime("%H:%M"),
                quiet_end=(start_at + timedelta(hours=2)).strftime("%H:%M"),
            ),
        )
    )
    assert (await post()).status_code == 302
    moved = (await database_sync_to_async(clock_of)(hand, seat)).astimezone(UTC).isoformat()
    for comm in screens:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.public" and moved in message["html"]:
                break
        await comm.disconnect()
