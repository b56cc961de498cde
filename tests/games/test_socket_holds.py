"""What an open table socket keeps for its life: its member and the ids it forwards by, nothing heavier
(memory per open socket, docs/live.md "Access, close codes"; bench/load.py measures it against a bare app)."""

from __future__ import annotations

import asyncio
import gc

import pytest
from django.contrib.sessions.backends.base import SessionBase
from django.db.models import Model
from django.utils.functional import LazyObject

from accounts.models import User
from games.live.consumer import TableConsumer
from kernel.pools import GC_THRESHOLDS
from tests.games.test_consumers import next_of, open_table, piranha_table


@pytest.mark.django_db(transaction=True)
async def test_an_open_table_socket_keeps_its_member_and_ids_not_the_table_or_the_session(club_setup) -> None:
    table = await piranha_table(club_setup)
    member = club_setup.members[0]
    comm = await open_table(table.pk, member)
    await comm.send_json_to({"type": "sync"})  # a full render, as on connect
    await next_of(comm, "table.public")
    gc.collect()
    # type(), not isinstance(): isinstance asks a lazy object (a request's CSP nonce left in the process) for its
    # class, which evaluates it and raises once its response is sent.
    sockets = [
        o
        for o in gc.get_objects()
        if issubclass(type(o), TableConsumer)
        and o.scope.get("url_route", {}).get("kwargs", {}).get("table_id") == table.pk
    ]
    assert len(sockets) == 1
    socket = sockets[0]
    held = [*vars(socket).values(), *socket.scope.values()]
    heavy = [v for v in held if isinstance(v, Model | SessionBase | LazyObject) and not isinstance(v, User)]
    assert heavy == []  # no Table with its club and rules, no session store, no lazy user in the scope
    assert socket.user.pk == member.pk and socket.club_id == table.club_id and socket.session_key
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_sockets_full_render_leaves_no_cyclic_garbage_waiting_for_the_collector(club_setup) -> None:
    """The render on connect and ``sync`` leaves hundreds of objects in cycles (about 280 here); under the server's collector
    settings (kernel/pools.py: a young generation of 20,000) they would wait while more sockets open, and a storm
    of connects grew the process by them (bench/socket_memory.py). The socket collects them after its render."""
    table = await piranha_table(club_setup)
    thresholds = gc.get_threshold()
    gc.collect()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        comm = await open_table(table.pk, club_setup.members[0])
        await comm.send_json_to({"type": "sync"})
        await next_of(comm, "table.public")
        await asyncio.sleep(0.2)  # the socket's collection after its sends
        left = gc.collect()
    finally:
        gc.set_threshold(*thresholds)
    await comm.disconnect()
    assert left < 100
