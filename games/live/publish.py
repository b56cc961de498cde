"""After a commit: the table's frames rendered once and sent to the groups (docs/live.md "Groups").

The process that committed a version renders its public frame once and the private frames of the members
whose own part changed (``Hand.private_marks``, games/services/marks.py), from the hand and state it holds, and
sends the encoded bytes: privates to ``mine.<user>`` first, then the public frame to
``table.<id>``, then ``lobby.changed`` to the club. A seat change, a ruling or a clock moved makes a
``full`` frame: every seated member's private frame with it.

Publisher threads keep the committing thread free and each table's frames in order (``PUBLISHERS`` per
process, each table always to the same one): each reads what the hand's area shows beside the hand, renders,
encodes, hands the version's messages to this process's own sockets on their event loops and PUBLISHes them,
for the other processes, in one Redis round trip (games/live/layer.py). Registered with
``transaction.on_commit``; never raises: a
Redis hiccup must not break an action that has committed (a lost frame is seen at the next one, and the
screen asks ``sync``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts
from django.conf import settings
from django.db import connections
from redis.exceptions import NoScriptError

from accounts.models import User
from games.live.access import access_stamps
from games.live.frames import PRIVATE, PUBLIC, carried
from games.live.layer import PUBLISH_BEYOND, PUBLISH_BEYOND_SHA, LiveChannelLayer, command, deliver_here, origin
from games.live.render import private_frame, public_frame
from games.models import Hand
from games.selectors.snapshot import Carried, TableSnapshot, table_snapshot_of, table_snapshot_read
from games.selectors.states import hand_state
from kernel import metrics
from kernel.pools import kept, thread_pool

log = logging.getLogger(__name__)

Batch = list[tuple[str, dict[str, Any]]]


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def mine_group(user_id: int) -> str:
    """Every table socket of a member, whatever the table: sent their private frames of every table (each
    names its table: a socket at another table forwards only a word that their part changed there). One
    group a socket fewer than a group per member and table (memory per open socket)."""
    return f"mine.{user_id}"


def club_group(club_id: int) -> str:
    return f"club.{club_id}"


# ---- the wire: this process's sockets served here, the others' in one round trip to Redis ------------


def _clients() -> tuple[list[redis.Redis], str]:
    """This process's Redis clients of the channel layer's hosts (kept per settings: tests swap them) and its
    prefix. A sync client, so that the thread that rendered a batch sends it: no hop to an event loop."""
    layers: dict[str, Any] = settings.CHANNEL_LAYERS
    config: dict[str, Any] = layers["default"].get("CONFIG", {})

    def make() -> tuple[list[redis.Redis], str]:
        hosts = [dict(h) for h in decode_hosts(config.get("hosts"))]
        return [redis.Redis.from_url(h.pop("address"), **h) for h in hosts], str(config.get("prefix", "asgi"))

    return kept("channel layer wire", repr(config), make)


def _send_batch(messages: Batch) -> None:
    """Send each (group, message) in order. With the site's layer (games/live/layer.py): to this process's
    sockets in the group straight onto their event loops, and to Redis, one script call per host (one round
    trip for a version's frames), only where another process listens. The channel names and the encoding
    are channels_redis's pub/sub layer's (its ``_get_group_channel_name``, its serializer), so every
    process's sockets hear them as group messages. Another layer is sent through its own ``group_send``."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    if not isinstance(layer, RedisPubSubChannelLayer):
        for group, message in messages:
            async_to_sync(layer.group_send)(group, metrics.stamped(message))
        return
    clients, prefix = _clients()
    own = {"origin": origin()}
    sends = [(group_channel_name(prefix, group), {**own, **metrics.stamped(message)}) for group, message in messages]
    served = deliver_here(layer, sends) if isinstance(layer, LiveChannelLayer) else {}
    by_host: dict[int, list[tuple[str, bytes]]] = {}
    for channel, sent in sends:
        by_host.setdefault(_consistent_hash(channel, len(clients)), []).append((channel, layer.serialize(sent)))
    for host, out in by_host.items():
        beyond = [arg for channel, data in out for arg in (data, served.get(channel, 0))]
        args = (len(out), *(channel for channel, _data in out), *beyond)
        try:
            command(clients[host], "EVALSHA", PUBLISH_BEYOND_SHA, *args)
        except NoScriptError:  # not loaded yet, or forgotten by a restart: EVAL loads it
            command(clients[host], "EVAL", PUBLISH_BEYOND, *args)


def group_channel_name(prefix: str, group: str) -> str:
    """The Redis channel the pub/sub layer's subscribers of ``group`` listen on: its ``_get_group_channel_name``,
    written out because the layer's own is reached only inside an event loop (tests/games/test_live_wire.py
    checks the two agree)."""
    return f"{prefix}__group__{group}"


def groups_send(messages: Batch, *, about: str) -> None:
    """Send each (group, message) now, in order, from this thread (the broadcast latency counts from here);
    never raises: logs "Could not announce <about>" instead (a lost frame is healed by the next)."""
    try:
        _send_batch(messages)
    except Exception:  # noqa: BLE001 - committed already; a lost frame is healed by the next
        log.warning("Could not announce %s", about, exc_info=True)


# ---- the publisher: read, render, encode once ----------------------------------------------------

# Publisher threads per process. A table is always published by the same one, so its frames stay in order,
# while another table's version need not wait for this one's reads (round trips to the database).
PUBLISHERS = 3


def _publisher(table_id: int) -> ThreadPoolExecutor:
    """The publisher thread of table ``table_id`` (kernel/pools.py: a forked child makes its own)."""
    return thread_pool(f"publish-{table_id % PUBLISHERS}", 1)


def _in_publisher(table_id: int, job: Callable[[], None], about: str) -> None:
    """Run ``job`` in the publisher thread of table ``table_id``, after the jobs handed over before it. The thread's
    pooled connection goes back after a job when no other job waits for the thread (or the job failed): a version
    queued behind it reads on the same connection, not one given back and taken again (a queued version's read
    156-171 -> 66-91 us of CPU, bench/access_path.py). Its one thread takes the next job itself, so a connection
    kept is never left with an idle thread."""
    publisher = _publisher(table_id)

    def run() -> None:
        failed = True
        try:
            job()
            failed = False
        except Exception:  # noqa: BLE001 - committed already; a lost frame is healed by the next
            log.warning("Could not publish %s", about, exc_info=True)
        finally:
            if failed or publisher._work_queue.empty():
                connections.close_all()

    try:
        publisher.submit(run)
    except RuntimeError:  # the process is ending: its screens resync on reconnect
        log.warning("Could not publish %s: the process is ending", about)


def _frames(snapshot: TableSnapshot, members: Sequence[User], *, at: int, full: bool) -> Batch:
    """The private frames of ``members`` (to each member's group, naming the table: their sockets at other tables
    say only that their part changed here), then the public frame. Each carries the access stamps of the
    players it goes to, read here once for the table, so that a socket forwarding it needs no cache read of its
    own (games/live/access.py)."""
    table_id = snapshot.table.pk
    stamps = {
        str(user_id): stamp
        for user_id, stamp in access_stamps(user.pk for user in members_with_parts(snapshot)).items()
    }
    out: Batch = [
        (
            mine_group(user.pk),
            {
                **carried(PRIVATE, private_frame(snapshot, user, at=at)),
                "table": table_id,
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
    """Wait until everything handed over to this process's publishers so far has been sent or given up (tests;
    at a process's exit its publishers finish their queues before it ends)."""
    with contextlib.suppress(RuntimeError):  # shut down at the process's exit: its jobs have run
        for published in [_publisher(n).submit(connections.close_all) for n in range(PUBLISHERS)]:
            published.result(timeout=timeout)
