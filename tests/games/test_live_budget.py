"""What one action costs the server: the statements of the action's own call, and what the table's
sockets do when the group hears the new version (no access query at all, the hand read at most once
per version in the process)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import engine, services
from games.models import Hand, Table
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_consumers import close_worker_thread_connections, open_table  # noqa: F401
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ORDER as PILES_ORDER
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

NO_MONEY_BUDGET = 12  # statements, BEGIN and COMMIT included
LEDGER_BUDGET = 18


def piles_table(setup: Any) -> tuple[Table, Hand, dict[int, User]]:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PilesRules(), players=[a, b, c])
    services.table_start(table_id=table.pk, user=b, deck=fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1))
    return table, Hand.objects.get(table=table), {1: a, 2: b, 3: c}


def act(table: Table, hand: Hand, user: User, action: dict[str, Any], version: int) -> list[str]:
    """One action through the service the form and the socket call; the statements it sent."""
    with CaptureQueriesContext(connection) as ctx:
        services.hand_act(table_id=table.pk, hand_id=hand.pk, user=user, action=engine.action_from_dict(action),
                          version=version)
    sql = [q["sql"] for q in ctx.captured_queries]
    assert sql[0] == "BEGIN" and "COMMIT" in sql, sql
    return sql


@pytest.mark.django_db(transaction=True)
def test_an_action_that_moves_no_money_takes_at_most_twelve_statements(club_setup) -> None:
    table, hand, users = piles_table(club_setup)
    order = list(PILES_ORDER)
    # Stage 1: the first bets (money moves), then stage 2 checks all round (no money moves).
    counts = []
    version = 0
    for seat in order:
        act(table, hand, users[seat], {"type": "bet" if seat == 2 else "call"}, version)
        version += 1
    for seat in order:
        sql = act(table, hand, users[seat], {"type": "check"}, version)
        version += 1
        counts.append(len(sql))
        assert len(sql) <= NO_MONEY_BUDGET, "\n".join(sql)
    print(f"statements per check: {counts}")


@pytest.mark.django_db(transaction=True)
def test_an_action_that_posts_to_the_ledger_takes_at_most_eighteen_statements(club_setup) -> None:
    table, hand, users = piles_table(club_setup)
    counts = []
    for version, seat in enumerate(PILES_ORDER):
        sql = act(table, hand, users[seat], {"type": "bet" if seat == 2 else "call"}, version)
        counts.append(len(sql))
        assert any("ledger_posting" in q for q in sql), sql
        assert len(sql) <= LEDGER_BUDGET, "\n".join(sql)
    print(f"statements per bet or call: {counts}")


class ServerQueries:
    """Every statement any thread of this process sends while recording (the sockets' worker threads
    included), with the thread that sent it."""

    def __init__(self) -> None:
        self.sql: list[tuple[str, str]] = []
        self.recording = False
        self._lock = threading.Lock()

    def install(self, monkeypatch: Any) -> None:
        original = CursorWrapper._execute_with_wrappers
        recorder = self

        def execute(wrapper: Any, sql: Any, *args: Any, **kwargs: Any) -> Any:
            if recorder.recording:
                with recorder._lock:
                    recorder.sql.append((threading.current_thread().name, str(sql)))
            return original(wrapper, sql, *args, **kwargs)

        monkeypatch.setattr(CursorWrapper, "_execute_with_wrappers", execute)


@pytest.mark.django_db(transaction=True)
async def test_a_broadcast_costs_no_access_query_and_one_hand_read(club_setup, monkeypatch) -> None:
    a, b, c = club_setup.members

    @database_sync_to_async
    def setup() -> tuple[Table, Hand]:
        table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
        services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
        return table, Hand.objects.get(table=table)

    table, hand = await setup()
    watchers = [club_setup.organiser, club_setup.organiser, club_setup.members[0]]
    sockets = [await open_table(table.pk, u) for u in (a, b, c, *watchers)]
    recorder = ServerQueries()
    recorder.install(monkeypatch)
    recorder.recording = True
    await database_sync_to_async(services.hand_apply_action)(hand_id=hand.pk, user=a, action={"type": "in"},
                                                             version=0)
    action_sql = list(recorder.sql)
    recorder.sql.clear()
    for comm in sockets:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.html" and message["version"] == 1:
                break
    await asyncio.sleep(0.2)
    recorder.recording = False
    socket_sql = [sql for _, sql in recorder.sql]
    access = [q for q in socket_sql if "django_session" in q or "accounts_membership" in q]
    assert access == [], access
    hand_reads = [q for q in socket_sql if q.lstrip().startswith("SELECT") and 'FROM "games_hand"' in q
                  and '"games_hand"."id" =' in q]
    assert len(hand_reads) <= 1, hand_reads
    print(f"action: {len(action_sql)} statements; {len(sockets)} sockets after it: {len(socket_sql)} statements "
          f"(access 0, hand reads {len(hand_reads)})")
    for comm in sockets:
        await comm.disconnect()
