"""When a turn's notices are due, and so when a hand's alarm must ring (the notices in
games/services/notices.py, the alarm in games/services/alarms.py and games/tasks.py)."""

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


def hand_next_due(*, clocks: Mapping[str, Any], deadline: datetime | None, now: datetime) -> datetime | None:
    """The next moment after ``now`` when something of a hand is due: its earliest clock runs out, or a
    waiting seat's notice or reminder is to go. None when nothing is (a moment already past is left to
    the beat's sweeps, never rung again in a loop)."""
    moments = [deadline] if deadline is not None else []
    for entry in clocks.values():
        if clock_deadline(entry) <= now:
            continue
        found = turn_notice_moments(entry)
        if found is not None:
            moments.extend(m for m in found if m is not None)
    future = [m for m in moments if m > now]
    return min(future) if future else None
