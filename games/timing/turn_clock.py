"""Turn clocks: when a member's turn runs out, given their away flag and daily quiet hours.

Pure functions of their arguments (no database, no "now" of their own), so the arithmetic is
tested with fixed datetimes (tests/games/test_clock.py).

Quiet hours are a daily window of wall-clock time in the member's own zone (at most 12 hours;
the end may be after midnight: 23:00-07:00). While a window is open the member's clock does not
run: a deadline is pushed back by every second of overlap. The windows are built from the
calendar date in the member's zone with ``zoneinfo``, then all arithmetic is done in UTC, so a
night in which the clocks change is as long as it really is (23:00-07:00 over the spring change
is 7 hours of real time, over the autumn change 9). A wall time that does not exist that day
(02:30 in a spring-forward gap) is read with the offset in force before the change (``fold=0``),
which lands just after the gap; a wall time that happens twice (autumn) means its first
occurrence.

Away: a member who is away takes the default action at once: their deadline is the start.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, NotRequired, TypedDict

from accounts.quiet import MAX_QUIET as MAX_QUIET  # what may be saved lives in accounts
from accounts.quiet import quiet_hours_error as quiet_hours_error
from accounts.quiet import quiet_length as quiet_length


@dataclass(frozen=True, slots=True)
class Member:
    """What the clock needs to know of a member."""

    time_zone: str = "UTC"
    quiet_start: time | None = None
    quiet_end: time | None = None
    away: bool = False

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        try:
            return zoneinfo.ZoneInfo(self.time_zone or "UTC")
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    @property
    def has_quiet_hours(self) -> bool:
        return self.quiet_start is not None and self.quiet_end is not None and self.quiet_start != self.quiet_end


def _window(day: date, member: Member) -> tuple[datetime, datetime]:
    """The quiet window that starts on local calendar ``day``, as UTC instants."""
    assert member.quiet_start is not None and member.quiet_end is not None
    zone = member.zone
    start = datetime.combine(day, member.quiet_start, tzinfo=zone)
    end_day = day if member.quiet_end > member.quiet_start else day + timedelta(days=1)
    end = datetime.combine(end_day, member.quiet_end, tzinfo=zone)
    return start.astimezone(UTC), end.astimezone(UTC)


def quiet_windows(member: Member, since: datetime, until: datetime) -> list[tuple[datetime, datetime]]:
    """Quiet windows (UTC, in order) that overlap [since, until)."""
    if not member.has_quiet_hours:
        return []
    zone = member.zone
    first = since.astimezone(zone).date() - timedelta(days=1)  # yesterday's window may still be open
    last = until.astimezone(zone).date()
    out = []
    day = first
    while day <= last:
        start, end = _window(day, member)
        if end > since and start < until and end > start:
            out.append((start, end))
        day += timedelta(days=1)
    return out


def is_quiet(member: Member, at: datetime) -> bool:
    """Whether the member's quiet hours are open at instant ``at``."""
    return any(start <= at < end for start, end in quiet_windows(member, at, at + timedelta(seconds=1)))


def running_between(member: Member, since: datetime, until: datetime) -> timedelta:
    """How much of ``member``'s clock runs from ``since`` to ``until``: the time outside their quiet
    windows (zero when ``until`` is not after ``since``). Away is not considered."""
    if until <= since:
        return timedelta(0)
    total = until - since
    for start, end in quiet_windows(member, since, until):
        total -= min(end, until) - max(start, since)
    return max(total, timedelta(0))


def deadline_for(*, start: datetime, seconds: int, member: Member) -> datetime:
    """When a turn that starts at ``start`` with a clock of ``seconds`` runs out for ``member``.

    Away: ``start`` (the default action is due at once). Otherwise ``seconds`` of running clock,
    which stands still during the member's quiet windows. Returns an aware UTC datetime.
    """
    start = start.astimezone(UTC)
    if member.away:
        return start
    remaining = timedelta(seconds=seconds)
    if not member.has_quiet_hours:
        return start + remaining
    at = start
    # Each window is at most 12 hours and the clock at most 7 days: a few dozen rounds at most.
    for _ in range(1000):
        horizon = at + remaining + timedelta(days=2)
        windows = [w for w in quiet_windows(member, at, horizon) if w[1] > at]
        if not windows:
            return at + remaining
        w_start, w_end = windows[0]
        if w_start <= at:  # inside a window: the clock waits until it closes
            at = w_end
            continue
        running = w_start - at
        if remaining <= running:
            return at + remaining
        remaining -= running
        at = w_end
    return at + remaining  # pragma: no cover - unreachable with windows of at most 12 hours


class TurnClock(TypedDict):
    """One awaited seat's clock, an entry of ``Hand.clocks`` (keyed by the seat's number as a string)."""

    deadline: str  # ISO instant it runs out
    since: int  # the hand's version when the seat's turn began
    began: NotRequired[str]  # ISO instant the turn began (clocks stored before it was kept lack it)


def clock_deadline(entry: Mapping[str, Any]) -> datetime:
    """When one seat's clock (an entry of ``Hand.clocks``: deadline, since, began) runs out."""
    return datetime.fromisoformat(str(entry["deadline"]))
