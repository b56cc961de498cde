"""What accounts tells the apps above it, without importing them.

Sent by accounts/services.py after its transaction commits; the games app connects its
receivers in ``GamesConfig.ready`` (games/apps.py). A receiver returns how many hands it moved on.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.dispatch import Signal

#: the member's time zone or quiet hours changed; kwargs: user, time_zone, quiet_start, quiet_end (the old ones)
member_clock_changed = Signal()

#: the member marked themselves away; kwargs: user
member_went_away = Signal()

#: the member left a club or was removed from it; kwargs: user, club_id
membership_ended = Signal()


def moved_count(responses: Sequence[tuple[object, object]]) -> int:
    """The sum of what the receivers returned (hands moved on)."""
    return sum(value for _, value in responses if isinstance(value, int))
