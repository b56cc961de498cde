"""The one way games reaches the notices (games/signals.py, connected in notices/apps.py): a hand's alarm asks
when the waiting seats' notices are due and rings for them, and when it rings the notices due go out, once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games import signals
from games.models import Hand
from games.services.after_commit import hand_next_due
from tests.games.async_helpers import piles_turn


@pytest.fixture
def turn(club_setup, settings) -> tuple[Hand, int, datetime]:
    """A Piles hand whose first player's turn began a minute ago, its clock a day: (hand, seat, began)."""
    settings.SITE_URL = "https://club.example.org"
    settings.TURN_NOTICE_GRACE_SECONDS = 120
    settings.TURN_REMINDER_BEFORE_SECONDS = 3600
    hand, _player, seat = piles_turn(club_setup)
    began = timezone.now() - timedelta(seconds=60)
    clocks = dict(hand.clocks)
    clocks[str(seat)] = {
        **clocks[str(seat)],
        "began": began.isoformat(),
        "deadline": (began + timedelta(days=1)).isoformat(),
    }
    Hand.objects.filter(pk=hand.pk).update(clocks=clocks, deadline=began + timedelta(days=1))
    hand.refresh_from_db()
    return hand, seat, began


@pytest.fixture
def without_notices() -> Iterator[None]:
    """The notices' receivers disconnected, as if the app were not installed."""
    receivers = {signal: list(signal.receivers) for signal in (signals.hand_alarm_moments, signals.hand_alarm_rang)}
    for signal in receivers:
        signal.receivers = []
        signal.sender_receivers_cache.clear()
    yield
    for signal, kept in receivers.items():
        signal.receivers = kept
        signal.sender_receivers_cache.clear()


def test_the_notices_listen_to_the_hand_alarm() -> None:
    assert signals.hand_alarm_moments.has_listeners() and signals.hand_alarm_rang.has_listeners()


@pytest.mark.django_db
def test_the_alarm_rings_for_the_notice_and_the_reminder_the_notices_ask_for(turn) -> None:
    hand, _seat, began = turn
    now = timezone.now()
    assert hand_next_due(clocks=hand.clocks, deadline=hand.deadline, now=now) == began + timedelta(seconds=120)
    after_notice = began + timedelta(seconds=121)
    reminder = began + timedelta(days=1) - timedelta(seconds=3600)
    assert hand_next_due(clocks=hand.clocks, deadline=hand.deadline, now=after_notice) == reminder


@pytest.mark.django_db
@pytest.mark.usefixtures("without_notices")
def test_without_the_notices_the_alarm_rings_only_for_the_clock(turn) -> None:
    hand, _seat, _began = turn
    assert hand_next_due(clocks=hand.clocks, deadline=hand.deadline, now=timezone.now()) == hand.deadline


@pytest.mark.django_db
def test_a_ring_sends_the_notice_due_once(turn, mailoutbox) -> None:
    hand, _seat, began = turn
    due = began + timedelta(seconds=121)
    signals.hand_alarm_rang.send(sender=Hand, hand_id=hand.pk, now=due)
    signals.hand_alarm_rang.send(sender=Hand, hand_id=hand.pk, now=due)  # a second ring: nothing more
    assert len(mailoutbox) == 1 and hand.table.name in mailoutbox[0].subject


@pytest.mark.django_db
def test_a_ring_before_the_grace_sends_nothing(turn, mailoutbox) -> None:
    hand, _seat, began = turn
    signals.hand_alarm_rang.send(sender=Hand, hand_id=hand.pk, now=began + timedelta(seconds=100))
    assert mailoutbox == []
