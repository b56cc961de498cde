"""The database side of an action and of the publisher's read, statement by statement, in one process.

    nice .venv/bin/python bench/db_statements.py                 # 300 actions a game, then the comparisons
    nice .venv/bin/python bench/db_statements.py --actions 100 --rounds 5
    nice .venv/bin/python bench/db_statements.py --page-costs 3000  # the seats statement's plans at 4 and 1.1

Uses a database ``bench_db_statements`` on the embedded PostgreSQL (made afresh, dropped at the end). A club
of six members plays a Piranha table (with its betting round, as bench/load.py plays it) and a Piles table
through the real services, as bench/live_parts.py does; the publisher's read (``table_snapshot_of``) follows
each action. For every statement it prints, per action: how many, the CPU of this thread while it ran
(psycopg: sending, waiting on nothing, reading the reply; not the models built from its rows afterwards)
and PostgreSQL's CPU (the time its backend ran on a CPU, /proc/PID/schedstat, in ns). A statement is named by its
first words and the tables it writes (the step's with a chip event's entry: "[games_hand, ..., ledger_posting]"). Then, with the hand of each table as the last action left
it, each statement this bench holds in two forms (before and now) runs in turn, ``--rounds`` rounds of
``--runs`` runs each, alternated so that drift in the machine's speed falls on both: this thread's CPU with
the rows built into models, PostgreSQL's CPU, and how PostgreSQL planned each (the connection's prepared
copy: generic plans kept, custom plans made). Not a timed test: the machine is shared.

``--page-costs N`` instead plays nothing: two members sit at a table after N bets each at another table
(and N/3 at this one before they sat), written straight into the books, and it prints how the seats statement
reads their postings (its scans of ``ledger_posting``, the rows they looked at, its time) with
``random_page_cost`` at PostgreSQL's default of 4 and at 1.1, planned for the values and generically, with
the sitting index and without it.
"""

from __future__ import annotations

import argparse
import json
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
from bench.load import choose  # noqa: E402 - the bots' choice: the benches play alike

DB_NAME = "bench_db_statements"

# The players' statement as it was: the ids given as an array (on a small database, or at a page cost of 4,
# planned afresh at every run).
PLAYERS_BEFORE = (
    'SELECT {users}, EXISTS (SELECT 1 FROM "accounts_membership" m '
    'WHERE m.club_id = %s AND m.user_id = u.id) OR EXISTS (SELECT 1 FROM "games_computerplayer" c '
    'WHERE c.user_id = u.id), EXISTS (SELECT 1 FROM "games_advanceaction" a '
    'WHERE a.hand_id = %s AND a.status = %s), EXISTS (SELECT 1 FROM "games_advanceaction" a WHERE a.hand_id = %s) '
    'FROM "accounts_user" u WHERE u.id = ANY(%s)'
)


def backend_cpu(pid: int) -> float:
    """Seconds PostgreSQL's backend ``pid`` has run on a CPU (the scheduler's count, in ns)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def statement_name(sql: str) -> str:
    """``sql``'s first words and the tables it writes, if any."""
    written = dict.fromkeys(re.findall(r'(?:INSERT INTO|UPDATE) "(\w+)"', sql))
    return " ".join(sql.split())[:72] + (f" [{', '.join(written)}]" if written else "")


def backend_pid() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


class Recorder:
    """An execute wrapper: per (part, statement), the runs, this thread's CPU and the backend's CPU."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.part = ""
        self.suffix = ""  # after the part: the page cost in force (``play``'s ``costs``)
        self.found: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        started, server = time.thread_time(), backend_cpu(self.pid)
        try:
            return execute(sql, params, many, context)
        finally:
            entry = self.found[self.part + self.suffix, statement_name(sql)]
            entry[0] += 1
            entry[1] += time.thread_time() - started
            entry[2] += backend_cpu(self.pid) - server


def play(
    tables: list[tuple[Any, list[Any]]], actions: int, recorder: Recorder, costs: tuple[str, ...] = ()
) -> dict[str, float]:
    """``actions`` actions at each table, each followed by the publisher's read; CPU per part, summed. With
    ``costs``, ``random_page_cost`` takes each in turn for 25 actions (every plan made afresh), and PostgreSQL's
    CPU is summed per cost ("postgres <cost>", "actions <cost>")."""
    from django.db import connection

    from games.forms import act_request_parse
    from games.live import publish, render
    from games.selectors.hands import hand_seat_of
    from games.selectors.snapshot import table_snapshot_of, table_snapshot_read
    from games.selectors.states import hand_state
    from games.services import after_commit
    from games.services.hands import hand_act

    touched: list[Any] = []
    after_commit.versions_publish = lambda now, club_id, known=None: touched.extend(  # type: ignore[assignment]
        publish.versions_carried(now, known)
    )
    totals: dict[str, float] = defaultdict(float)
    with connection.execute_wrapper(recorder):
        for table, users in tables:
            snapshot = table_snapshot_read(table_id=table.pk)
            assert snapshot is not None and snapshot.hand is not None
            hand = snapshot.hand
            own = {u.pk: json.loads(render.private_frame(snapshot, u))["parts"].get("own_hand", "") for u in users}
            server = backend_cpu(recorder.pid)
            cost = ""
            for step in range(actions):
                if costs and step % 25 == 0:
                    cost = costs[step // 25 % len(costs)]
                    recorder.part = "switch"
                    with connection.cursor() as cursor:
                        cursor.execute(f"SET random_page_cost = {cost}")
                        cursor.execute("DISCARD PLANS")
                    recorder.suffix = f" {cost}"
                began = backend_cpu(recorder.pid)
                acting = next(u for u in users if hand_seat_of(hand=hand, user=u) in snapshot.to_act())
                request = act_request_parse(hand=hand.pk, version=hand.version, action=choose(own[acting.pk]))
                touched.clear()
                recorder.part, started = "action", time.thread_time()
                hand_act(
                    table_id=table.pk, hand_id=hand.pk, user=acting, action=request.action, version=request.version
                )
                totals["action"] += time.thread_time() - started
                for i, (done, after, carried) in enumerate(touched):
                    recorder.part, started = "read", time.thread_time()
                    snapshot = table_snapshot_of(hand=done, state=hand_state(done), carried=carried)
                    totals["read"] += time.thread_time() - started
                    recorder.part = "render"
                    for group, message in publish.version_frames(
                        snapshot, after, table.club_id, public_only=i + 1 < len(touched)
                    ):
                        if message["type"] == "table.private":
                            text = json.loads(message["text"])
                            own[int(group.rsplit(".", 1)[1])] = text["parts"].get("own_hand", "")
                    hand = done
                if costs:
                    totals[f"postgres {cost}"] += backend_cpu(recorder.pid) - began
                    totals[f"actions {cost}"] += 1
            totals["postgres"] += backend_cpu(recorder.pid) - server
    return totals


def plans(sql: str) -> str:
    """How PostgreSQL planned this connection's prepared copy of ``sql`` (found by its end)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%" + sql[-60:].replace("%", "\\%").replace("\\%s", "$%")],
        )
        return ", ".join(f"{g} generic / {c} custom plans" for g, c in cursor.fetchall()) or "not prepared"


def compared(
    name: str, before: Callable[[], object], now: Callable[[], object], rounds: int, runs: int, pid: int
) -> None:
    """``before`` and ``now`` alternated, ``rounds`` rounds of ``runs`` runs each: us of CPU a run."""
    found: dict[str, list[tuple[float, float]]] = {"before": [], "now": []}
    for _ in range(rounds):
        for label, call in (("before", before), ("now", now)):
            for _ in range(10):
                call()
            started, server = time.thread_time(), backend_cpu(pid)
            for _ in range(runs):
                call()
            found[label].append(((time.thread_time() - started) / runs, (backend_cpu(pid) - server) / runs))
    cells = {
        label: (statistics.median(c for c, _ in rows) * 1e6, statistics.median(s for _, s in rows) * 1e6)
        for label, rows in found.items()
    }
    (bc, bs), (nc, ns) = cells["before"], cells["now"]
    print(
        f"  {name}: this process {bc:.0f} -> {nc:.0f} us ({nc / bc:.2f}), PostgreSQL {bs:.0f} -> {ns:.0f} us "
        f"({ns / max(bs, 1e-9):.2f}), both {bc + bs:.0f} -> {nc + ns:.0f} us ({(nc + ns) / (bc + bs):.2f})"
    )


def comparisons(tables: list[tuple[Any, list[Any]]], rounds: int, runs: int, pid: int) -> None:
    from django.db import connection, transaction

    from accounts.models import User
    from games.models import AdvanceAction, Hand
    from games.selectors import hands as hand_selectors
    from games.selectors import snapshot
    from games.selectors.rows import rows_fetch, rows_split
    from games.services import locking
    from ledger.selectors import SeatMoney

    users_sql = hand_selectors._USER.sql
    before_sql = PLAYERS_BEFORE.format(users=users_sql)
    pending = AdvanceAction.Status.PENDING.value
    print(f"before -> now, median of {rounds} alternated rounds of {runs} runs, CPU a run (now / before):")
    for table, _ in tables:
        club_id = table.club_id
        hand = Hand.objects.filter(table_id=table.pk).order_by("-number").first()
        assert hand is not None
        ids = sorted({int(u) for u in hand.players.values()})
        with transaction.atomic():

            def players_before(hand: Hand = hand, ids: list[int] = ids, club_id: int = club_id) -> object:
                rows = rows_fetch(before_sql, [club_id, hand.pk, pending, hand.pk, ids])
                return [hand_selectors._USER.build(row[: hand_selectors._USER.count]) for row in rows]

            def players_now(hand: Hand = hand, club_id: int = club_id) -> object:
                return hand_selectors.hand_players(hand=hand, club_id=club_id)

            compared(f"{table.name}, the players' statement", players_before, players_now, rounds, runs, pid)
        now_sql = hand_selectors._PLAYERS_SQL.replace("{ids}", ", ".join(["%s"] * len(ids)))
        print(f"    before: {plans(before_sql)}; now: {plans(now_sql)}")
        # The action's first two statements as sent (the hand locked for a member of its club, its players): each
        # through a new cursor (Django's ``cursor()``), as before, or through the connection's kept one.
        member = next(u for u in User.objects.filter(pk__in=ids) if u.pk == ids[0])
        lock = [-1, hand.pk, table.pk, member.pk, member.pk]
        players = [club_id, hand.pk, pending, hand.pk, *ids]
        with transaction.atomic():

            def new_cursors(lock: list[Any] = lock, players: list[Any] = players, sql: str = now_sql) -> object:
                found = []
                for statement, params in ((locking._MEMBER_HAND_SQL, lock), (sql, players)):
                    with connection.cursor() as cursor:
                        cursor.execute(statement, params)
                        found.append(cursor.fetchall())
                return found

            def kept_cursor(lock: list[Any] = lock, players: list[Any] = players, sql: str = now_sql) -> object:
                return [rows_fetch(locking._MEMBER_HAND_SQL, lock), rows_fetch(sql, players)]

            compared(f"{table.name}, the lock and players' statements", new_cursors, kept_cursor, rounds, runs, pid)

        def read_before(table_id: int = table.pk, club_id: int = club_id, number: int = hand.number) -> object:
            seats, money = [], {}
            for row in rows_fetch(snapshot._SEATS_SQL, [table_id, club_id, table_id]):
                seat, user = rows_split(row[:-2], snapshot._SEAT, snapshot._USER)
                seat.user = user
                seats.append(seat)
                if row[-2] is not None:
                    money[seat.user_id] = SeatMoney(balance=int(row[-2]), sitting_net=int(row[-1]))
            return seats, money, snapshot._previous_hand_read(table_id, number)

        def read_now(table_id: int = table.pk, club_id: int = club_id, number: int = hand.number) -> object:
            seats, money, key = snapshot._seats_read(table_id, club_id, number)
            return seats, money, snapshot._previous_hand(table_id, number, key)

        if hand.is_finished or read_now()[2] is None:
            print(f"  {table.name}: no hand in play after another, the publisher's read not compared")
            continue
        compared(
            f"{table.name}, the publisher's read of the seats and the last hand",
            read_before,
            read_now,
            rounds,
            runs,
            pid,
        )


def page_costs(entries: int) -> None:
    """The seats statement's plans at page costs 4 and 1.1 over a history of ``entries`` bets a member."""
    import re
    from datetime import timedelta

    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    import engine
    from accounts.models import Club, Membership, User
    from games import services
    from games.models import Seat
    from games.selectors import snapshot
    from ledger.models import EntryKind, JournalEntry, Posting
    from ledger.services import account_for_table_pot, member_accounts

    call_command("migrate", verbosity=0)
    users = [User.objects.create(username=f"costs{i}", email=f"costs{i}@example.org") for i in range(3)]
    club = Club.objects.create(name="Costs club", currency="USD", credit_limit=0)
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="organiser" if i == 0 else "member")

    def table_with(seated: list[Any]) -> Any:
        rule_set = services.rule_set_create(
            club=club,
            user=users[0],
            name="Costs",
            rules=engine.PiranhaRules(ante=25),
            max_seats=6,
            spectators_allowed=True,
        )
        version = rule_set.versions.get()
        table = services.table_create(club=club, user=users[0], name="Costs", rule_version_id=version.pk)
        for number, user in enumerate(seated, start=1):
            services.seat_take(table_id=table.pk, user=user, number=number, version_id=version.pk)
        return table

    table, other = table_with(users[1:]), table_with([])
    accounts = list(member_accounts(club=club, users=users[1:]).values())
    sat = Seat.objects.filter(table=table).earliest("accepted_at").accepted_at
    for at_table, at, count in ((table, sat - timedelta(days=1), entries // 3), (other, timezone.now(), entries)):
        pot = account_for_table_pot(table=at_table)
        with transaction.atomic():  # an entry and its postings commit together
            made = JournalEntry.objects.bulk_create(
                JournalEntry(club_id=club.pk, kind=EntryKind.BET, created_at=at, table=at_table, game="piranha")
                for _ in range(count * len(accounts))
            )
            Posting.objects.bulk_create(
                posting
                for entry, account in zip(made, accounts * count, strict=True)
                for posting in (
                    Posting(entry=entry, account=account, amount=-5),
                    Posting(entry=entry, account=pot, amount=5),
                )
            )
    services.table_start(table_id=table.pk, user=users[1])
    numbers = iter(range(1, 100))
    prepared = re.sub("%s", lambda _: f"${next(numbers)}", snapshot._SEATS_SQL)
    values = ", ".join(str(v) for v in (table.pk, club.pk, table.pk))

    def scans(node: dict[str, Any]) -> list[str]:
        found = []
        if node.get("Relation Name") == "ledger_posting":
            looked = sum(int(node.get(k, 0)) for k in ("Actual Rows", "Rows Removed by Filter", "Heap Fetches"))
            found.append(
                f"{node['Node Type']} {node.get('Index Name') or ''} ({looked * int(node['Actual Loops'])} rows)"
            )
        return found + [scan for child in node.get("Plans", []) for scan in scans(child)]

    print(f"the seats statement at a table of two members, {Posting.objects.count()} postings in the club:")
    for index in ("with the sitting index", "without it"):
        if index == "without it":
            with connection.cursor() as cursor:
                cursor.execute("DROP INDEX ledger_posting_sitting")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE ledger_posting")  # as autovacuum would have
        for cost in ("4", "1.1"):
            for mode in ("force_custom_plan", "force_generic_plan"):
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(f"SET LOCAL random_page_cost = {cost}")
                    cursor.execute(f"SET LOCAL plan_cache_mode = {mode}")
                    cursor.execute("PREPARE seats AS " + prepared)
                    times = []
                    for _ in range(20):
                        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE seats({values})")
                        out = cursor.fetchone()[0]
                        plan = (json.loads(out) if isinstance(out, str) else out)[0]
                        times.append(plan["Execution Time"])
                    cursor.execute("DEALLOCATE seats")
                print(
                    f"  {index}, random_page_cost {cost:<3}, {mode[6:-5]:<7}: {statistics.median(times):.3f} ms, "
                    + "; ".join(scans(plan["Plan"]))
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions played at each table")
    parser.add_argument("--rounds", type=int, default=7, help="alternated rounds of each comparison")
    parser.add_argument("--runs", type=int, default=300, help="runs of each form a round")
    parser.add_argument("--page-costs", type=int, metavar="N", help="only the seats statement's plans (see above)")
    parser.add_argument(
        "--alternate-page-costs", action="store_true", help="play with random_page_cost 4 and 1.1 in turn"
    )
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from bench.live_parts import setup_tables

    try:
        if args.page_costs:
            page_costs(args.page_costs)
            return
        tables = setup_tables(betting_round=True)
        pid = backend_pid()
        with connection.cursor() as cursor:
            cursor.execute("SHOW random_page_cost")
            print(f"random_page_cost {cursor.fetchone()[0]}")
        recorder = Recorder(pid)
        recorder.part = "play"
        costs = ("4", "1.1") if args.alternate_page_costs else ()
        totals = play(tables, args.actions, recorder, costs)
        count = args.actions * len(tables)
        for cost in costs:
            print(
                f"random_page_cost {cost}: PostgreSQL {totals[f'postgres {cost}'] / totals[f'actions {cost}'] * 1000:.2f} "
                f"ms of CPU an action ({totals[f'actions {cost}']:.0f} actions)"
            )
        print(
            f"per action, ms of CPU: action {totals['action'] / count * 1000:.2f}, publisher's read "
            f"{totals['read'] / count * 1000:.2f}; PostgreSQL (all statements, commits included) "
            f"{totals['postgres'] / count * 1000:.2f}"
        )
        with connection.cursor() as cursor:
            # A row update that changes no indexed column, on a page with room, is HOT: no index entry is written.
            cursor.execute(
                "SELECT relname, n_tup_upd, n_tup_hot_upd, n_dead_tup, (SELECT count(*) FROM pg_index i "
                "WHERE i.indrelid = relid) FROM pg_stat_user_tables WHERE relname IN ('games_hand', 'games_table')"
            )
            for name, updated, hot, dead, indexes in cursor.fetchall():
                print(f"  {name}: {updated} row updates, {hot} of them HOT, {dead} dead rows, {indexes} indexes")
        print("per action, each statement: runs, this process's CPU while it ran (us), PostgreSQL's CPU (us):")
        for (part, sql), (runs, client, server) in sorted(recorder.found.items(), key=lambda kv: -kv[1][1] - kv[1][2]):
            of = totals.get(f"actions {part.split(' ')[-1]}") or count  # the actions at that page cost
            if runs >= of / 50:
                print(f"  {part:<11}{runs / of:5.2f}{client / of * 1e6:7.0f}{server / of * 1e6:7.0f}  {sql}")
        comparisons(tables, args.rounds, args.runs, pid)
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
