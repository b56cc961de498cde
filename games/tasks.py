"""Celery tasks of the turn clock, the deal and practice (docs/style.md "Tasks are thin and idempotent"); the
notices' tasks are notices/tasks.py.

Arguments are ids and the version (or turn) they were scheduled for, never models. Each task
calls one service that re-checks under the hand's lock or re-reads the turn, so running it
twice, late, or after the player acted changes nothing.

==========================  ====================================================================
hand_alarm                  a running hand's one pending message, at its next due moment (its clock runs
                            out, a turn's notice or reminder is due): does what is due and sets itself
                            again. Set after a commit only when it must ring earlier than the one
                            pending, so an action usually sends no message (games/services/alarms.py)
sweep_overdue_turns         beat, every ``TURN_SWEEP_SECONDS`` (<= 30 s): the backstop for a lost
                            message, a restarted Redis or a dead worker
deal_after_cut_wait         a deal that waits for a cut (house rule ``cut_required``) once its clock runs out:
                            dealt without a cut, or nothing when a cut dealt it first (games/services/cuts.py)
computer_turn               a computer player's turn at a practice table, a short pause after it began
                            (games/services/practice.py): acts once through ``hand_act``, or not at all
                            when that turn is over
==========================  ====================================================================
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from games.selectors.hands import hands_overdue
from kernel import metrics

log = logging.getLogger(__name__)

SWEEP_BATCH = 200


@shared_task(acks_late=True)
def deal_after_cut_wait(table_id: int, number: int) -> bool:
    """Deal a deal that waited for a cut (house rule) once its clock ran out; a no-op if it was dealt."""
    from games.services.cuts import deal_waiting_deal

    return deal_waiting_deal(table_id=table_id, number=number) is not None


@shared_task(acks_late=True)
def sweep_overdue_turns() -> int:
    """Apply every overdue timeout (indexed on ``Hand.deadline``); returns how many hands moved on."""
    from games.services.hands import hand_apply_timeout

    moved = 0
    seen: set[tuple[int, int]] = set()
    for _ in range(20):  # a few batches per run; the next run takes the rest
        overdue = hands_overdue(now=timezone.now(), limit=SWEEP_BATCH)
        fresh = [row for row in overdue if row not in seen]
        if not fresh:
            break
        for hand_id, version in fresh:
            seen.add((hand_id, version))
            try:
                moved += hand_apply_timeout(hand_id=hand_id, version=version)
            except Exception:  # one broken hand must not stop the sweep of the others
                log.exception("Timeout of hand %s version %s failed", hand_id, version)
    metrics.timeouts_applied(moved, by="sweep")
    return moved


@shared_task(acks_late=True)
def hand_alarm(hand_id: int, at: str) -> bool:
    """A running hand's alarm, set for ``at`` (its next due moment: games/services/alarms.py): applies the
    timeout if its clock ran out, sends the notices now due in it, and sets itself again."""
    from games.services.alarms import hand_alarm_ring

    applied = hand_alarm_ring(hand_id=hand_id, at=at)
    metrics.timeouts_applied(int(applied), by="task")
    return applied


@shared_task(acks_late=True)
def computer_turn(hand_id: int, version: int, seat: int) -> bool:
    """A computer player's turn at a practice table; nothing when that turn is over (a duplicate, a late task)."""
    from games.services.practice import computer_act

    return computer_act(hand_id=hand_id, version=version, seat=seat)
