"""Tell a table's and a club lobby's Channels groups that something moved on (STYLE.md "From a click
to every screen").

Only numbers travel through a group: ``{"type": "hand.version", "table": t, "hand": h, "version": n}``
to ``table.<id>``, ``{"type": "table.changed", "table": t}`` when seats change, and
``{"type": "lobby.changed"}`` to ``club.<id>``. Each socket builds its own user's view. Registered with
``transaction.on_commit`` by the service that opened the transaction; never raises (a Redis hiccup must
not break an action that has already committed: a lost announcement only delays a screen, and clients
resync on reconnect).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from config import metrics

log = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def club_group(club_id: int) -> str:
    return f"club.{club_id}"


def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return

    async def send_all() -> None:
        for group, message in messages:
            await layer.group_send(group, metrics.stamped(message))

    async_to_sync(send_all)()


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
        _send(messages)
    except Exception:  # noqa: BLE001 - the action is committed; a lost announcement only delays a screen
        log.warning("Could not announce table %s version %s", table_id, version, exc_info=True)


def groups_send(messages: list[tuple[str, dict[str, Any]]], *, about: str) -> None:
    """Send each (group, message) in order; never raises (committed already: see table_announce), logs
    "Could not announce <about>" instead."""
    try:
        _send(messages)
    except Exception:  # noqa: BLE001 - committed already; a lost announcement only delays a screen
        log.warning("Could not announce %s", about, exc_info=True)


def table_changed_announce(table_id: int, club_id: int) -> None:
    """Seats changed (taken, left, sitting out): the table's sockets and the club's lobby re-render."""
    groups_send([(table_group(table_id), {"type": "table.changed", "table": table_id, "at": time.time_ns()}),
                 (club_group(club_id), {"type": "lobby.changed"})], about=f"a change at table {table_id}")


def lobby_announce(club_id: int) -> None:
    """A table opened or closed: the club's lobby pages re-render."""
    groups_send([(club_group(club_id), {"type": "lobby.changed"})], about=f"the lobby of club {club_id}")
