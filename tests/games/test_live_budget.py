"""What one action costs the server: the statements of the action's own call, and what the table's
sockets do when the group hears the new version (no access query at all, the hand read at most once
per version in the process)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection, connections
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

NO_MONEY_BUDGET = 5  # statements, BEGIN and COMMIT included
LEDGER_BUDGET = 7
HAND_END_BUDGET = 12  # the last action of a hand: its payouts, the table, the next hand dealt and its antes


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


def dealt(setup: Any) -> tuple[Table, Hand]:
    """A Piranha table (25 ante) of the three members of ``setup``, its first hand dealt from the fixed deck."""
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    return table, Hand.objects.get(table=table)


@pytest.mark.django_db(transaction=True)
def test_an_action_that_moves_no_money_takes_at_most_five_statements(club_setup) -> None:
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
def test_an_action_that_posts_to_the_ledger_takes_at_most_seven_statements(club_setup) -> None:
    table, hand, users = piles_table(club_setup)
    counts = []
    for version, seat in enumerate(PILES_ORDER):
        sql = act(table, hand, users[seat], {"type": "bet" if seat == 2 else "call"}, version)
        counts.append(len(sql))
        assert any("ledger_posting" in q for q in sql), sql
        assert len(sql) <= LEDGER_BUDGET, "\n".join(sql)
    print(f"statements per bet or call: {counts}")


@pytest.mark.django_db(transaction=True)
def test_the_action_that_ends_a_hand_and_deals_the_next_takes_at_most_twelve_statements(club_setup) -> None:
    a, b, c = club_setup.members
    table, hand = dealt(club_setup)
    act(table, hand, a, {"type": "in"}, 0)
    act(table, hand, b, {"type": "in"}, 1)
    sql = act(table, hand, c, {"type": "in"}, 2)  # the drop opens: showdown, payments, the next hand dealt
    assert Hand.objects.get(pk=hand.pk).is_finished and Hand.objects.filter(table=table).count() == 2
    assert sum('INSERT INTO "ledger_journalentry"' in q for q in sql) == 2, sql  # the payments, the next antes
    # A player's own move ended it: whether anybody played is known without reading the hand's log.
    assert not [q for q in sql if q.startswith("SELECT") and 'FROM "games_handaction"' in q], sql
    assert len(sql) <= HAND_END_BUDGET, "\n".join(sql)
    print(f"statements for the hand's last action: {len(sql)}")


@pytest.mark.django_db(transaction=True)
def test_advance_actions_are_read_once_however_many_come_due(club_setup) -> None:
    """Two players checked in advance: the first player's check brings both turns in the same transaction,
    and the pending advance actions are read once for it, not once per step and seat."""
    from games.models import AdvanceAction, HandAction
    from games.services import advance
    from tests.games.async_helpers import awaited, user_at

    table, hand, users = piles_table(club_setup)
    first = user_at(hand, awaited(hand)[0])
    later = [u for u in users.values() if u.pk != first.pk]
    for user in later:
        advance.advance_set(hand_id=hand.pk, user=user, choice="check", version=0)
    sql = act(table, hand, first, {"type": "check"}, 0)
    rows = list(HandAction.objects.filter(hand=hand).order_by("sequence"))
    assert rows[0].user_id == first.pk and {r.user_id for r in rows[1:]} == {u.pk for u in later}
    assert HandAction.objects.filter(hand=hand).count() == 3
    assert set(AdvanceAction.objects.filter(hand=hand).values_list("status", flat=True)) == {"applied"}
    reads = [q for q in sql if q.startswith("SELECT") and "games_advanceaction" in q]
    assert len(reads) <= 2, "\n".join(reads)  # the players' statement finds some pending, then those rows
    print(f"statements for three turns in one action: {len(sql)}, advance reads {len(reads)}")


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
    table, hand = await database_sync_to_async(dealt)(club_setup)
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
                  and ('"games_hand"."id" =' in q or "h.id =" in q)]
    assert len(hand_reads) <= 1, hand_reads
    print(f"action: {len(action_sql)} statements; {len(sockets)} sockets after it: {len(socket_sql)} statements "
          f"(access 0, hand reads {len(hand_reads)})")
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_broadcast_reads_one_snapshot_and_renders_every_socket_without_a_query(club_setup, monkeypatch) -> None:
    """After an action, the sockets of the table in this process read the hand once (one snapshot of
    the new version) and render every member's area from it: no query per socket, whatever the number
    of sockets."""
    from games.selectors import snapshot

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    builds: list[tuple[int, int] | None] = []
    original = snapshot.table_snapshot

    def counted(**kwargs: Any) -> Any:
        found = original(**kwargs)
        builds.append((found.hand.pk, found.hand.version) if found.hand else None)
        return found

    monkeypatch.setattr(snapshot, "table_snapshot", counted)
    sockets = [await open_table(table.pk, u) for u in (a, b, c, club_setup.organiser, a, b)]
    recorder = ServerQueries()
    recorder.install(monkeypatch)
    for version, user in enumerate((a, b), start=1):  # the drop stays open: one version announced each
        builds.clear()
        await database_sync_to_async(services.hand_apply_action)(hand_id=hand.pk, user=user, action={"type": "in"},
                                                                 version=version - 1)
        recorder.sql.clear()
        recorder.recording = True
        for comm in sockets:
            while True:
                message = await comm.receive_json_from(timeout=10)
                if message["type"] == "table.html" and message["version"] >= version:
                    break
        await asyncio.sleep(0.2)
        recorder.recording = False
        assert builds == [(hand.pk, version)], builds
        # What the one snapshot read is all there is: a few statements, not some per socket. While the
        # hand is played, the table row and the last finished hand are not read again (the process's
        # earlier snapshot of the hand has them): only what a step changes.
        reads = [sql for _, sql in recorder.sql]
        assert len(reads) <= 6, "\n".join(reads)
        assert not [q for q in reads if 'FROM "games_table"' in q], "\n".join(reads)
        assert not [q for q in reads if '"games_hand"."finished_at" IS NOT NULL' in q], "\n".join(reads)
        print(f"version {version}: one snapshot, {len(reads)} statements for {len(sockets)} sockets")
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_broadcast_makes_no_trip_through_the_shared_sync_thread(club_setup, monkeypatch) -> None:
    """Channels closes old database connections in its one shared sync thread before every message a
    consumer handles; the table's sockets do their database work elsewhere, so an announced version
    costs no such trip per socket (each would queue behind whatever runs in that thread)."""
    import channels.db

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    sockets = [await open_table(table.pk, u) for u in (a, b, c, club_setup.organiser)]
    trips: list[str] = []
    original = channels.db.close_old_connections

    def counted(**kwargs: Any) -> None:
        trips.append(threading.current_thread().name)
        original(**kwargs)

    monkeypatch.setattr(channels.db, "close_old_connections", counted)
    await database_sync_to_async(services.hand_apply_action)(hand_id=hand.pk, user=a, action={"type": "in"},
                                                             version=0)
    trips.clear()  # the action's own call above ran through database_sync_to_async
    for comm in sockets:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.html" and message["version"] == 1:
                break
    assert trips == []
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_at_a_hands_end_the_table_is_read_once_for_it_and_the_next_hand(club_setup, monkeypatch) -> None:
    """The next hand is dealt in the transaction that ends a hand: the snapshot of the finished hand read
    the table as it is after it, so the new hand's snapshot takes the table and the last hand from it."""
    table, hand, users = await database_sync_to_async(piles_table)(club_setup)
    sockets = [await open_table(table.pk, u) for u in users.values()]

    async def act_and_wait(seat: int, kind: str, version: int) -> None:
        await database_sync_to_async(services.hand_act)(table_id=table.pk, hand_id=hand.pk, user=users[seat],
                                                        action=engine.action_from_dict({"type": kind}),
                                                        version=version)
        for comm in sockets:
            while True:
                message = await comm.receive_json_from(timeout=10)
                if message["type"] == "table.html" and (message["hand"], message["version"]) >= (hand.pk, version + 1):
                    break

    await act_and_wait(2, "bet", 0)
    await act_and_wait(3, "fold", 1)
    recorder = ServerQueries()
    recorder.install(monkeypatch)
    recorder.recording = True
    await database_sync_to_async(services.hand_act)(table_id=table.pk, hand_id=hand.pk, user=users[1],
                                                    action=engine.action_from_dict({"type": "fold"}), version=2)
    for comm in sockets:  # the finished hand, then the next one dealt
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.html" and message["hand"] != hand.pk:
                break
    await asyncio.sleep(0.2)
    recorder.recording = False
    table_reads = [sql for _, sql in recorder.sql if sql.lstrip().startswith("SELECT") and 'FROM "games_table"' in sql
                   and "FOR UPDATE" not in sql]  # the action's own lock of the table row aside
    assert len(table_reads) == 1, table_reads
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_version_announced_again_or_late_is_not_read_or_sent_again(club_setup, monkeypatch) -> None:
    """Announcements can come late (a sealed decision's versions follow each other at once) or twice: a
    version this process has read, or an older one, costs no read, and a screen that shows it already
    is sent nothing."""
    from channels.layers import get_channel_layer

    from games.broadcast import table_group

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    sockets = [await open_table(table.pk, u) for u in (a, b, club_setup.organiser)]
    for version, user in enumerate((a, b), start=1):
        await database_sync_to_async(services.hand_apply_action)(hand_id=hand.pk, user=user, action={"type": "in"},
                                                                 version=version - 1)
        for comm in sockets:
            while True:
                message = await comm.receive_json_from(timeout=10)
                if message["type"] == "table.html" and message["version"] >= version:
                    break
    recorder = ServerQueries()
    recorder.install(monkeypatch)
    recorder.recording = True
    layer = get_channel_layer()
    for version in (2, 1):  # the newest again, then one older
        await layer.group_send(table_group(table.pk), {"type": "hand.version", "table": table.pk, "hand": hand.pk,
                                                       "version": version})
    for comm in sockets:
        assert await comm.receive_nothing(timeout=0.5)
    recorder.recording = False
    assert [sql for _, sql in recorder.sql] == []
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
def test_the_table_area_renders_from_a_snapshot_without_a_query(club_setup) -> None:
    """Every member's and spectator's area, from one snapshot, sends no statement at all."""
    from accounts.access import ClubAccess, membership_of
    from games import live
    from games.selectors import snapshot

    a, b, c = club_setup.members
    table, hand = dealt(club_setup)
    services.hand_apply_action(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    viewers = [User.objects.get(pk=u.pk) for u in (a, b, c, club_setup.organiser)]
    accesses = [ClubAccess(club=table.club, membership=membership_of(user=u, club_id=table.club_id)) for u in viewers]
    held = snapshot.table_snapshot_read(table_id=table.pk, hand_id=hand.pk)
    assert held is not None
    with CaptureQueriesContext(connection) as ctx:
        areas = [live.table_area_html(snapshot=held, user=u, access=acc) for u, acc in zip(viewers, accesses,
                                                                                            strict=True)]
    assert ctx.captured_queries == [], [q["sql"] for q in ctx.captured_queries]
    assert all('id="table-live"' in html for html in areas)
    assert "Your cards" in areas[0] and "Your cards" not in areas[3]


def _checked_out() -> int:
    """Connections of this process's pool handed out and not given back."""
    stats = connection.pool.get_stats()
    return int(stats.get("pool_size", 0)) - int(stats.get("pool_available", 0))


@pytest.mark.django_db(transaction=True)
async def test_sockets_the_server_closed_give_their_pooled_connections_back(club_setup) -> None:
    """Sockets read the database in threads of their own, not in Channels' shared one. Sockets the
    server closed (here: a member's oldest beyond the cap) whose clients never said goodbye, and every
    other socket after a broadcast, leave no pooled connection checked out."""
    from games.live import SOCKETS_PER_MEMBER

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    await database_sync_to_async(connections.close_all)()
    before = await database_sync_to_async(_checked_out)()
    sockets = [await open_table(table.pk, u) for u in [a] * (SOCKETS_PER_MEMBER + 3) + [b, c]]
    closed = []
    for comm in sockets[:3]:
        message = await comm.receive_output(timeout=5)
        assert message["type"] == "websocket.close" and message["code"] == 4408, message
        closed.append(comm)
    for comm in sockets[3:]:  # a socket's own action goes through a thread of its own too
        await comm.send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
        break
    for comm in sockets[3:]:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.html" and message["version"] >= 1:
                break
    await asyncio.sleep(0.3)
    await database_sync_to_async(connections.close_all)()
    after = await database_sync_to_async(_checked_out)()
    assert after <= before, f"{after - before} pooled connections still checked out"
    for comm in sockets[3:]:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
def test_the_public_parts_of_the_area_are_rendered_once_per_snapshot(club_setup, monkeypatch) -> None:
    """The hand's log is the same for every viewer: made once from a snapshot and inserted in every
    member's area; each member's own part (their cards) stays theirs."""
    from accounts.access import ClubAccess, membership_of
    from games import live, presenters
    from games.selectors import snapshot

    a, b, c = club_setup.members
    table, hand = dealt(club_setup)
    services.hand_apply_action(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    viewers = [User.objects.get(pk=u.pk) for u in (a, b, c, club_setup.organiser)]
    accesses = [ClubAccess(club=table.club, membership=membership_of(user=u, club_id=table.club_id)) for u in viewers]
    logs: list[int] = []
    original = presenters.log_with_timeouts

    def counted(**kwargs: Any) -> list[str]:
        logs.append(1)
        return original(**kwargs)

    monkeypatch.setattr(presenters, "log_with_timeouts", counted)
    held = snapshot.table_snapshot_read(table_id=table.pk, hand_id=hand.pk)
    assert held is not None
    areas = [live.table_area_html(snapshot=held, user=u, access=acc) for u, acc in zip(viewers, accesses, strict=True)]
    assert len(logs) == 1
    sections = {html[html.index('<section class="log"'):html.index("</section>", html.index('<section class="log"'))]
                for html in areas}
    assert len(sections) == 1
    assert "Your cards" in areas[0] and "(you)" in areas[0]
    assert "Your cards" not in areas[3] and "(you)" not in areas[3]


def _seat_item(html: str, seat: int) -> str:
    start = html.index(f'data-seat="{seat}"')
    return html[html.rindex("<li", 0, start):html.index("</li>", start)]


def _centre(html: str) -> str:
    start = html.index('<div class="centre">')
    return html[start:html.index('<ul class="ring', start)]


@pytest.mark.django_db(transaction=True)
def test_two_members_areas_share_the_public_render_and_differ_only_in_their_own_parts(club_setup) -> None:
    """From one snapshot: the board, pot and every seat but the viewer's own are made once and inserted
    alike in each member's area; a member's own seat (their sealed choice, "(you)"), cards and buttons
    stay theirs."""
    from accounts.access import ClubAccess, membership_of
    from games import live
    from games.selectors import snapshot

    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    hand = Hand.objects.get(table=table)
    services.hand_apply_action(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)  # A's sealed choice
    viewers = [User.objects.get(pk=u.pk) for u in (a, b)]
    accesses = [ClubAccess(club=table.club, membership=membership_of(user=u, club_id=table.club_id)) for u in viewers]
    held = snapshot.table_snapshot_read(table_id=table.pk, hand_id=hand.pk)
    assert held is not None
    area_a, area_b = (live.table_area_html(snapshot=held, user=u, access=acc)
                      for u, acc in zip(viewers, accesses, strict=True))
    parts = {k[1:3] for k in held.derived if isinstance(k, tuple) and k and k[0] == "public_part"}
    seats = {k[1] for k in held.lasting if isinstance(k, tuple) and k and k[0] == "lasting_text"}
    assert ("centre", None) in parts and {("seat", 1), ("seat", 2), ("seat", 3)} <= seats
    # Made once: C's seat is the same text in both areas, and so are the board and the pot.
    assert _seat_item(area_a, 3) == _seat_item(area_b, 3)
    assert "decided" in _seat_item(area_a, 3) or "waiting" in _seat_item(area_a, 3)
    assert _centre(area_a) == _centre(area_b)
    # A's own seat: A sees their choice, B only that A decided; likewise B's seat.
    assert "you chose in" in _seat_item(area_a, 1) and "(you)" in _seat_item(area_a, 1)
    assert "you chose" not in _seat_item(area_b, 1) and "decided" in _seat_item(area_b, 1)
    assert "(you)" not in _seat_item(area_b, 1)
    assert "(you)" in _seat_item(area_b, 2) and "(you)" not in _seat_item(area_a, 2)
    assert "Your cards" in area_a and "Your cards" in area_b
    assert 'value="in"' not in area_a and 'value="in"' in area_b  # only B still decides


@pytest.mark.django_db(transaction=True)
async def test_the_sockets_database_work_runs_in_their_own_few_threads(club_setup, monkeypatch) -> None:
    """An action sent over a socket and each version's snapshot run in the sockets' pool, and however many
    calls come at once, no more threads than its few take them (more only wait for the interpreter's lock)."""
    import time

    from games import consumers

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    sockets = [await open_table(table.pk, u) for u in (a, b, c)]
    threads: list[str] = []
    for name in ("hand_act", "table_snapshot_read"):
        original = getattr(consumers, name)

        def recorded(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            threads.append(threading.current_thread().name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(consumers, name, recorded)
    await sockets[0].send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
    for comm in sockets:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.html" and message["version"] == 1:
                break
    assert len(threads) >= 2 and all(name.startswith("socket-db") for name in threads), threads

    def busy() -> str:
        time.sleep(0.05)
        return threading.current_thread().name

    at_once = await asyncio.gather(*[consumers._db_free(busy)() for _ in range(3 * consumers.SOCKET_DB_THREADS)])
    assert len(set(at_once)) <= consumers.SOCKET_DB_THREADS
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_action_over_a_socket_takes_one_trip_to_the_pool(club_setup, monkeypatch) -> None:
    """The member's access stamp is read in the same worker-thread call that applies the action, not in
    a call of its own before it; the version's broadcast reads the stamps once more in the process."""
    from games import consumers

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    comm = await open_table(table.pk, a)
    trips: list[str] = []
    original = consumers._db_free

    def counted(func: Any) -> Any:
        trips.append(getattr(func, "__name__", repr(func)))
        return original(func)

    monkeypatch.setattr(consumers, "_db_free", counted)
    await comm.send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
    ok = shown = False
    while not (ok and shown):
        message = await comm.receive_json_from(timeout=10)
        ok = ok or message["type"] == "action.ok"
        shown = shown or (message["type"] == "table.html" and message["version"] == 1)
    assert trips.count("_act_if_allowed") == 1 and "hand_act" not in trips, trips
    assert trips.count("access_stamps") <= 1, trips  # the broadcast's, once for the process
    await comm.disconnect()
