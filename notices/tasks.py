"""Celery tasks of the notices (docs/style.md "Tasks are thin and idempotent"). They moved here from
games/tasks.py and keep their names (``name=``), so messages already queued and beat's schedule
(config/settings/base.py ``CELERY_BEAT_SCHEDULE``) still find them across a deploy.

==========================  ====================================================================
sweep_due_notices           beat, every ``TURN_NOTICE_SWEEP_SECONDS`` (60 s): the backstop for a lost alarm's
                            "your turn" notices and reminders, from each seat's clock ("began")
send_daily_digests          beat, hourly: the digest at each member's local ``TURN_DIGEST_HOUR``
push_notice                 one notice by Web Push, on ``PUSH_QUEUE`` (a worker of its own): never inside the
                            alarm or a sweep, so a push service that never answers holds no clock up
==========================  ====================================================================

The hand's alarm (games/tasks.py ``hand_alarm``) sends a hand's notices as they fall due: games/signals.py
``hand_alarm_rang``, connected in notices/apps.py.
"""

from __future__ import annotations

from celery import shared_task

from notices.services.digest import digests_send
from notices.services.turns import turn_notices_sweep
from notices.webpush import PushMessage, push_send


@shared_task(name="games.tasks.sweep_due_notices", acks_late=True)
def sweep_due_notices() -> int:
    """Send the due notices and reminders whose alarm never rang (notices/services/turns.py); returns how many."""
    return turn_notices_sweep()


@shared_task(name="games.tasks.send_daily_digests", acks_late=True)
def send_daily_digests() -> int:
    return digests_send()


@shared_task(name="games.tasks.push_notice", acks_late=True)
def push_notice(user_id: int, kind: str, title: str, body: str, url: str, tag: str, club_id: int | None = None) -> int:
    """Push one notice to the member's browsers if they still want it and are away (notices/webpush.py); how
    many took it. Sent twice it arrives twice, with the same ``tag``: the browser shows it once."""
    return push_send(
        user_id=user_id, kind=kind, club_id=club_id, message=PushMessage(title=title, body=body, url=url, tag=tag)
    )
