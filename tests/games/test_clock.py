"""games/timing/turn_clock.py: turn deadlines with quiet hours and away, in the member's zone, across midnight and
daylight-saving changes. Pure: fixed datetimes, no database."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from games.timing.turn_clock import Member, deadline_for, is_quiet, quiet_hours_error, quiet_length, quiet_windows

HOUR = 3600


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def night(zone: str, start: str = "23:00", end: str = "07:00") -> Member:
    return Member(time_zone=zone, quiet_start=time.fromisoformat(start), quiet_end=time.fromisoformat(end))


def test_without_quiet_hours_the_clock_simply_runs() -> None:
    assert deadline_for(start=utc(2026, 1, 10, 12), seconds=86400, member=Member()) == utc(2026, 1, 11, 12)


def test_away_means_the_default_is_due_at_once() -> None:
    member = Member(time_zone="Europe/London", quiet_start=time(23), quiet_end=time(7), away=True)
    assert deadline_for(start=utc(2026, 1, 10, 12), seconds=86400, member=member) == utc(2026, 1, 10, 12)


def test_quiet_hours_across_midnight_push_the_deadline_by_the_overlap() -> None:
    # London in winter is UTC+0. 22:00 + 2 h: one hour runs, the night 23:00-07:00 stands still, one more hour.
    assert deadline_for(start=utc(2026, 1, 10, 22), seconds=2 * HOUR, member=night("Europe/London")) == utc(
        2026, 1, 11, 8
    )


def test_a_turn_that_begins_in_quiet_hours_starts_running_when_they_end() -> None:
    assert deadline_for(start=utc(2026, 1, 11, 2), seconds=HOUR, member=night("Europe/London")) == utc(2026, 1, 11, 8)


def test_a_clock_that_runs_out_before_quiet_hours_is_not_moved() -> None:
    assert deadline_for(start=utc(2026, 1, 10, 20), seconds=HOUR, member=night("Europe/London")) == utc(2026, 1, 10, 21)


def test_quiet_hours_are_in_the_members_zone() -> None:
    # Tokyo is UTC+9 all year: its 23:00-07:00 is 14:00-22:00 UTC.
    assert deadline_for(start=utc(2026, 1, 10, 13), seconds=2 * HOUR, member=night("Asia/Tokyo")) == utc(
        2026, 1, 10, 23
    )


def test_a_long_clock_skips_every_night_it_spans() -> None:
    # 24 hours of clock with 8 quiet hours a day (UTC): 11 h today, then the night, then 13 h.
    assert deadline_for(start=utc(2026, 1, 10, 12), seconds=24 * HOUR, member=night("UTC")) == utc(2026, 1, 11, 20)
    # Seven days (168 h) of clock, 16 running hours a day: 11 h today, nine whole days (144 h), 13 h more.
    assert deadline_for(start=utc(2026, 1, 10, 12), seconds=7 * 24 * HOUR, member=night("UTC")) == utc(2026, 1, 20, 20)


def test_spring_forward_night_is_an_hour_shorter() -> None:
    # New York springs forward on Sunday 8 March 2026 at 02:00. 22:00 EST (03:00 UTC) + 2 h: one hour runs to
    # 23:00 EST (04:00 UTC); the quiet night ends 07:00 EDT (11:00 UTC), only 7 real hours; one more hour.
    member = night("America/New_York")
    assert quiet_windows(member, utc(2026, 3, 8, 4), utc(2026, 3, 8, 5))[0] == (utc(2026, 3, 8, 4), utc(2026, 3, 8, 11))
    assert deadline_for(start=utc(2026, 3, 8, 3), seconds=2 * HOUR, member=member) == utc(2026, 3, 8, 12)


def test_fall_back_night_is_an_hour_longer() -> None:
    # New York falls back on Sunday 1 November 2026 at 02:00. 22:00 EDT (02:00 UTC) + 2 h: one hour to 23:00 EDT
    # (03:00 UTC); quiet until 07:00 EST (12:00 UTC), 9 real hours; one more hour.
    member = night("America/New_York")
    assert deadline_for(start=utc(2026, 11, 1, 2), seconds=2 * HOUR, member=member) == utc(2026, 11, 1, 13)


def test_london_changes_too() -> None:
    # London springs forward on 29 March 2026 at 01:00: 23:00 GMT (23:00 UTC) to 07:00 BST (06:00 UTC) is 7 hours.
    member = night("Europe/London")
    assert deadline_for(start=utc(2026, 3, 28, 22), seconds=2 * HOUR, member=member) == utc(2026, 3, 29, 7)


def test_a_quiet_start_that_does_not_exist_that_day_begins_just_after_the_gap() -> None:
    # 02:30 does not exist in New York on 8 March 2026: read with the offset before the change (EST), it is
    # 07:30 UTC (03:30 EDT). The clock runs 06:00-07:30 UTC, stands still until 06:00 EDT (10:00 UTC), runs 30 min.
    member = night("America/New_York", "02:30", "06:00")
    assert deadline_for(start=utc(2026, 3, 8, 6), seconds=2 * HOUR, member=member) == utc(2026, 3, 8, 10, 30)


def test_a_window_that_ends_at_midnight() -> None:
    member = night("UTC", "20:00", "00:00")
    assert deadline_for(start=utc(2026, 1, 10, 19), seconds=2 * HOUR, member=member) == utc(2026, 1, 11, 1)


def test_is_quiet() -> None:
    member = night("Europe/London")
    assert is_quiet(member, utc(2026, 1, 10, 23, 30))
    assert is_quiet(member, utc(2026, 1, 11, 6, 59))
    assert not is_quiet(member, utc(2026, 1, 11, 7))
    assert not is_quiet(Member(), utc(2026, 1, 11, 3))


@pytest.mark.parametrize(
    ("start", "end", "error"),
    [
        (None, None, None),
        (time(23), time(7), None),
        (time(20), time(8), None),  # exactly 12 hours
        (time(19, 59), time(8), "at most 12 hours"),
        (time(8), time(21), "at most 12 hours"),
        (time(8), time(8), "different times"),
        (time(8), None, "both"),
    ],
)
def test_quiet_hours_last_at_most_twelve_hours(start: time | None, end: time | None, error: str | None) -> None:
    found = quiet_hours_error(start, end)
    assert (found is None) if error is None else (found is not None and error in found)


def test_quiet_length_wraps_past_midnight() -> None:
    assert quiet_length(time(23), time(7)) == timedelta(hours=8)
    assert quiet_length(time(1), time(6, 30)) == timedelta(hours=5, minutes=30)
