"""After a commit: the table's frames rendered once and sent to the groups (docs/live.md "Groups").

The process that committed a version renders its public frame once and the private frames of the members
whose own part changed (``Hand.private_marks``, games/live/marks.py), from the hand and state it holds, and
sends the encoded bytes: privates to ``member.<table>.<user>`` first, then the public frame to
``table.<id>``, then ``lobby.changed`` to the club. A seat change, a ruling or a clock moved makes a
``full`` frame: every seated member's private frame with it.

Threads of their own keep the committing thread free and each table's frames in order: the publishers
(``PUBLISHERS`` per process, each table always to the same one: reads what the hand's area shows beside the
hand, renders, encodes) and the sender (one event loop, one channel-layer connection, sends in the order
handed over). Registered with ``transaction.on_commit``; never raises: a
Redis hiccup must not break an action that has committed (a lost frame is seen at the next one, and the
screen asks ``sync``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

from channels.layers import get_channel_layer
from django.db import connections

from accounts.models import User
from games.live.access import access_stamps
from games.live.frames import PRIVATE, PUBLIC, carried
from games.live.render import private_frame, public_frame
from games.models import Hand
from games.selectors.snapshot import Carried, TableSnapshot, table_snapshot_of, table_snapshot_read
from games.selectors.states import hand_state
from kernel import metrics

log = logging.getLogger(__name__)

Batch = list[tuple[str, dict[str, Any]]]


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def member_group(table_id: int, user_id: int) -> str:
    return f"member.{table_id}.{user_id}"


def club_group(club_id: int) -> str:
    return f"club.{club_id}"


# ---- the sender: one event loop in a thread of its own ------------------------------------------


async def _send_all(messages: Batch) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        await layer.group_send(group, message)


class _Sender:
    """One event loop in a daemon thread of this process that sends the handed-over batches in order
    (started on first use, and again in a forked child: a Celery worker's processes each get their own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[Batch, str, Future[None] | None]] | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def _started(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[tuple[Batch, str, Future[None] | None]]]:
        with self._lock:
            if (
                self._loop is None
                or self._queue is None
                or self._thread is None
                or not self._thread.is_alive()
                or self._pid != os.getpid()
            ):
                ready: Future[tuple[asyncio.AbstractEventLoop, Any]] = Future()
                self._thread = threading.Thread(target=self._run, args=(ready,), name="announce", daemon=True)
                self._thread.start()
                self._loop, self._queue = ready.result(timeout=10)
                self._pid = os.getpid()
            return self._loop, self._queue

    def _run(self, ready: Future[tuple[asyncio.AbstractEventLoop, Any]]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        queue: asyncio.Queue[tuple[Batch, str, Future[None] | None]] = asyncio.Queue()
        ready.set_result((loop, queue))
        loop.run_until_complete(self._drain(queue))

    @staticmethod
    async def _drain(queue: asyncio.Queue[tuple[Batch, str, Future[None] | None]]) -> None:
        while True:
            messages, about, done = await queue.get()
            try:
                if messages:
                    await _send_all(messages)
            except Exception:  # noqa: BLE001 - committed already; a lost frame is healed by the next
                log.warning("Could not announce %s", about, exc_info=True)
            finally:
                if done is not None:
                    done.set_result(None)

    def submit(self, messages: Batch, about: str, done: Future[None] | None = None) -> None:
        loop, queue = self._started()
        loop.call_soon_threadsafe(queue.put_nowait, (messages, about, done))


_sender = _Sender()


def groups_send(messages: Batch, *, about: str) -> None:
    """Hand each (group, message) to this process's sender, stamped now (the broadcast latency counts the
    wait there too); never raises: logs "Could not announce <about>" instead."""
    try:
        _sender.submit([(group, metrics.stamped(message)) for group, message in messages], about)
    except Exception:  # noqa: BLE001 - committed already; a lost frame is healed by the next
        log.warning("Could not announce %s", about, exc_info=True)


# ---- the publisher: read, render, encode once ----------------------------------------------------

# Publisher threads per process. A table is always published by the same one, so its frames stay in order,
# while another table's version need not wait for this one's reads (round trips to the database).
PUBLISHERS = 3


def _publisher_threads() -> list[ThreadPoolExecutor]:
    return [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"publish-{n}") for n in range(PUBLISHERS)]


_publishers = _publisher_threads()
_pid = os.getpid()


def _in_publisher(table_id: int, job: Callable[[], None], about: str) -> None:
    """Run ``job`` in the publisher thread of table ``table_id``, after the jobs handed over before it."""
    global _publishers, _pid
    if _pid != os.getpid():  # a forked child (a Celery worker's process): threads of its own
        _publishers, _pid = _publisher_threads(), os.getpid()

    def run() -> None:
        try:
            job()
        except Exception:  # noqa: BLE001 - committed already; a lost frame is healed by the next
            log.warning("Could not publish %s", about, exc_info=True)
        finally:
            connections.close_all()  # the thread's pooled connection goes back after each job

    try:
        _publishers[table_id % PUBLISHERS].submit(run)
    except RuntimeError:  # the process is ending: its screens resync on reconnect
        log.warning("Could not publish %s: the process is ending", about)


def _frames(snapshot: TableSnapshot, members: Sequence[User], *, at: int, full: bool) -> Batch:
    """The private frames of ``members`` (to each member's group), then the public frame. Each carries the
    access stamps of the players it goes to, read here once for the table, so that a socket forwarding it
    needs no cache read of its own (games/live/access.py)."""
    table_id = snapshot.table.pk
    stamps = {
        str(user_id): stamp
        for user_id, stamp in access_stamps(user.pk for user in members_with_parts(snapshot)).items()
    }
    out: Batch = [
        (
            member_group(table_id, user.pk),
            {
                **carried(PRIVATE, private_frame(snapshot, user, at=at)),
                "stamps": {str(user.pk): stamps.get(str(user.pk))},
            },
        )
        for user in members
    ]
    out.append((table_group(table_id), {**carried(PUBLIC, public_frame(snapshot, at=at, full=full)), "stamps": stamps}))
    return out


def members_with_parts(snapshot: TableSnapshot) -> list[User]:
    """Every member with a part of their own at the table: seated, or dealt into its hand."""
    found = {s.user_id: s.user for s in snapshot.seats}
    for user in snapshot.hand_users.values():
        found.setdefault(user.pk, user)
    return list(found.values())


def _changed(snapshot: TableSnapshot, after: int) -> list[User]:
    """The players whose own part changed since version ``after`` (the hand's marks)."""
    hand = snapshot.hand
    assert hand is not None
    marks = hand.private_marks or {}
    return [user for seat, user in snapshot.hand_users.items() if int(marks.get(str(seat), 0)) > after]


def version_frames(snapshot: TableSnapshot, after: int, club_id: int, *, public_only: bool = False) -> Batch:
    """The frames of the version ``snapshot`` shows, published after version ``after`` (-1: dealt since):
    the changed members' private frames (none when ``public_only``), the public frame, the lobby's word."""
    hand = snapshot.hand
    assert hand is not None
    full = after < 0 or hand.is_finished
    members = [] if public_only else members_with_parts(snapshot) if full else _changed(snapshot, after)
    return [*_frames(snapshot, members, at=0, full=full), (club_group(club_id), {"type": "lobby.changed"})]


def _publish_version(hand: Hand, after: int, club_id: int, *, public_only: bool, known: Carried) -> None:
    snapshot = table_snapshot_of(hand=hand, state=hand_state(hand), carried=known)
    metrics.live_version_published()
    groups_send(
        version_frames(snapshot, after, club_id, public_only=public_only),
        about=f"table {hand.table_id} version {hand.version}",
    )


def versions_carried(
    touched: Sequence[tuple[Hand, int]], known: Mapping[int, Carried] | None = None
) -> list[tuple[Hand, int, Carried]]:
    """Each hand ``touched`` (with the version it had before the transaction; -1: dealt in it) with what the
    transaction knew of it (``known``, by hand id). A hand dealt in it has no advance action yet, and the
    hand before it in ``touched`` is its last finished one."""
    out = []
    for i, (hand, after) in enumerate(touched):
        this = (known or {}).get(hand.pk, Carried())
        if after < 0:
            this = replace(this, advance_rows=[], previous=touched[i - 1][0] if i else None)
        out.append((hand, after, this))
    return out


def versions_publish(
    touched: Sequence[tuple[Hand, int]], club_id: int, known: Mapping[int, Carried] | None = None
) -> None:
    """On commit: publish each hand ``touched`` at the version it has now (``versions_carried``). A hand that
    ended and was followed by the next one in the same transaction gets its public frame only: the next
    hand's frames come right after."""
    for i, (hand, after, hand_known) in enumerate(versions_carried(touched, known)):
        if hand.version == after:
            continue  # nothing new (a clock moved: a full frame follows)
        _in_publisher(
            hand.table_id,
            partial(_publish_version, hand, after, club_id, public_only=i + 1 < len(touched), known=hand_known),
            f"table {hand.table_id} version {hand.version}",
        )


def table_changed_publish(table_id: int, club_id: int) -> None:
    """On commit of a seat change, a ruling or a clock moved: the table's full frames, then the lobby."""
    at = time.time_ns()

    def job() -> None:
        snapshot = table_snapshot_read(table_id=table_id)
        batch = [] if snapshot is None else _frames(snapshot, members_with_parts(snapshot), at=at, full=True)
        groups_send([*batch, (club_group(club_id), {"type": "lobby.changed"})], about=f"a change at table {table_id}")

    _in_publisher(table_id, job, f"a change at table {table_id}")


def lobby_announce(club_id: int) -> None:
    """A table opened or closed: the club's lobby pages re-render."""
    groups_send([(club_group(club_id), {"type": "lobby.changed"})], about=f"the lobby of club {club_id}")


def announce_flush(timeout: float = 10) -> None:
    """Wait until everything handed over so far in this process has been published and sent or given up
    (tests, and a clean process exit)."""
    if _pid == os.getpid():
        with contextlib.suppress(RuntimeError):  # shut down at the process's exit: its jobs have run
            for published in [publisher.submit(lambda: None) for publisher in _publishers]:
                published.result(timeout=timeout)
    done: Future[None] = Future()
    _sender.submit([], "nothing", done)
    done.result(timeout=timeout)


@atexit.register
def _flush_at_exit() -> None:
    if _sender._loop is not None and _sender._pid == os.getpid():
        try:
            announce_flush(timeout=2)
        except Exception:  # noqa: BLE001 - the process is ending; the screens resync on reconnect
            log.warning("Announcements still queued at exit were not sent", exc_info=True)
