"""The site's ASGI application with a timeline of each socket action, for bench/served_path.py ``--timeline``
(``uvicorn bench.timeline_app:application``: the same server command, this module in place of config.asgi's).

It wraps, in this process only, the steps of an action's path and stamps each with ``time.monotonic_ns`` (the
machine's clock, the same as the bots' ``time.monotonic``) and, for the threads that work, their own CPU
(``time.thread_time_ns``): the table socket's ``on_action`` on the event loop, the sockets' pool thread
(``_act_if_allowed``: the stamp read, ``hand_act`` with its statements' time, the commit, the connection given
back), the hand-over to the publisher thread (``_in_publisher``), the publisher's read, stamps, renders, the
hand-over to the loop (``deliver_here``) and the script call to Redis, then the loop putting the messages into
the sockets' queues and each socket's forward written. Nothing of the site changes but these wrappers and a
key (``bench_pub``) added to each group message so that its forwards find their version.

Records go, one JSON line each, to the file named by ``BENCH_TIMELINE_OUT``, written by a thread of this
module a few seconds after each action (so its frames have been forwarded).
"""

from __future__ import annotations

import contextvars
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from django.db import connection, connections

from config.asgi import application
from config.database.base import DatabaseWrapper
from games.live import consumer, layer, publish
from games.live.frames import ActionOk

now = time.monotonic_ns
cpu = time.thread_time_ns
_action: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("bench_action", default=None)
_local = threading.local()  # the publisher thread's job record
_pubs: dict[int, dict[str, Any]] = {}  # each publisher job by its number (the group messages name it)
_numbers = itertools.count(1)
_done: list[dict[str, Any]] = []  # actions answered, written a few seconds later
_lock = threading.Lock()
FLUSH_AFTER_NS = 3_000_000_000


@contextmanager
def _statements(record: dict[str, Any], prefix: str) -> Iterator[None]:
    """The time this thread spends in each of its statements (sent, run, read back, the interpreter's lock taken
    again), in order, into ``record``."""

    def timed(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        started = now()
        try:
            return execute(sql, params, many, context)
        finally:
            record.setdefault(f"{prefix}_db", []).append(now() - started)

    with connection.execute_wrapper(timed):
        yield


class _Connections:
    """``django.db.connections`` with its ``close_all`` (a pooled connection given back) timed."""

    def __init__(self, inner: Any, step: str) -> None:
        self._inner = inner
        self._step = step

    def close_all(self) -> None:
        started = now()
        self._inner.close_all()
        record = _action.get() if self._step == "pool_close_ns" else getattr(_local, "pub", None)
        if record is not None:
            record[self._step] = now() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _current() -> dict[str, Any] | None:
    """The record of this thread's work: the action (the sockets' pool) or the publisher's job."""
    return _action.get() or getattr(_local, "pub", None)


def _timed_method(name: str, step: str) -> None:
    """``DatabaseWrapper.<name>`` timed into the current record's ``<step>_ns`` (and counted)."""
    inner = getattr(DatabaseWrapper, name)

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            return inner(self, *args, **kwargs)
        finally:
            record = _current()
            if record is not None:
                record[f"{step}_ns"] = record.get(f"{step}_ns", 0) + now() - started
                record[f"{step}_n"] = record.get(f"{step}_n", 0) + 1

    setattr(DatabaseWrapper, name, timed)


# ---- the socket: the event loop and the sockets' pool ----------------------------------------------

_on_action = consumer.TableConsumer.on_action
_send_frame = consumer.TableConsumer.send_frame
_act_if_allowed = consumer.TableConsumer._act_if_allowed
_act = consumer.TableConsumer._act
_forward = consumer.TableConsumer._forward


async def on_action(self: Any, message: Any) -> None:
    action = message.action
    kind = str(action.get("type") if isinstance(action, dict) else action).partition(":")[0]
    record: dict[str, Any] = {"table": self.table_id, "recv": now(), "pubs": [], "action": kind}
    token = _action.set(record)
    try:
        await _on_action(self, message)
    finally:
        _action.reset(token)
    if "key" in record:
        record["ok_sent"] = now()
        with _lock:
            _done.append(record)


async def send_frame(self: Any, frame: Any) -> None:
    record = _action.get()
    if record is not None and isinstance(frame, ActionOk):
        record["ok_start"] = now()
        record["key"] = [frame.hand, frame.version]
    await _send_frame(self, frame)


def act_if_allowed(self: Any, act: Any) -> Any:
    record = _action.get()
    if record is not None:
        record["pool_start"], record["pool_cpu0"] = now(), cpu()
    try:
        return _act_if_allowed(self, act)
    finally:
        if record is not None:
            record["pool_end"], record["pool_cpu1"] = now(), cpu()


def act(self: Any, request: Any) -> Any:
    record = _action.get()
    if record is None:
        return _act(self, request)
    record["act_start"], record["act_cpu0"] = now(), cpu()
    try:
        with _statements(record, "act"):
            return _act(self, request)
    finally:
        record["act_end"], record["act_cpu1"] = now(), cpu()


async def forward(self: Any, event: dict[str, Any]) -> None:
    await _forward(self, event)
    pub = _pubs.get(event.get("bench_pub", 0))
    if pub is not None:
        pub["forwards"].append([event["type"], now()])


# ---- the publisher and the wire ---------------------------------------------------------------------

_in_publisher = publish._in_publisher
_table_snapshot_of = publish.table_snapshot_of
_access_stamps = publish.access_stamps
_private_frame = publish.private_frame
_public_frame = publish.public_frame
_deliver_here = publish.deliver_here
_send_batch = publish._send_batch
_put = layer._put


def in_publisher(table_id: int, job: Callable[[], None], about: str) -> None:
    number = next(_numbers)
    hand = job.args[0] if isinstance(job, partial) and job.args else None
    pub: dict[str, Any] = {
        "n": number,
        "table": table_id,
        "key": [hand.pk, hand.version] if hand is not None else None,
        "submit": now(),
        "render_ns": 0,
        "renders": 0,
        "forwards": [],
    }
    _pubs[number] = pub
    record = _action.get()
    if record is not None:
        record.setdefault("commit", pub["submit"])
        record["pubs"].append(pub)

    def timed() -> None:
        pub["start"], pub["cpu0"] = now(), cpu()
        pub["prev_end"] = getattr(_local, "last_end", 0)  # the thread's job before: a wait behind it, if later
        _local.pub = pub
        try:
            job()
        finally:
            pub["end"], pub["cpu1"] = now(), cpu()
            _local.last_end = pub["end"]

    _in_publisher(table_id, timed, about)


def table_snapshot_of(**kwargs: Any) -> Any:
    pub = getattr(_local, "pub", None)
    if pub is None:
        return _table_snapshot_of(**kwargs)
    pub["read_start"] = now()
    try:
        with _statements(pub, "read"):
            return _table_snapshot_of(**kwargs)
    finally:
        pub["read_end"] = now()


def access_stamps(user_ids: Any) -> Any:
    pub = getattr(_local, "pub", None)
    started = now()
    try:
        return _access_stamps(user_ids)
    finally:
        if pub is not None:
            pub["stamps_ns"] = now() - started


def _rendered(render: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        pub = getattr(_local, "pub", None)
        started = now()
        try:
            return render(*args, **kwargs)
        finally:
            if pub is not None:
                pub["render_ns"] += now() - started
                pub["renders"] += 1

    return timed


def deliver_here(channel_layer: Any, sends: Any) -> Any:
    pub = getattr(_local, "pub", None)
    if pub is not None:
        pub["here_start"] = now()
        for _channel, message in sends:
            message["bench_pub"] = pub["n"]
    try:
        return _deliver_here(channel_layer, sends)
    finally:
        if pub is not None:
            pub["here_end"] = now()


def send_batch(messages: Any) -> None:
    pub = getattr(_local, "pub", None)
    try:
        _send_batch(messages)
    finally:
        if pub is not None:
            pub["wire_end"] = now()


def put(loop_layer: Any, sends: Any) -> None:
    pub = _pubs.get(sends[0][1].get("bench_pub", 0)) if sends else None
    if pub is not None and "put" not in pub:
        pub["put"] = now()
    _put(loop_layer, sends)


def _writer(path: str) -> None:
    """Every half second: the actions answered more than a few seconds ago, one JSON line each."""
    while True:
        time.sleep(0.5)
        cut = now() - FLUSH_AFTER_NS
        with _lock:
            ready = [r for r in _done if r["recv"] < cut]
            _done[:] = [r for r in _done if r["recv"] >= cut]
        for pub in [p for p in list(_pubs.values()) if p["submit"] < cut - FLUSH_AFTER_NS]:
            _pubs.pop(pub["n"], None)
        if ready:
            with open(path, "a", encoding="utf-8") as out:
                out.writelines(json.dumps(r) + "\n" for r in ready)


consumer.TableConsumer.on_action = on_action  # type: ignore[method-assign]
consumer.TableConsumer.send_frame = send_frame  # type: ignore[method-assign]
consumer.TableConsumer._act_if_allowed = act_if_allowed  # type: ignore[method-assign]
consumer.TableConsumer._act = act  # type: ignore[method-assign]
consumer.TableConsumer._forward = forward  # type: ignore[method-assign]
consumer.connections = _Connections(connections, "pool_close_ns")  # type: ignore[assignment]
publish.connections = _Connections(connections, "close_ns")  # type: ignore[assignment]
publish._in_publisher = in_publisher
_timed_method("_commit", "commit")  # the commit's round trip (and its WAL flush)
_timed_method("connect", "connect")  # a connection from the pool (its check)
publish.table_snapshot_of = table_snapshot_of
publish.access_stamps = access_stamps
publish.private_frame = _rendered(_private_frame)
publish.public_frame = _rendered(_public_frame)
publish.deliver_here = deliver_here
publish._send_batch = send_batch
layer._put = put
threading.Thread(target=_writer, args=(os.environ["BENCH_TIMELINE_OUT"],), name="bench-timeline", daemon=True).start()


__all__ = ["application"]
