"""The cut over the table's socket (docs/fairness.md "Protocol" 5): a seated member's cut of a coming deal,
signed by their device, is recorded and acknowledged with its receipt; a spectator's, a malformed one, a
forged one and one for a closed or dealt deal are refused, with words, to that socket alone."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import DeckAhead, DeviceCut
from tests.games.cut_keys import Device, registered
from tests.games.test_consumers import close_worker_thread_connections, next_of, open_table, piranha_table

__all__ = ["close_worker_thread_connections"]  # the autouse fixture, for these socket tests too


@database_sync_to_async
def cuts_of(table_id: int) -> list[tuple[int, int, str]]:
    return list(DeviceCut.objects.filter(deck__table_id=table_id).values_list("deck__number", "user_id", "value"))


@database_sync_to_async
def root_of(table_id: int, number: int) -> str:
    return DeckAhead.objects.get(table_id=table_id, number=number).root


@database_sync_to_async
def signed(device: Device, table, deal: int) -> dict[str, object]:
    return device.cut_of(table, deal)


@pytest.mark.django_db(transaction=True)
async def test_a_seated_member_cuts_over_the_socket_and_gets_a_receipt(club_setup) -> None:
    a = club_setup.members[0]
    device, _ = await database_sync_to_async(registered)(a, 0)
    table = await piranha_table(club_setup)  # deal 1 is dealt; deal 2's list closed with it; deal 3 is open
    player = await open_table(table.pk, a)
    cut = await signed(device, table, 3)
    await player.send_json_to(cut)
    receipt = (await next_of(player, "cut.ok"))["receipt"]
    assert receipt["deal"] == 3 and receipt["root"] == await root_of(table.pk, 3)
    assert receipt["device"] == device.fingerprint and receipt["scheme"] == "merkle-sha256-cut-v2"
    assert await cuts_of(table.pk) == [(3, a.pk, receipt["cut"])]
    closed = await signed(device, table, 2)
    for bad, words in (
        (closed, "closed"),
        ({**cut, "deal": 1}, "not coming"),
        ({**cut, "signature": "x" * 100}, "512 hex"),
        ({**cut, "deal": [3]}, "deal number"),
        ({**cut, "signature": "0" * 512, "device": device.fingerprint}, None),  # the same member's second: refused
    ):
        await player.send_json_to(bad)
        refused = await next_of(player, "cut.refused")
        assert refused["deal"] in (None, 1, 2, 3) and refused["error"]
        if words:
            assert words in refused["error"], refused
    await player.disconnect()

    watcher = await open_table(table.pk, club_setup.organiser)  # a member of the club, not seated
    await watcher.send_json_to(cut)
    assert "seated" in (await next_of(watcher, "cut.refused"))["error"]
    await watcher.disconnect()
    assert len(await cuts_of(table.pk)) == 1
