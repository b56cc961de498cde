"""When a turn's notices are due (sent by notices/services/turns.py), and so when a hand's alarm must ring
for them (games/signals.py ``hand_alarm_moments``, answered in notices/apps.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from games.timing.turn_clock import clock_deadline


def reminder_at(*, began: datetime, deadline: datetime) -> datetime | None:
    """When to remind: ``TURN_REMINDER_BEFORE_SECONDS`` before the deadline (at most a quarter of the
    clock), and only if that is after the "your turn" notice would have gone; else None."""
    clock = deadline - began
    lead = min(timedelta(seconds=settings.TURN_REMINDER_BEFORE_SECONDS), clock / 4)
    at = deadline - lead
    if at <= began + timedelta(seconds=settings.TURN_NOTICE_GRACE_SECONDS):
        return None
    return at


def clock_began(entry: Mapping[str, Any]) -> datetime | None:
    """When the turn of a clock entry began, or None for an entry stored before "began" existed."""
    raw = entry.get("began")
    if not raw:
        return None
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError:
        return None


def turn_notice_moments(entry: Mapping[str, Any]) -> tuple[datetime, datetime | None] | None:
    """When a clock entry's "your turn" notice is due, and its reminder (None: no reminder); None when
    nobody is told: an entry without "began", or a turn that never ran (away: the default at once)."""
    began = clock_began(entry)
    if began is None:
        return None
    deadline = clock_deadline(entry)
    if deadline <= began:
        return None
    return began + timedelta(seconds=settings.TURN_NOTICE_GRACE_SECONDS), reminder_at(began=began, deadline=deadline)


def notice_moments_after(*, clocks: Mapping[str, Any], now: datetime) -> list[datetime]:
    """The moments after ``now`` when a notice or reminder of a waiting seat of a hand is due (not for a seat
    whose clock ran out: its default is being applied). The hand's alarm rings at the first of them
    (games/signals.py ``hand_alarm_moments``)."""
    moments: list[datetime] = []
    for entry in clocks.values():
        if clock_deadline(entry) <= now:
            continue
        found = turn_notice_moments(entry)
        if found is not None:
            moments.extend(m for m in found if m is not None and m > now)
    return moments
