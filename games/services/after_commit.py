"""What a committed change of hands sets going: the table's frames are published (announced through
games/signals.py, which the live wing's publisher hears) and each hand's alarm is set for its next due
moment (games/tasks.py ``hand_alarm``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from functools import partial

from django.core.cache import cache
from django.db import connections, transaction
from django.utils import timezone

from games.models import Hand
from games.selectors.snapshot import Carried
from games.services.computer_turns import computer_turns_schedule
from games.signals import hand_alarm_moments, moments_of, versions_publish
from games.timing.turn_clock import TurnClock
from kernel.pools import ProcessCache, thread_pool
from kernel.task_ref import TaskRef

log = logging.getLogger(__name__)


def on_commit_work(touched: Sequence[tuple[Hand, int]], known: Mapping[int, Carried] | None = None) -> None:
    """Register the on-commit work of a transaction: publish the table's frames of the new versions (with
    what the transaction knew of each hand beside its row, ``known``), and make sure each touched hand's
    alarm rings by its next due moment (its clock running out, a turn's notice or reminder:
    ``hand_next_due``)."""
    hand, _ = touched[0]
    # Moments from a little before now: a turn begun in this transaction whose notice is due at once (no
    # grace) still gets its ring. A moment rung already only finds its notice sent.
    since = timezone.now() - _JUST_BEGUN
    alarms = [
        (h.pk, h.commitment, due)
        for h, _after in touched
        if not h.is_finished
        for due in [hand_next_due(clocks=h.clocks or {}, deadline=h.deadline, now=since)]
        if due is not None
    ]
    transaction.on_commit(partial(versions_publish, list(touched), hand.table.club_id, known))
    if alarms:
        transaction.on_commit(partial(_schedule, alarms))
    if hand.table.practice:  # the tables of one transaction's hands are all this one
        transaction.on_commit(
            partial(_computer_turns, [(h.pk, h.version) for h, _after in touched if not h.is_finished])
        )


# A hand's alarm (games/services/alarms.py): one Celery message per hand at a time, not three per action.
# The cache holds when the message already sent will ring; a newer due moment that is no earlier needs no
# message. A stored moment long past is a lost message (a worker killed holding it): sent again. The key
# names the hand by its id and its deal's commitment, so a database started afresh under a Redis that kept
# its keys never finds another hand's alarm.
_ALARM_KEY = "hand-alarm:{}:{}"
HAND_ALARM = TaskRef("games.tasks.hand_alarm")  # games/tasks.py, which imports the services it runs


def _alarm_key(hand_id: int, commitment: str) -> str:
    return _ALARM_KEY.format(hand_id, commitment[:16])


def hand_next_due(*, clocks: Mapping[str, TurnClock], deadline: datetime | None, now: datetime) -> datetime | None:
    """The next moment after ``now`` when something of a hand is due: its earliest clock runs out, or an app
    above needs its alarm (games/signals.py ``hand_alarm_moments``: a waiting seat's notice or reminder).
    None when nothing is (a moment already past is left to the beat's sweeps, never rung again in a loop)."""
    moments = [deadline] if deadline is not None else []
    moments += moments_of(hand_alarm_moments.send(sender=Hand, clocks=clocks, now=now))
    future = [m for m in moments if m > now]
    return min(future) if future else None


_ALARM_LOST_AFTER = timedelta(seconds=30)
_JUST_BEGUN = timedelta(seconds=2)

# When the alarm this process last sent for a hand (by id and deal commitment), or found set in the cache,
# rings: while that is still ahead and no later than a new due moment, the alarm rings in time and neither
# the cache nor the broker is asked (each action begins a turn whose notice is due later than the one set).
# A message sent stays sent, so an entry never goes stale; one whose moment passed is not used.
_ALARMS_SET: ProcessCache[tuple[int, str], datetime] = ProcessCache("hand alarms set", held=4096)


def _rings_in_time(hand_id: int, commitment: str, at: datetime, now: datetime) -> bool:
    """Whether an alarm this process knows to be pending for the hand rings after ``now`` and by ``at``."""
    rings = _ALARMS_SET.get((hand_id, commitment))
    return rings is not None and now < rings <= at


def hand_alarm_arm(*, hand_id: int, commitment: str, at: datetime) -> bool:
    """Make sure hand ``hand_id``'s alarm rings at ``at`` or before; True when a message was sent.
    Two processes arming at once may both send: a second ring finds nothing due, so that is harmless."""
    now = timezone.now()
    if _rings_in_time(hand_id, commitment, at, now):
        return False
    rings = hand_alarm_pending(hand_id=hand_id, commitment=commitment)
    if rings is not None and now - _ALARM_LOST_AFTER <= rings <= at:
        if rings > now:
            _ALARMS_SET.put((hand_id, commitment), rings)
        return False
    HAND_ALARM.apply_async(kwargs={"hand_id": hand_id, "at": at.isoformat()}, eta=at)
    cache.set(_alarm_key(hand_id, commitment), at.isoformat(), timeout=int((at - now).total_seconds()) + 3600)
    _ALARMS_SET.put((hand_id, commitment), at)
    return True


def hand_alarm_pending(*, hand_id: int, commitment: str) -> datetime | None:
    """When hand ``hand_id``'s pending alarm rings, as far as this cache knows (None: none pending)."""
    pending = cache.get(_alarm_key(hand_id, commitment))
    try:
        return datetime.fromisoformat(pending) if isinstance(pending, str) else None
    except ValueError:
        return None


def hand_alarm_rung(*, hand_id: int, commitment: str, at: str) -> None:
    """The alarm sent for ``at`` has rung: forget it, unless a newer one replaced it."""
    key = _alarm_key(hand_id, commitment)
    if cache.get(key) == at:
        cache.delete(key)


def _turn_work() -> ThreadPoolExecutor:
    """The one thread of this process that arms alarms and sends computer turns (kernel/pools.py)."""
    return thread_pool("turn-work", 1)


def _publish(alarms: list[tuple[int, str, datetime]]) -> None:
    """Arm each hand's alarm. Never raises: the action is committed, and the beat's sweeps apply a
    timeout and send a notice whose alarm was lost."""
    for hand_id, commitment, at in alarms:
        try:
            hand_alarm_arm(hand_id=hand_id, commitment=commitment, at=at)
        except Exception:  # noqa: BLE001 - see the docstring
            log.warning("Could not set the alarm of hand %s", hand_id, exc_info=True)


def _schedule(alarms: list[tuple[int, str, datetime]]) -> None:
    """Arm the alarms of a committed transaction from one background thread, so the action's own thread
    (for a socket: the worker thread its answer waits on) waits on no cache or broker; none when every
    one rings in time already, as far as this process knows (most actions). An alarm lost with the process
    is made good by the beat's sweeps (games/tasks.py)."""
    now = timezone.now()
    due = [
        (hand_id, commitment, at)
        for hand_id, commitment, at in alarms
        if not _rings_in_time(hand_id, commitment, at, now)
    ]
    if due:
        _turn_work().submit(_publish, due)


def _computer_turns(hands: list[tuple[int, int]]) -> None:
    """Send the computer players' turns of a committed practice transaction (games/services/computer_turns.py),
    from the background thread like the alarms. A turn lost with the process is taken by its clock's default."""

    def send() -> None:
        try:
            computer_turns_schedule(hands)
        except Exception:  # noqa: BLE001 - the action is committed; the clock's default is the backstop
            log.warning("Could not send the computer players' turns of hands %s", hands, exc_info=True)
        finally:
            connections.close_all()  # this thread's connection goes back after each job

    _turn_work().submit(send)


def turn_work_flush() -> None:
    """Wait until every alarm queued so far is armed (tests, and a clean process exit)."""
    _turn_work().submit(lambda: None).result(timeout=30)
