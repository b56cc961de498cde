"""The cut over the table's socket: a seated member's cut of a coming deal is recorded and acknowledged with
its receipt; a spectator's, a malformed one and one for a dealt deal are refused to that socket alone."""

from __future__ import annotations

import secrets

import pytest
from channels.db import database_sync_to_async

from games.models import DealCut, DeckAhead
from tests.games.test_consumers import close_worker_thread_connections, next_of, open_table, piranha_table

__all__ = ["close_worker_thread_connections"]  # the autouse fixture, for these socket tests too


@database_sync_to_async
def cuts_of(table_id: int) -> list[tuple[int, int, str]]:
    return list(DealCut.objects.filter(deck__table_id=table_id).values_list("deck__number", "user_id", "value"))


@database_sync_to_async
def root_of(table_id: int, number: int) -> str:
    return DeckAhead.objects.get(table_id=table_id, number=number).root


@pytest.mark.django_db(transaction=True)
async def test_a_seated_member_cuts_over_the_socket_and_gets_a_receipt(club_setup) -> None:
    table = await piranha_table(club_setup)  # deal 1 is dealt; deals 2 and 3 are coming
    a = club_setup.members[0]
    player = await open_table(table.pk, a)
    cut = secrets.token_hex(16)
    await player.send_json_to({"type": "cut", "deal": 2, "cut": cut})
    receipt = (await next_of(player, "cut.ok"))["receipt"]
    assert receipt["deal"] == 2 and receipt["cut"] == cut and receipt["root"] == await root_of(table.pk, 2)
    assert await cuts_of(table.pk) == [(2, a.pk, cut)]
    for bad in (
        {"type": "cut", "deal": 1, "cut": secrets.token_hex(16)},  # dealt already
        {"type": "cut", "deal": 2, "cut": "x" * 100},
        {"type": "cut", "deal": [2], "cut": secrets.token_hex(16)},
    ):
        await player.send_json_to(bad)
        refused = await next_of(player, "cut.refused")
        assert refused["deal"] in (None, 1, 2) and refused["error"]
    await player.disconnect()

    watcher = await open_table(table.pk, club_setup.organiser)  # a member of the club, not seated
    await watcher.send_json_to({"type": "cut", "deal": 2, "cut": secrets.token_hex(16)})
    assert "seated" in (await next_of(watcher, "cut.refused"))["error"]
    await watcher.disconnect()
    assert len(await cuts_of(table.pk)) == 1
