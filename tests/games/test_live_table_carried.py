"""The publisher renders a version from the table the action's own transaction loaded and left
(games/live/publish.py, games/services/locking.py), not from a read of its own: at the version that ends
the game, the public frame shows the table finished, byte for byte as a spectator's fresh render does."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.models import Table
from tests.games.test_consumers import open_table
from tests.games.test_live_budget import _wait_public, dealt


async def _synced(comm: Any) -> dict[str, Any]:
    """The public frame a ``sync`` renders afresh for this socket (its ``at`` is a time, not 0)."""
    await comm.send_json_to({"type": "sync"})
    while True:
        message = await comm.receive_json_from(timeout=10)
        if message["type"] == "table.public" and message["at"]:
            return message


@pytest.mark.django_db(transaction=True)
async def test_the_version_that_ends_the_game_shows_the_table_as_its_transaction_left_it(club_setup) -> None:
    from games.live.publish import announce_flush

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    spectator = await open_table(table.pk, club_setup.organiser)
    # One player alone stays in at the drop: the game is over (piranha.txt 3.3) and the table finished.
    for version, (user, choice) in enumerate(((a, "in"), (b, "out"), (c, "out"))):
        await database_sync_to_async(services.hand_act)(
            hand_id=hand.pk, user=user, action={"type": choice}, version=version
        )
    await database_sync_to_async(announce_flush)()
    last = await _wait_public(3)(spectator)
    stored = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert stored.status == Table.Status.FINISHED and last["finished"]
    assert "· Finished</span>" in last["html"]
    assert last["html"] == (await _synced(spectator))["html"]
    await spectator.disconnect()
