"""When a turn's reminder is due (the notices in games/services/notices.py and their tasks in games/tasks.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings


def reminder_at(*, began: datetime, deadline: datetime) -> datetime | None:
    """When to remind: ``TURN_REMINDER_BEFORE_SECONDS`` before the deadline (at most a quarter of the
    clock), and only if that is after the "your turn" notice would have gone; else None."""
    clock = deadline - began
    lead = min(timedelta(seconds=settings.TURN_REMINDER_BEFORE_SECONDS), clock / 4)
    at = deadline - lead
    if at <= began + timedelta(seconds=settings.TURN_NOTICE_GRACE_SECONDS):
        return None
    return at
