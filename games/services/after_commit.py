"""What a committed change of hands sets going: the table's sockets hear the new version
(games/broadcast.py) and the turn clocks and notices are scheduled (games/tasks.py)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from django.db import transaction

from games.broadcast import table_announce
from games.models import Hand

log = logging.getLogger(__name__)


def on_commit_work(touched: Sequence[tuple[Hand, int]]) -> None:
    """Register the on-commit work of a transaction: announce the new version to the table, schedule
    each touched hand's turn clock (``expire_turn`` at its deadline) and the notices of the turns that
    began in it (games/tasks.py)."""
    hand, _ = touched[0]
    work = [{"hand_id": h.pk, "version": h.version, "deadline": h.deadline.isoformat(),
             "turns": [{"seat": int(seat), "since": int(c["since"]), "deadline": str(c["deadline"])}
                       for seat, c in sorted(h.clocks.items()) if int(c["since"]) > after]}
            for h, after in touched if not h.is_finished and h.deadline is not None]
    newest = touched[-1][0]
    transaction.on_commit(partial(table_announce, hand.table_id, hand.version, hand.pk,
                                  newest=(newest.pk, newest.version), club_id=hand.table.club_id))
    if work:
        transaction.on_commit(partial(_schedule, work))


_publisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="turn-work")


def _publish(work: list[dict[str, Any]]) -> None:
    """One broker message for the transaction; the worker publishes its clocks and notices (games/tasks.py).
    Never raises: the action is committed, and the beat sweeps apply what a lost message would have."""
    from games.tasks import schedule_turns

    try:
        schedule_turns.delay(work)
    except Exception:  # noqa: BLE001 - see the docstring
        log.warning("Could not schedule the clocks of hands %s", [item.get("hand_id") for item in work], exc_info=True)


def _schedule(work: list[dict[str, Any]]) -> None:
    """Publish the turn clocks and notices of a committed transaction from one background thread, so the
    action's own thread (for a socket: the worker thread its answer waits on) sends no broker message.
    A publish lost with the process is applied by the beat sweep (games/tasks.py)."""
    _publisher.submit(_publish, work)


def turn_work_flush() -> None:
    """Wait until every turn clock queued so far is published (tests, and a clean process exit)."""
    _publisher.submit(lambda: None).result(timeout=30)
