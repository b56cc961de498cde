"""What games tells, or asks of, the apps above it, without importing them: the notices app connects its
receivers in ``NoticesConfig.ready`` (notices/apps.py). docs/architecture.md "Notices".

A running hand has one alarm (games/services/alarms.py): games sets it for the hand's clocks running out,
and asks the apps above whether they need it to ring earlier for the seats it waits for.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.dispatch import Signal

#: A hand's alarm is being set. kwargs: ``clocks`` (the hand's clock entries by seat: games/services/clocks.py
#: ``turn_clocks``) and ``now``; each receiver returns the moments after ``now`` at which it needs the alarm
#: to ring (notices: a waiting seat's "your turn" notice and reminder), an empty list when none.
hand_alarm_moments = Signal()

#: A hand's alarm rang. kwargs: ``hand_id`` and ``now``; each receiver does what is due in that hand by
#: ``now`` (notices: sends the turn notices and reminders due) and makes a second ring a no-op.
hand_alarm_rang = Signal()


def moments_of(responses: Sequence[tuple[object, object]]) -> list[datetime]:
    """Every moment the receivers returned."""
    return [moment for _, found in responses if isinstance(found, list) for moment in found]
