"""Tell a table's and a club lobby's Channels groups that something moved on (STYLE.md "From a click
to every screen").

Only numbers travel through a group: ``{"type": "hand.version", "table": t, "hand": h, "version": n}``
to ``table.<id>``, ``{"type": "table.changed", "table": t}`` when seats change, and
``{"type": "lobby.changed"}`` to ``club.<id>``. Each socket builds its own user's view. Registered with
``transaction.on_commit`` by the service that opened the transaction; never raises (a Redis hiccup must
not break an action that has already committed: a lost announcement only delays a screen, and clients
resync on reconnect).

The messages are handed to one sender per process (``_Sender``): a thread of its own running one event
loop, which sends them in the order they were handed over through one channel-layer connection. The
thread that committed (for a socket's action, the worker thread its answer waits on; for a form post or a
timeout, the request's or the task's) neither waits for Redis nor starts an event loop per message.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import time
from concurrent.futures import Future
from typing import Any

from channels.layers import get_channel_layer

from config import metrics

log = logging.getLogger(__name__)

Batch = list[tuple[str, dict[str, Any]]]


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def club_group(club_id: int) -> str:
    return f"club.{club_id}"


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
            if (self._loop is None or self._queue is None or self._thread is None or not self._thread.is_alive()
                    or self._pid != os.getpid()):
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
            except Exception:  # noqa: BLE001 - committed already; a lost announcement only delays a screen
                log.warning("Could not announce %s", about, exc_info=True)
            finally:
                if done is not None:
                    done.set_result(None)

    def submit(self, messages: Batch, about: str, done: Future[None] | None = None) -> None:
        loop, queue = self._started()
        loop.call_soon_threadsafe(queue.put_nowait, (messages, about, done))


_sender = _Sender()


def _send(messages: Batch, *, about: str) -> None:
    """Hand ``messages`` to this process's sender and return at once (they go out in the order handed
    over); a failure to send is logged there as "Could not announce <about>". Each message is stamped now,
    so the broadcast latency counts the wait in the sender too."""
    _sender.submit([(group, metrics.stamped(message)) for group, message in messages], about)


def announce_flush(timeout: float = 10) -> None:
    """Wait until every message handed over so far in this process has been sent or given up (tests, and
    a clean process exit)."""
    done: Future[None] = Future()
    _sender.submit([], "nothing", done)
    done.result(timeout=timeout)


@atexit.register
def _flush_at_exit() -> None:
    if _sender._loop is not None and _sender._pid == os.getpid():
        try:
            announce_flush(timeout=2)
        except Exception:  # noqa: BLE001 - the process is ending; the clients resync on reconnect
            log.warning("Announcements still queued at exit were not sent", exc_info=True)


def table_announce(table_id: int, version: int, hand_id: int | None = None, *,
                   newest: tuple[int, int] | None = None, club_id: int | None = None) -> None:
    """Announce ``version`` of hand ``hand_id`` to ``table.<id>``, then the table's newer hand if one was
    dealt in the same transaction (a hand ended and the next began: its version 0 belongs to a new hand,
    which is why every message names its hand), then ``lobby.changed`` to the club (whose turn moved).
    ``newest`` (hand id, version) and ``club_id``: when the caller knows them (no query then)."""
    try:
        from games.models import Hand, Table

        messages: list[tuple[str, dict[str, Any]]] = [
            (table_group(table_id), {"type": "hand.version", "table": table_id, "hand": hand_id, "version": version})]
        if newest is None:
            newest = (Hand.objects.filter(table_id=table_id).order_by("-number").values_list("pk", "version")
                      .first())
        if newest is not None and hand_id is not None and newest[0] != hand_id:
            messages.append((table_group(table_id), {"type": "hand.version", "table": table_id,
                                                     "hand": newest[0], "version": newest[1]}))
        if club_id is None:
            club_id = Table.objects.filter(pk=table_id).values_list("club_id", flat=True).first()
        if club_id is not None:
            messages.append((club_group(club_id), {"type": "lobby.changed"}))
        _send(messages, about=f"table {table_id} version {version}")
    except Exception:  # noqa: BLE001 - the action is committed; a lost announcement only delays a screen
        log.warning("Could not announce table %s version %s", table_id, version, exc_info=True)


def groups_send(messages: list[tuple[str, dict[str, Any]]], *, about: str) -> None:
    """Send each (group, message) in order; never raises (committed already: see table_announce), logs
    "Could not announce <about>" instead."""
    try:
        _send(messages, about=about)
    except Exception:  # noqa: BLE001 - committed already; a lost announcement only delays a screen
        log.warning("Could not announce %s", about, exc_info=True)


def table_changed_announce(table_id: int, club_id: int) -> None:
    """Seats changed (taken, left, sitting out): the table's sockets and the club's lobby re-render."""
    groups_send([(table_group(table_id), {"type": "table.changed", "table": table_id, "at": time.time_ns()}),
                 (club_group(club_id), {"type": "lobby.changed"})], about=f"a change at table {table_id}")


def lobby_announce(club_id: int) -> None:
    """A table opened or closed: the club's lobby pages re-render."""
    groups_send([(club_group(club_id), {"type": "lobby.changed"})], about=f"the lobby of club {club_id}")
