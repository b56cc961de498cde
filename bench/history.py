"""What one action costs as a club's history grows: the same table timed at checkpoints of hands played.

    nice .venv/bin/python bench/history.py                          # 6 tables; 0, 15, 50, 150 hands each (5 min)
    nice .venv/bin/python bench/history.py --without-sitting-index  # the same without ledger_posting_sitting
    nice .venv/bin/python bench/history.py --checkpoints 0,100,300 --tables 4 --plan

Uses a database ``bench_history`` on the embedded PostgreSQL (made afresh, dropped at the end). A club of six
members a table plays ``--tables`` tables (Piranha with its betting round and Piles, in turn, as bench/load.py's
club does) through the real services, every member seated all along; each member to act takes one of the
engine's legal actions at random (seeded), and a finished game is dealt again as a player's "Deal a new game"
does. Between checkpoints every table plays on; at each checkpoint the first table plays ``--actions`` actions
more, timed, and for each of them:

- the action's own call (``hand_act``), CPU of this thread;
- the publisher's read (``table_snapshot_of``, games/selectors/snapshot.py) and its renders
  (``publish.version_frames``), CPU of this thread;
- every statement of the action and the read, wall time (PostgreSQL's work is in its own process), grouped by
  statement;
- then a socket's full render (games/live/sync.py ``everything``, on connect and ``sync``): CPU, and the wall
  time of its statements;
- the seats statement's plan, ``EXPLAIN (ANALYZE, BUFFERS)``: the pages it touched and the postings it read,
  and the plan this connection's prepared copy of it runs.

The statistics are left to autovacuum, as on the site: the prepared statement's plan is the one PostgreSQL
keeps then. Each checkpoint is printed against the first. Frames are rendered but not sent, and no alarm is
set (the on-commit work is replaced). Not a timed test: the wall times move with the machine's other work;
the buffers and rows of the plans do not.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_history"
SEATS = 6


def setup_tables(count: int) -> list[Any]:
    """``count`` tables of six seated members each, every one dealt its first hand (as bench/stack.py's club:
    Piranha with its betting round and Piles in turn, a credit limit nobody reaches)."""
    from django.core.management import call_command

    import engine
    from accounts.models import Club, Membership, User
    from games import services

    call_command("migrate", verbosity=0)
    users = [User.objects.create(username=f"hist{i}", email=f"hist{i}@example.org") for i in range(count * SEATS)]
    club = Club.objects.create(name="History club", currency="USD", credit_limit=10**12)
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="organiser" if i == 0 else "member")
    rule_sets = [
        services.rule_set_create(
            club=club, user=users[0], name=name, rules=rules, max_seats=SEATS, spectators_allowed=True
        )
        for name, rules in (
            ("Piranha", engine.PiranhaRules(ante=25, match_cap=100, betting_round=True, turn_seconds=3600)),
            ("Piles", engine.PilesRules(turn_seconds=3600)),
        )
    ]
    tables = []
    for t in range(count):
        version = rule_sets[t % 2].versions.order_by("-number").first()
        assert version is not None
        table = services.table_create(club=club, user=users[0], name=f"T{t}", rule_version_id=version.pk)
        for s in range(SEATS):
            services.seat_take(table_id=table.pk, user=users[t * SEATS + s], number=s + 1, version_id=version.pk)
        services.table_start(table_id=table.pk, user=users[t * SEATS])
        tables.append(table)
    return tables


class Player:
    """Plays one table: each call makes one member's action (or deals a new game when one is over)."""

    def __init__(self, table: Any, rng: random.Random) -> None:
        from accounts.models import User

        self.table_id = table.pk
        self.rng = rng
        self.users = {u.pk: u for u in User.objects.filter(seats__table_id=table.pk, seats__left_at__isnull=True)}
        self.hands_done = 0
        self.hand: Any = None
        self._load()

    def _load(self) -> None:
        from games.models import Hand

        self.hand = Hand.objects.filter(table_id=self.table_id).order_by("-pk").first()

    def step(self, timed: Callable[[Callable[[], Any]], Any] | None = None) -> None:
        import engine
        from games import services
        from games.models import Table
        from games.selectors.states import hand_state

        run = timed or (lambda call: call())
        hand = self.hand
        if hand is None or hand.is_finished:
            if Table.objects.filter(pk=self.table_id, status=Table.Status.FINISHED).exists():
                services.table_new_game(table_id=self.table_id, user=next(iter(self.users.values())))
            self._load()
            return
        state = hand_state(hand)
        seat = self.rng.choice(engine.to_act(state))
        action = self.rng.choice(engine.legal_actions(state, seat))
        user = self.users[int(hand.players[str(seat)])]
        run(
            lambda: services.hand_act(
                table_id=self.table_id, hand_id=hand.pk, user=user, action=action, version=hand.version
            )
        )
        before = hand.pk
        self._load()
        if self.hand is None or self.hand.pk != before or self.hand.is_finished:
            self.hands_done += 1


class Statements:
    """Wall time of each statement run inside it, by statement (values and literals taken out)."""

    def __init__(self) -> None:
        self.by: dict[str, list[float]] = defaultdict(list)

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.by[_shape(sql)].append(time.perf_counter() - started)


def _shape(sql: str) -> str:
    """A statement's kind and its first table, short enough for a line."""
    sql = " ".join(sql.split())
    verb = sql.split(" ", 1)[0].upper()
    tables = re.findall(r'(?:FROM|INTO|UPDATE|JOIN)\s+"?(\w+)"?', sql, re.I)
    extra = " +money" if "ledger_posting p" in sql else ""
    return f"{verb} {' '.join(dict.fromkeys(tables))[:60]}{extra}"


def seats_plan(table_id: int, club_id: int) -> tuple[float, int, int, int]:
    """The seats statement's execution ms, the buffers it touched, the postings rows its money read and the
    heap pages an index-only scan of them still visited (postings too new for the visibility map)."""
    import json

    from django.db import connection

    from games.selectors import snapshot

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + snapshot._SEATS_SQL, [table_id, club_id, table_id])
        found = cursor.fetchone()[0]
        plan = (json.loads(found) if isinstance(found, str) else found)[0]
    postings = fetches = 0

    def walk(node: dict[str, Any]) -> None:
        nonlocal postings, fetches
        fetches += int(node.get("Heap Fetches", 0))  # over all loops (rows are a loop's)
        if node.get("Relation Name") == "ledger_posting":  # rows returned and dropped, a loop's
            looked = int(node.get("Actual Rows", 0)) + int(node.get("Rows Removed by Filter", 0))
            postings += looked * int(node.get("Actual Loops", 1))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    top = plan["Plan"]
    buffers = int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))
    return float(plan["Execution Time"]), buffers, postings, fetches


def seats_prepared(table_id: int, club_id: int) -> str:
    """How this connection's prepared seats statement is planned (the site binds on the server and psycopg prepares
    a statement run five times; PostgreSQL may then keep a generic plan): its generic and custom plans so far, and
    the ms and postings read of the plan it runs now."""
    import json

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%games_seat%ledger_posting p%"],
        )
        found = cursor.fetchone()
        if found is None:
            return "not prepared"
        name, generic, custom = found
        cursor.execute(
            # The seats statement with the last hand's key (games/selectors/snapshot.py): 0, no hand asked for.
            f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE {name}({int(table_id)}, {int(club_id)}, {int(table_id)}, "
            f"{int(table_id)}, 0)"
        )
        out = cursor.fetchone()[0]
    plan = (json.loads(out) if isinstance(out, str) else out)[0]
    nodes = []

    def walk(node: dict[str, Any]) -> None:
        if node.get("Relation Name") == "ledger_posting":
            nodes.append(f"{node['Node Type']} {node.get('Index Name', '')}".strip())
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    return f"{generic} generic / {custom} custom plans; runs {plan['Execution Time']:.3f} ms by {', '.join(nodes)}"


def generic_scans(rows_over: int = 1000) -> list[str]:
    """Every statement this connection has prepared whose generic plan, made now (``EXPLAIN (GENERIC_PLAN)``),
    scans a whole table of more than ``rows_over`` rows: a cost that grows with the books if PostgreSQL keeps it."""
    import json

    from django.db import connection

    found = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE statement NOT LIKE 'EXPLAIN%%'")
        statements = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT relname, n_live_tup FROM pg_stat_user_tables")
        sizes = dict(cursor.fetchall())
        for statement in statements:
            # Unprepared, by the simple protocol: the statement's $1... stay unbound.
            out = connection.connection.execute(f"EXPLAIN (GENERIC_PLAN, FORMAT JSON) {statement}", prepare=False)
            out = out.fetchone()[0]
            plan = (json.loads(out) if isinstance(out, str) else out)[0]["Plan"]
            stack = [plan]
            while stack:
                node = stack.pop()
                relation = node.get("Relation Name", "")
                if node["Node Type"] == "Seq Scan" and sizes.get(relation, 0) > rows_over:
                    found.append(f"{_shape(statement)}: Seq Scan on {relation} ({sizes[relation]} rows)")
                stack += node.get("Plans", [])
    return found


def seats_plan_text(table_id: int, club_id: int) -> str:
    from django.db import connection

    from games.selectors import snapshot

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + snapshot._SEATS_SQL, [table_id, club_id, table_id])
        return "\n".join(row[0] for row in cursor.fetchall())


def checkpoint(player: Player, club_id: int, actions: int) -> dict[str, Any]:
    """``actions`` timed actions at the player's table, each followed by the publisher's read."""
    from django.db import connection

    from games.live import publish
    from games.live.sync import everything
    from games.models import Table
    from games.selectors.snapshot import table_snapshot_of
    from games.selectors.states import hand_state
    from games.services import after_commit

    touched: list[Any] = []
    after_commit.versions_publish = lambda now, club_id, known=None: touched.extend(  # type: ignore[assignment]
        publish.versions_carried(now, known)
    )
    act: list[float] = []
    read: list[float] = []
    renders: list[float] = []
    statements = Statements()

    def timed(call: Callable[[], Any]) -> None:
        with connection.execute_wrapper(statements):  # the action's statements, not the bench's own
            started = time.thread_time()
            call()
            act.append(time.thread_time() - started)

    while len(act) < actions:
        touched.clear()
        player.step(timed)
        if not touched:
            continue
        with connection.execute_wrapper(statements):
            spent = [0.0, 0.0]
            for i, (done, after, carried) in enumerate(touched):
                started = time.thread_time()
                found = table_snapshot_of(hand=done, state=hand_state(done), carried=carried)
                spent[0] += time.thread_time() - started
                started = time.thread_time()
                publish.version_frames(found, after, club_id, public_only=i + 1 < len(touched))
                spent[1] += time.thread_time() - started
            read.append(spent[0])
            renders.append(spent[1])
    sync = []
    table = Table.objects.select_related("club").get(pk=player.table_id)
    member = next(iter(player.users.values()))
    sync_statements = Statements()
    for _ in range(5):
        with connection.execute_wrapper(sync_statements):
            started = time.thread_time()
            everything(table, member, chat=True)
            sync.append(time.thread_time() - started)
    after_commit.versions_publish = lambda *args, **kwargs: None  # type: ignore[assignment]
    ms, buffers, postings, fetches = seats_plan(player.table_id, club_id)
    count = actions or 1
    return {
        "action": statistics.mean(act) * 1000,
        "read": statistics.mean(read) * 1000 if read else 0.0,
        "renders": statistics.mean(renders) * 1000 if renders else 0.0,
        "sync": statistics.median(sync) * 1000,
        "sync_db": sum(sum(v) for v in sync_statements.by.values()) * 1000 / 5,
        "statements": {k: (sum(v) * 1000 / count, len(v) / count) for k, v in statements.by.items()},
        "seats_ms": ms,
        "seats_buffers": buffers,
        "seats_postings": postings,
        "seats_heap_fetches": fetches,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="tables the club plays at (the first is timed)")
    parser.add_argument("--checkpoints", default="0,15,50,150", help="hands a table has played at each checkpoint")
    parser.add_argument("--actions", type=int, default=60, help="actions timed at each checkpoint")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plan", action="store_true", help="print the seats statement's plan at each checkpoint")
    parser.add_argument(
        "--without-sitting-index", action="store_true", help="drop ledger_posting_sitting first (as before it)"
    )
    args = parser.parse_args()
    marks = [int(x) for x in args.checkpoints.split(",")]
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from games.services import after_commit

    after_commit.versions_publish = lambda *a, **k: None  # type: ignore[assignment]
    after_commit._schedule = lambda alarms: None  # type: ignore[assignment] - no alarm messages
    try:
        rng = random.Random(args.seed)
        tables = setup_tables(args.tables)
        if args.without_sitting_index:
            with connection.cursor() as cursor:
                cursor.execute("DROP INDEX ledger_posting_sitting")
        club_id = tables[0].club_id
        players = [Player(t, rng) for t in tables]
        rows: list[tuple[int, int, dict[str, Any]]] = []
        started = time.monotonic()
        for mark in marks:
            while min(p.hands_done for p in players) < mark:
                for p in players:
                    if p.hands_done < mark:
                        p.step()
            with connection.cursor() as cursor:
                # No ANALYZE of its own: the statistics, and so the prepared statements' plans, are as
                # autovacuum leaves them, as on the site.
                cursor.execute(
                    "SELECT n_live_tup, extract(epoch FROM now() - last_autoanalyze) FROM pg_stat_user_tables "
                    "WHERE relname = 'ledger_posting'"
                )
                postings, analyzed = cursor.fetchone()
                # The hand row is rewritten with each version: its table's size and dead rows (bloat).
                cursor.execute(
                    "SELECT relname, pg_total_relation_size(relid), n_live_tup, n_dead_tup FROM pg_stat_user_tables "
                    "WHERE relname IN ('games_hand', 'games_handaction', 'ledger_posting') ORDER BY relname"
                )
                sizes = "; ".join(f"{n} {b // 1024} KiB, {live} live, {dead} dead" for n, b, live, dead in cursor)
            found = checkpoint(players[0], club_id, args.actions)
            rows.append((mark, postings, found))
            print(
                f"{mark:>6} hands a table ({postings} postings in the club, analyzed "
                f"{'never' if analyzed is None else f'{analyzed:.0f} s ago'}, {time.monotonic() - started:.0f} s): "
                f"action {found['action']:.2f} ms, read {found['read']:.2f} ms, renders {found['renders']:.2f} ms, "
                f"a socket's full render {found['sync']:.2f} ms CPU; seats statement "
                f"{found['seats_ms']:.3f} ms, {found['seats_buffers']} buffers, {found['seats_postings']} postings read",
                flush=True,
            )
            print(f"       {sizes}")
            print(f"       the site's prepared seats statement: {seats_prepared(players[0].table_id, club_id)}")
            for scan in generic_scans():
                print(f"       a generic plan made now scans a whole table: {scan}")
            if args.plan:
                print(seats_plan_text(players[0].table_id, club_id))
        first = rows[0][2]
        print("\nPer action, wall ms of each statement (and how many a action) at each checkpoint, first -> each:")
        shapes = sorted(first["statements"], key=lambda k: -first["statements"][k][0])
        later = [s for _, _, r in rows for s in r["statements"] if s not in first["statements"]]
        for shape in shapes + list(dict.fromkeys(later)):
            cells = [f"{r['statements'].get(shape, (0.0, 0.0))[0]:7.3f}" for _, _, r in rows]
            print(f"  {shape[:70]:<70} x{first['statements'].get(shape, (0, 0))[1]:4.2f} " + " ".join(cells))
        print("\ncheckpoint (hands)  " + " ".join(f"{m:>7}" for m, _, _ in rows))
        for key in (
            "action",
            "read",
            "renders",
            "sync",
            "sync_db",
            "seats_ms",
            "seats_buffers",
            "seats_postings",
            "seats_heap_fetches",
        ):
            print(f"  {key:<17} " + " ".join(f"{r[key]:7.2f}" for _, _, r in rows))
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
