"""What one action costs the server: the statements of the action's own call; then, per version, one
public frame rendered for the table and private frames only for the members whose own part changed, in
the process that committed it (games/live/publish.py); and per socket nothing: no statement, no render,
no encoding (docs/live.md)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection, connections
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

import engine
from accounts.models import User
from games import services
from games.models import Hand, Table
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_consumers import close_worker_thread_connections, open_table  # noqa: F401
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ORDER as PILES_ORDER
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

NO_MONEY_BUDGET = 5  # statements, BEGIN and COMMIT included
LEDGER_BUDGET = 7
PUBLISHER_BUDGET = 3  # statements a version's frames read beside what the action carried to them
HAND_END_BUDGET = 15  # the last action of a hand: its payouts, the table, the next hand dealt and its antes,
# and the cut (games/services/cuts.py): the deck ahead closed, its cuts read, the deck two deals ahead committed


def piles_table(setup: Any) -> tuple[Table, Hand, dict[int, User]]:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PilesRules(), players=[a, b, c])
    services.table_start(table_id=table.pk, user=b, deck=fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1))
    return table, Hand.objects.get(table=table), {1: a, 2: b, 3: c}


def act(table: Table, hand: Hand, user: User, action: dict[str, Any], version: int) -> list[str]:
    """One action through the service the form and the socket call; the statements it sent."""
    with CaptureQueriesContext(connection) as ctx:
        services.hand_act(
            table_id=table.pk, hand_id=hand.pk, user=user, action=engine.action_from_dict(action), version=version
        )
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
    assert sum('INSERT INTO "ledger_journalentry"' in q for q in sql) == 1, sql  # the payments with the next antes
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


def _wait_public(version: int) -> Any:
    async def wait(comm: Any) -> dict[str, Any]:
        while True:
            message = await comm.receive_json_from(timeout=10)
            if message["type"] == "table.public" and message["version"] is not None and message["version"] >= version:
                return message

    return wait


PUBLISHER = "publish"  # the publisher thread's name prefix (games/live/publish.py)


@pytest.mark.django_db(transaction=True)
async def test_a_version_costs_one_public_render_the_changed_members_private_ones_and_nothing_per_socket(
    club_setup, monkeypatch
) -> None:
    """Seven sockets (three players, a player's second page, three spectators' pages) at a Piranha drop:
    each decision is one version. Its public frame is rendered once, a private frame only for the member
    who decided (the others' own parts did not change), and no socket sends a statement or renders."""
    from games.live import render
    from games.live.publish import announce_flush

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    watcher = club_setup.organiser
    sockets = [await open_table(table.pk, u) for u in (a, b, c, a, watcher, watcher, watcher)]
    recorder = ServerQueries()
    recorder.install(monkeypatch)
    for version, user in enumerate((a, b), start=1):  # the drop stays open: one version each
        await database_sync_to_async(announce_flush)()
        render.renders.clear()
        recorder.sql.clear()
        recorder.recording = True
        await database_sync_to_async(services.hand_act)(
            hand_id=hand.pk, user=user, action={"type": "in"}, version=version - 1
        )
        frames = [await _wait_public(version)(comm) for comm in sockets]
        await asyncio.sleep(0.2)
        recorder.recording = False
        assert len({json.dumps(f, sort_keys=True) for f in frames}) == 1  # the same frame on every screen
        assert render.renders == {"public": 1, "private": 1}, render.renders
        by_thread: dict[str, int] = {}
        for thread, _sql in recorder.sql:
            by_thread[thread] = by_thread.get(thread, 0) + 1
        publisher = sum(n for thread, n in by_thread.items() if thread.startswith(PUBLISHER))
        sockets_sql = {
            t: n
            for t, n in by_thread.items()
            if not t.startswith(PUBLISHER)
            and t != threading.main_thread().name
            and not t.startswith("ThreadPoolExecutor")
        }
        assert sockets_sql == {}, sockets_sql
        # The table and its club came with the hand from the action's transaction, the log's timeout marks with the
        # hand row, and that the hand has no advance action with the players' statement: the publisher reads only
        # what the action did not have (the seats, the last hand, the seats' money).
        published = [sql for t, sql in recorder.sql if t.startswith(PUBLISHER)]
        assert publisher <= PUBLISHER_BUDGET, published
        assert not [sql for sql in published if "games_handaction" in sql or "games_advanceaction" in sql], published
        print(
            f"version {version}: 1 public render, {render.renders['private']} private, {publisher} statements "
            f"in the publisher, 0 for {len(sockets)} sockets"
        )
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
def test_private_renders_follow_who_acted_and_who_is_awaited(club_setup) -> None:
    """A Piles hand played to its end: a check renders the private frames of the one who checked and the
    one now awaited (two), a new stage or bet everyone's, the last action (the next hand dealt) the new
    hand's; the mean per action is printed."""
    from games.live import render
    from games.live.publish import announce_flush

    table, hand, users = piles_table(club_setup)
    announce_flush()
    script: list[tuple[int, str]] = []
    for stage in range(1, 10):
        for seat in PILES_ORDER:
            script.append((seat, ("bet" if seat == 2 else "call") if stage == 1 else "check"))
    script += [(1, "declare:pig"), (2, "declare:high"), (3, "declare:low")]
    privates = []
    for version, (seat, action) in enumerate(script):
        render.renders.clear()
        kind, _, choice = action.partition(":")
        act(table, hand, users[seat], {"type": kind, **({"choice": choice} if choice else {})}, version)
        announce_flush()
        ends = version == len(script) - 1  # the hand ends and the next is dealt: a public frame of each
        assert render.renders["public"] == (2 if ends else 1), (version, render.renders)
        privates.append(render.renders["private"])
    checks_within_a_stage = [
        n for (seat, action), n in zip(script, privates, strict=True) if action == "check" and seat != PILES_ORDER[-1]
    ]
    assert checks_within_a_stage and max(checks_within_a_stage) <= 2, privates
    print(f"private renders per action: {privates}; mean {sum(privates) / len(privates):.2f} at three seats")


@pytest.mark.django_db(transaction=True)
async def test_a_broadcast_makes_no_trip_through_the_shared_sync_thread(club_setup, monkeypatch) -> None:
    """Channels closes old database connections in its one shared sync thread before every message a
    consumer handles; the table's sockets forward frames with no database work, so a version costs no such
    trip per socket (each would queue behind whatever runs in that thread)."""
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
    await database_sync_to_async(services.hand_act)(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    trips.clear()  # the action's own call above ran through database_sync_to_async
    for comm in sockets:
        await _wait_public(1)(comm)
    assert trips == []
    for comm in sockets:
        await comm.disconnect()


def _checked_out() -> int:
    """Connections of this process's pool handed out and not given back."""
    stats = connection.pool.get_stats()
    return int(stats.get("pool_size", 0)) - int(stats.get("pool_available", 0))


@pytest.mark.django_db(transaction=True)
async def test_sockets_the_server_closed_give_their_pooled_connections_back(club_setup) -> None:
    """Sockets read the database in threads of their own, not in Channels' shared one, and so does the
    publisher. Sockets the server closed (here: a member's oldest beyond the cap) whose clients never said
    goodbye, and every other socket after a version, leave no pooled connection checked out."""
    from games.live.access import SOCKETS_PER_MEMBER
    from games.live.publish import announce_flush

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    await database_sync_to_async(connections.close_all)()
    before = await database_sync_to_async(_checked_out)()
    sockets = [await open_table(table.pk, u) for u in [a] * (SOCKETS_PER_MEMBER + 3) + [b, c]]
    for comm in sockets[:3]:
        message = await comm.receive_output(timeout=5)
        assert message["type"] == "websocket.close" and message["code"] == 4408, message
    await sockets[3].send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
    for comm in sockets[3:]:
        await _wait_public(1)(comm)
    await database_sync_to_async(announce_flush)()
    await asyncio.sleep(0.3)
    await database_sync_to_async(connections.close_all)()
    after = await database_sync_to_async(_checked_out)()
    assert after <= before, f"{after - before} pooled connections still checked out"
    for comm in sockets[3:]:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_sockets_database_work_runs_in_their_own_few_threads(club_setup, monkeypatch) -> None:
    """An action sent over a socket and a sync run in the sockets' pool, and however many calls come at
    once, no more threads than its few take them (more only wait for the interpreter's lock)."""
    import time

    from games.live import consumer, sync

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    sockets = [await open_table(table.pk, u) for u in (a, b, c)]
    threads: list[str] = []
    for module, name in ((consumer, "hand_act"), (sync, "table_snapshot_read")):
        original = getattr(module, name)

        def recorded(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            threads.append(threading.current_thread().name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, recorded)
    await sockets[0].send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
    for comm in sockets:
        await _wait_public(1)(comm)
    await sockets[1].send_json_to({"type": "sync"})
    await _wait_public(1)(sockets[1])
    assert len(threads) == 2 and all(name.startswith("socket-db") for name in threads), threads

    def busy() -> str:
        time.sleep(0.05)
        return threading.current_thread().name

    at_once = await asyncio.gather(*[consumer._db(busy)() for _ in range(3 * consumer.SOCKET_DB_THREADS)])
    assert len(set(at_once)) <= consumer.SOCKET_DB_THREADS
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_action_over_a_socket_takes_one_trip_to_the_pool(club_setup, monkeypatch) -> None:
    """The member's access stamp is read in the same worker-thread call that applies the action, not in
    a call of its own before it; the version's frames carry the stamps the publisher read, so the player's
    socket reads none to forward them."""
    from games.live import consumer

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    comm = await open_table(table.pk, a)
    trips: list[str] = []
    original = consumer._db

    def counted(func: Any) -> Any:
        trips.append(getattr(func, "__name__", repr(func)))
        return original(func)

    monkeypatch.setattr(consumer, "_db", counted)
    await comm.send_json_to({"type": "action", "hand": hand.pk, "version": 0, "action": "in"})
    ok = shown = False
    while not (ok and shown):
        message = await comm.receive_json_from(timeout=10)
        ok = ok or message["type"] == "action.ok"
        shown = shown or (message["type"] == "table.public" and message["version"] == 1)
    assert trips.count("_act_if_allowed") == 1 and "hand_act" not in trips, trips
    assert not {"access_stamps", "access_stamp_read"} & set(trips), trips
    await comm.disconnect()


def _live_counts() -> dict[Any, float]:
    """The site's /metrics as the bench reads them."""
    from tests.operations.test_metrics import scrape

    return scrape()


@pytest.mark.django_db(transaction=True)
async def test_the_live_counters_the_bench_reads_move_as_the_work_is_done(club_setup) -> None:
    """One action with four sockets open: one version published, one public render, one private render (the
    one who decided), nothing rendered and no statement by any socket. A member whose access stamp moved has
    their sockets re-check it against the database at the next group message: those statements count. A
    ``sync`` is a socket's own full render, counted apart."""
    from bench.counters import difference
    from games.live.access import access_bump
    from games.live.publish import announce_flush

    a, b, c = club_setup.members
    table, hand = await database_sync_to_async(dealt)(club_setup)
    sockets = [await open_table(table.pk, u) for u in (a, b, c, club_setup.organiser)]

    async def counted_around(user: User, version: int) -> tuple[dict[str, float | None], dict[Any, float]]:
        await database_sync_to_async(announce_flush)()
        before = await database_sync_to_async(_live_counts)()
        await database_sync_to_async(services.hand_act)(
            hand_id=hand.pk, user=user, action={"type": "in"}, version=version - 1
        )
        for comm in sockets:
            await _wait_public(version)(comm)
        await asyncio.sleep(0.2)
        after = await database_sync_to_async(_live_counts)()
        return difference(before, after), after

    counts, after = await counted_around(a, 1)
    assert counts == {
        "versions": 1,
        "public renders": 1,
        "private renders": 1,
        "socket renders": 0,
        "socket statements": 0,
        "applied": 1,
    }, counts

    await database_sync_to_async(access_bump)(c.pk)  # c's password changed, say
    counts, after = await counted_around(b, 2)
    assert counts["socket statements"] and counts["socket statements"] > 0, counts  # c's socket checked again
    assert counts["socket renders"] == 0 and counts["public renders"] == 1, counts

    await sockets[0].send_json_to({"type": "sync"})
    await _wait_public(2)(sockets[0])
    synced = await database_sync_to_async(_live_counts)()
    sync_renders = ("club_live_renders_total", (("kind", "sync"),))
    assert synced[sync_renders] - after[sync_renders] == 2  # a's private frame and the public one
    assert difference(after, synced)["public renders"] == 0
    for comm in sockets:
        await comm.disconnect()


@pytest.mark.django_db
def test_a_render_made_while_a_socket_handles_a_group_message_counts_as_the_sockets(club_setup) -> None:
    """The forwarding path renders nothing; were it ever to, the counter the bench reads would say so."""
    from games.live import render
    from games.selectors.snapshot import table_snapshot_read
    from kernel import metrics

    table, _hand = dealt(club_setup)
    snapshot = table_snapshot_read(table_id=table.pk)
    assert snapshot is not None
    render.renders.clear()
    with metrics.socket_work(metrics.SOCKET_FORWARDING):
        render.public_frame(snapshot)
    render.public_frame(snapshot)
    assert render.renders == {"socket": 1, "public": 1}


@pytest.mark.django_db(transaction=True)
def test_a_publisher_keeps_its_connection_only_while_versions_wait_for_it() -> None:
    """Versions queued for a publisher read on the connection the one before used; the connection goes back to
    the pool when no job waits for the thread, and after a job that failed, so an idle process holds none."""
    import time

    from games.live import publish

    connections.close_all()
    before = _checked_out()
    gate = threading.Event()
    used: list[int] = []

    def read() -> None:
        gate.wait(5)  # the jobs behind this one are queued before it ends
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            used.append(cursor.fetchone()[0])

    def broken() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        raise RuntimeError("a failed render")

    def given_back(reads: int) -> bool:
        """Whether the publisher made ``reads`` reads and then gave its connection back (waiting up to 5 s)."""
        deadline = time.monotonic() + 5
        while (len(used) < reads or _checked_out() > before) and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(used) == reads and _checked_out() <= before

    def taken() -> int:
        return int(connection.pool.get_stats().get("requests_num", 0))

    table_id = 7_000_003
    asked = taken()
    for job in (read, read, read, broken):
        publish._in_publisher(table_id, job, "a test read")
    gate.set()
    assert given_back(3), "the idle publisher still holds a pooled connection"
    assert taken() - asked == 1, taken() - asked  # one connection for the queued versions
    for job in (read, broken, read):
        publish._in_publisher(table_id, job, "a test read")
    assert given_back(5), "the idle publisher still holds a pooled connection"
