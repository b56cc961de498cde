"""Tell a table's Channels group that its hand moved on (STYLE.md "From a click to every screen").

Only a version number travels through the group; each socket builds its own
user's view. Registered with ``transaction.on_commit`` by the service that
opened the transaction.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def table_announce(table_id: int, version: int) -> None:
    """Send {"type": "hand.version", "version": n} to ``table.<id>``; never raises (a Redis hiccup
    must not break an action that has already committed)."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        async_to_sync(layer.group_send)(table_group(table_id), {"type": "hand.version", "version": version})
    except Exception:  # noqa: BLE001 - the action is committed; a lost announcement only delays a screen
        log.warning("Could not announce table %s version %s", table_id, version, exc_info=True)
