"""A member's daily quiet hours: what may be saved (the turn clock in games/timing/turn_clock.py uses them).

Quiet hours are a daily window of wall-clock time in the member's own zone, at most 12 hours;
the end may be after midnight (23:00-07:00).
"""

from __future__ import annotations

from datetime import time, timedelta

MAX_QUIET = timedelta(hours=12)


def quiet_length(start: time, end: time) -> timedelta:
    """The wall-clock length of a daily window from ``start`` to ``end`` (past midnight when end <= start)."""
    minutes = (end.hour * 60 + end.minute) - (start.hour * 60 + start.minute)
    seconds = minutes * 60 + (end.second - start.second)
    if seconds <= 0:
        seconds += 24 * 3600
    return timedelta(seconds=seconds)


def quiet_hours_error(start: time | None, end: time | None) -> str | None:
    """A member-facing reason why these quiet hours cannot be saved, or None when they can."""
    if start is None and end is None:
        return None
    if start is None or end is None:
        return "Give both the start and the end of your quiet hours, or neither."
    if start == end:
        return "Quiet hours must start and end at different times."
    if quiet_length(start, end) > MAX_QUIET:
        return "Quiet hours can last at most 12 hours a day."
    return None
