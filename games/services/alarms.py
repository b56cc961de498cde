"""A hand's alarm: the one Celery message a running hand has pending at a time (games/tasks.py
``hand_alarm``), set after each commit for the hand's next due moment (games/services/after_commit.py).

When it rings it applies the timeout if the hand's clock ran out, tells the apps above that it rang
(games/signals.py ``hand_alarm_rang``: notices sends the turn notices and reminders now due), and sets
itself again for the next due moment. Each of these re-checks under the hand's lock or against the
notices already sent, so a ring that is late, early or twice changes nothing; the beat's sweeps remain
the backstop for a lost alarm.
"""

from __future__ import annotations

from django.utils import timezone

from games.models import Hand
from games.selectors.hands import hand_running_clocks
from games.services.after_commit import hand_alarm_arm, hand_alarm_rung, hand_next_due
from games.services.hands import hand_apply_timeout
from games.signals import hand_alarm_rang


def hand_alarm_ring(*, hand_id: int, at: str) -> bool:
    """Ring hand ``hand_id``'s alarm set for ``at`` (ISO time); True when it applied a timeout."""
    running = hand_running_clocks(hand_id=hand_id)
    if running is None:
        return False  # finished or voided: nothing is due any more
    version, deadline, _clocks, commitment = running
    hand_alarm_rung(hand_id=hand_id, commitment=commitment, at=at)
    now = timezone.now()
    applied = deadline is not None and deadline <= now and hand_apply_timeout(hand_id=hand_id, version=version)
    hand_alarm_rang.send(sender=Hand, hand_id=hand_id, now=now)  # the notices due (notices/apps.py)
    running = hand_running_clocks(hand_id=hand_id)
    if running is not None:
        due = hand_next_due(clocks=running[2], deadline=running[1], now=timezone.now())
        if due is not None:
            hand_alarm_arm(hand_id=hand_id, commitment=commitment, at=due)
    return applied
