"""Celery tasks of the turn clock and the notices (STYLE.md "Tasks are thin and idempotent").

Arguments are ids and the version (or turn) they were scheduled for, never models. Each task
calls one service that re-checks under the hand's lock or re-reads the turn, so running it
twice, late, or after the player acted changes nothing.

==========================  ====================================================================
schedule_turns              on commit of every version, one message per transaction: publishes, from the
                            worker, the ``expire_turn``, ``notify_turn`` and ``remind_turn`` below (the
                            web process sends one message per action, not one per clock and notice)
expire_turn                 at a hand's deadline (eta)
sweep_overdue_turns         beat, every ``TURN_SWEEP_SECONDS`` (<= 30 s): the backstop for a lost
                            message, a restarted Redis or a dead worker
notify_turn                 ``TURN_NOTICE_GRACE_SECONDS`` after a turn begins: "your turn" email
remind_turn                 shortly before a turn's clock runs out: the reminder
sweep_due_notices           beat, every ``TURN_NOTICE_SWEEP_SECONDS`` (60 s): the backstop for a lost
                            ``notify_turn`` / ``remind_turn``, from each seat's clock ("began")
send_daily_digests          beat, hourly: the digest at each member's local ``TURN_DIGEST_HOUR``
==========================  ====================================================================
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from config import metrics
from games.models import TurnNotice
from games.reminders import reminder_at
from games.selectors.hands import hands_overdue

log = logging.getLogger(__name__)

SWEEP_BATCH = 200


@shared_task(acks_late=True)
def expire_turn(hand_id: int, version: int) -> bool:
    """Apply the default action if that version of the hand still waits and its clock ran out."""
    from games.services.hands import hand_apply_timeout

    applied = hand_apply_timeout(hand_id=hand_id, version=version)
    metrics.timeouts_applied(int(applied), by="task")
    return applied


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
def notify_turn(hand_id: int, seat: int, since: int) -> bool:
    """The "your turn" email, if that turn still waits (games/services/notices.py)."""
    from games.services.notices import turn_notice_send

    return turn_notice_send(hand_id=hand_id, seat=seat, since=since, kind=TurnNotice.Kind.TURN)


@shared_task(acks_late=True)
def remind_turn(hand_id: int, seat: int, since: int) -> bool:
    """The reminder before the clock runs out, if that turn still waits."""
    from games.services.notices import turn_notice_send

    return turn_notice_send(hand_id=hand_id, seat=seat, since=since, kind=TurnNotice.Kind.REMINDER)


@shared_task(acks_late=True)
def sweep_due_notices() -> int:
    """Send the due notices and reminders whose tasks never ran (games/services/notices.py); returns how many."""
    from games.services.notices import turn_notices_sweep

    return turn_notices_sweep()


@shared_task(acks_late=True)
def send_daily_digests() -> int:
    from games.services.notices import digests_send

    return digests_send()


@shared_task(acks_late=True)
def schedule_turns(work: list[dict[str, Any]]) -> None:
    """The clocks and notices of one committed transaction, published from the worker."""
    schedule_turn_work(work)


def schedule_turn_work(work: list[dict[str, Any]]) -> None:
    """Enqueue, after a commit, each hand's ``expire_turn`` at its deadline and the notices of the turns
    that began in that transaction. Never raises: the action is committed, and the beat sweep applies
    a timeout whose message could not be sent (a notice is then skipped)."""
    now = timezone.now()
    grace = settings.TURN_NOTICE_GRACE_SECONDS
    for item in work:
        try:
            expire_turn.apply_async(kwargs={"hand_id": item["hand_id"], "version": item["version"]},
                                    eta=datetime.fromisoformat(item["deadline"]))
            for turn in item["turns"]:
                deadline = datetime.fromisoformat(turn["deadline"])
                if deadline <= now:
                    continue  # away: the default is applied at once, nobody to tell
                kwargs = {"hand_id": item["hand_id"], "seat": turn["seat"], "since": turn["since"]}
                notify_turn.apply_async(kwargs=kwargs, countdown=grace)
                remind = reminder_at(began=now, deadline=deadline)
                if remind is not None:
                    remind_turn.apply_async(kwargs=kwargs, eta=remind)
        except Exception:  # noqa: BLE001 - see the docstring
            log.warning("Could not schedule the clock of hand %s", item.get("hand_id"), exc_info=True)
