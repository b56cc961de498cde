"""The live path's parts, one by one, in one process: what one action costs before any server, socket or
thread is involved, beside the bare app's message (bench/bare_app.py) measured in turn with it.

    .venv/bin/python bench/live_parts.py              # 300 actions a game
    .venv/bin/python bench/live_parts.py --actions 100

Uses a database ``bench_live_parts`` on the embedded PostgreSQL (made afresh, dropped at the end) and the
embedded Redis. A club of six members plays a Piranha table and a Piles table through the real services;
at each step the member to act picks from the buttons their own area offers (as bench/load.py's bots do).
Per action it times, in CPU of this thread, what the server does for it:

- the action's own call (``hand_act``: its transaction, the engine, the books at a hand's end);
- the version's read (``table_snapshot_read``, from the snapshot of the version before, as a server
  process reads it);
- each of the six seated members' areas rendered from it (``live.table_area_html``) and framed.

The bare app's message is one INSERT, one SELECT and six frames; it runs after every action, so drift in
the machine's speed falls on both alike. The last line is the ratio of the bare message's CPU to the
project's action with its read and six areas: on one core, with no cost at all for the server, the
channel layer and the threads (which the bare app pays too), the project could at best deliver that
fraction of the bare app's updates (bench/load.py's target is 0.30). Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path
from bench.load import BARE_TABLE_SQL, choose  # noqa: E402 - the bots' choice, so both benches play alike

DB_NAME = "bench_live_parts"
SEATS = 6
PARTS = ("action", "read", "one area", "six areas", "action + read", "together")


def cpu() -> float:
    return time.thread_time()


def setup_tables() -> list[tuple[Any, list[Any]]]:
    """Six members at a Piranha table and six at a Piles table, each dealt its first hand: (table, its
    members) for each (a member owing a first hand's ante may not sit down at another table)."""
    from django.core.management import call_command

    from accounts.models import Club, Membership, User
    from games import engine, services

    call_command("migrate", verbosity=0)
    users = [User.objects.create(username=f"parts{i}", email=f"parts{i}@example.org") for i in range(2 * SEATS)]
    club = Club.objects.create(name="Parts club", currency="USD", credit_limit=0)
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="organiser" if i == 0 else "member")
    tables = []
    for seated, name, rules in ((users[:SEATS], "Piranha", engine.PiranhaRules(ante=25, match_cap=100,
                                                                                turn_seconds=3600)),
                                (users[SEATS:], "Piles", engine.PilesRules(turn_seconds=3600))):
        rule_set = services.rule_set_create(club=club, user=users[0], name=name, rules=rules, max_seats=SEATS,
                                            spectators_allowed=True)
        version = rule_set.versions.order_by("-number").first()
        assert version is not None
        table = services.table_create(club=club, user=users[0], name=name, rule_version_id=version.pk)
        for number, user in enumerate(seated, start=1):
            services.seat_take(table_id=table.pk, user=user, number=number, version_id=version.pk)
        services.table_start(table_id=table.pk, user=seated[0])
        tables.append((table, seated))
    return tables


def bare_message(seq: int) -> None:
    """What bench/bare_app.py does for one message, less the server: its two statements, six frames."""
    from bench.bare_app import _write_and_read  # Django is set up: the bare app takes these settings

    count = _write_and_read(0, seq)
    for _ in range(SEATS):
        json.dumps({"seq": seq, "count": count})


def play(table: Any, users: list[Any], actions: int, costs: dict[str, list[float]], bare: list[float]) -> int:
    """``actions`` actions at ``table``, each followed by the bare message; returns the hands played."""
    from accounts.access import ClubAccess, membership_of
    from games import live
    from games.forms import act_request_parse
    from games.models import Hand
    from games.selectors.hands import hand_seat_of
    from games.selectors.snapshot import TableSnapshot, table_snapshot_read
    from games.services.hands import hand_act

    def read(hand_id: int | None, earlier: TableSnapshot | None = None) -> tuple[TableSnapshot, Hand]:
        found = table_snapshot_read(table_id=table.pk, hand_id=hand_id, earlier=earlier)
        assert found is not None and found.hand is not None
        return found, found.hand

    access = {u.pk: ClubAccess(club=table.club, membership=membership_of(user=u, club_id=table.club_id))  # type: ignore[arg-type]
              for u in users}
    snapshot, hand = read(None)
    areas = {u.pk: live.table_area_html(snapshot=snapshot, user=u, access=access[u.pk]) for u in users}
    hands = {hand.pk}
    for seq in range(actions):
        acting = next(u for u in users if hand_seat_of(hand=hand, user=u) in snapshot.to_act())
        choice = choose(areas[acting.pk])
        assert choice is not None, "the member to act is offered no action"
        request = act_request_parse(hand=hand.pk, version=hand.version, action=choice)

        started = cpu()
        done = hand_act(table_id=table.pk, hand_id=request.hand_id, user=acting, action=request.action,
                        version=request.version)
        costs["action"].append(cpu() - started)

        started = cpu()
        snapshot, hand = read(done.pk, snapshot)
        spent = cpu() - started
        if hand.is_finished:  # the next hand was dealt with it: its first version, as announced
            following = Hand.objects.filter(table_id=table.pk).order_by("-number").values_list("pk", flat=True)[0]
            started = cpu()
            snapshot, hand = read(following, snapshot)
            spent += cpu() - started
        costs["read"].append(spent)
        hands.add(hand.pk)

        started = cpu()
        for user in users:
            html = live.table_area_html(snapshot=snapshot, user=user, access=access[user.pk])
            live.frame({"type": "table.html", "table": table.pk, "hand": hand.pk, "version": hand.version,
                        "html": html})
            areas[user.pk] = html
        six = cpu() - started
        costs["six areas"].append(six)
        costs["one area"].append(six / SEATS)

        started = cpu()
        bare_message(seq)
        bare.append(cpu() - started)
    return len(hands)


def ms(values: list[float]) -> str:
    return f"{statistics.mean(values) * 1000:6.2f} / {statistics.median(values) * 1000:5.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions timed at each table")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            for statement in BARE_TABLE_SQL:
                cursor.execute(statement)
        tables = setup_tables()
        totals: list[float] = []
        bare: list[float] = []
        print(f"CPU per action in this process, ms, mean / median ({args.actions} actions a game):")
        print(f"  {'':<26}" + "".join(f"{part:>17}" for part in PARTS))
        for table, users in tables:
            costs: dict[str, list[float]] = defaultdict(list)
            hands = play(table, users, args.actions, costs, bare)
            costs["action + read"] = [a + r for a, r in zip(costs["action"], costs["read"], strict=True)]
            costs["together"] = [a + s for a, s in zip(costs["action + read"], costs["six areas"], strict=True)]
            totals += costs["together"]
            print(f"  {table.name + f' ({hands} hands)':<26}" + "".join(f"{ms(costs[p]):>17}" for p in PARTS))
        print(f"  {'bare message':<26}{ms(bare):>17}   (one INSERT, one SELECT, six frames)")
        ratio = statistics.mean(bare) / statistics.mean(totals)
        print(f"ratio bare message / project action with its read and six areas (CPU, mean): {ratio:.2f}")
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
