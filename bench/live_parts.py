"""The live path's parts, one by one, in one process: what one action costs before any server, socket or
thread is involved, beside the bare app's message (bench/bare_app.py) measured in turn with it.

    .venv/bin/python bench/live_parts.py              # 300 actions a game
    .venv/bin/python bench/live_parts.py --actions 100
    .venv/bin/python bench/live_parts.py --betting-round   # Piranha as bench/load.py plays it

Uses a database ``bench_live_parts`` on the embedded PostgreSQL (made afresh, dropped at the end) and the
embedded Redis. A club of six members plays a Piranha table and a Piles table through the real services;
at each step the member to act picks from the buttons of the newest private frame they were sent (as
bench/load.py's bots do). Per action it times, in CPU of this thread, what the server does for it
(docs/live.md):

- the action's own call (``hand_act``: its transaction, the engine, the books at a hand's end);
- the publisher's read of what the area shows beside the hand it holds (``table_snapshot_of``);
- the renders: the public frame once, the private frames of the members whose own part changed, each
  encoded once (``publish.version_frames``); ``private`` is the private frames' share of them. Each socket
  then forwards bytes: nothing to measure here.

It prints, per action, the renders and the publisher's statements, and then each part by kind of action
(``action_kind``: a hand's end with the next deal, a Piles stage turn, the end of a betting round, the first
action of a hand, a drop or declare decision, a betting action), with how many of each kind sit above the
p95 of all actions' total. The bare app's message is one INSERT, one SELECT and six frames; it runs after
every action, so drift in the machine's speed falls on both alike. The last line is the ratio of the bare
message's CPU to the project's action with its frames: on one core, with no cost at all for the server, the
channel layer and the threads (which the bare app pays too), the project could at best deliver that
fraction of the bare app's updates. Not a timed test. The server sets its start-up objects aside from the
collector (``kernel.pools.collector_settle``); this process does not, so a full collection (about 120 ms
here, every few hundred actions) lands on one action of the run: the largest maximum is that.
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
from bench.load import BARE_TABLE_SQL, choose, percentile  # noqa: E402 - the bots' choice: both benches play alike

DB_NAME = "bench_live_parts"
SEATS = 6
PARTS = ("action", "read", "renders", "private", "together")
KIND_PARTS = ("hand_act", "read", "renders", "private", "total")


def cpu() -> float:
    return time.thread_time()


def setup_tables(betting_round: bool = False) -> list[tuple[Any, list[Any]]]:
    """Six members at a Piranha table (``betting_round``: with the house rule's betting round before the
    drop, as bench/stack.py's tables) and six at a Piles table, each dealt its first hand: (table, its
    members) for each (a member owing a first hand's ante may not sit down at another table)."""
    from django.core.management import call_command
    from django.db import connection

    import engine
    from accounts.models import Club, Membership, User
    from games import services

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:  # play() sends the bare app's message after each action
        for statement in BARE_TABLE_SQL:
            cursor.execute(statement)
    users = [User.objects.create(username=f"parts{i}", email=f"parts{i}@example.org") for i in range(2 * SEATS)]
    club = Club.objects.create(name="Parts club", currency="USD", credit_limit=0)
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="organiser" if i == 0 else "member")
    tables = []
    for seated, name, rules in (
        (
            users[:SEATS],
            "Piranha",
            engine.PiranhaRules(ante=25, match_cap=100, betting_round=betting_round, turn_seconds=3600),
        ),
        (users[SEATS:], "Piles", engine.PilesRules(turn_seconds=3600)),
    ):
        rule_set = services.rule_set_create(
            club=club, user=users[0], name=name, rules=rules, max_seats=SEATS, spectators_allowed=True
        )
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


def play(
    table: Any,
    users: list[Any],
    actions: int,
    costs: dict[str, list[float]],
    bare: list[float],
    counts: dict[str, list[int]],
    kinds: list[str] | None = None,
) -> int:
    """``actions`` actions at ``table``, each followed by the bare message; returns the hands played. With
    ``kinds``, each action's kind (``action_kind``) is appended to it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.forms import act_request_parse
    from games.live import publish, render
    from games.selectors.hands import hand_seat_of
    from games.selectors.snapshot import table_snapshot_of, table_snapshot_read
    from games.selectors.states import hand_state
    from games.services import after_commit
    from games.services.hands import hand_act

    touched: list[Any] = []

    def held(touched_now: Any, club_id: int, known: Any = None) -> None:  # published here instead, and timed
        touched.extend(publish.versions_carried(touched_now, known))

    after_commit.versions_publish = held  # type: ignore[assignment]
    private_cpu = [0.0]
    private_frame = publish.private_frame

    def timed_private(*args: Any, **kwargs: Any) -> str:  # the private frames' share of the renders
        started = cpu()
        try:
            return private_frame(*args, **kwargs)
        finally:
            private_cpu[0] += cpu() - started

    publish.private_frame = timed_private
    first = table_snapshot_read(table_id=table.pk)
    assert first is not None and first.hand is not None
    snapshot, hand = first, first.hand
    # What each member's screen holds of their own part: the newest private frame they were sent.
    own = {u.pk: json.loads(render.private_frame(snapshot, u))["parts"].get("own_hand", "") for u in users}
    hands = {hand.pk}
    acted: set[int] = set()  # the hands some action was taken in
    for seq in range(actions):
        acting = next(u for u in users if hand_seat_of(hand=hand, user=u) in snapshot.to_act())
        choice = choose(own[acting.pk])
        assert choice is not None, "the member to act is offered no action"
        request = act_request_parse(hand=hand.pk, version=hand.version, action=choice)

        touched.clear()
        started = cpu()
        hand_act(
            table_id=table.pk, hand_id=request.hand_id, user=acting, action=request.action, version=request.version
        )
        costs["action"].append(cpu() - started)

        acted_on, before, after_state = hand.pk, snapshot.state, None
        render.renders.clear()
        read = renders = private_cpu[0] = 0.0
        with CaptureQueriesContext(connection) as ctx:
            for i, (done, after, carried) in enumerate(touched):
                started = cpu()
                found = table_snapshot_of(hand=done, state=hand_state(done), carried=carried)
                read += cpu() - started
                assert found is not None
                started = cpu()
                batch = publish.version_frames(found, after, table.club_id, public_only=i + 1 < len(touched))
                renders += cpu() - started
                if done.pk == acted_on:
                    after_state = found.state
                snapshot, hand = found, done
                for group, message in batch:
                    if message["type"] == "table.private":
                        user_id = int(group.rsplit(".", 1)[1])
                        own[user_id] = json.loads(message["text"])["parts"].get("own_hand", "")
        costs["read"].append(read)
        costs["renders"].append(renders)
        costs["private"].append(private_cpu[0])
        counts["statements"].append(len(ctx.captured_queries))
        counts["public"].append(render.renders["public"])
        counts["private"].append(render.renders["private"])
        hands.add(hand.pk)
        if kinds is not None:
            kinds.append(action_kind(request.action.type, before, after_state, acted_on not in acted))
        acted.add(acted_on)

        started = cpu()
        bare_message(seq)
        bare.append(cpu() - started)
    return len(hands)


def action_kind(action: str, before: Any, after: Any, first: bool) -> str:
    """What an action set off, from the hand's engine state before and after it: the costly kinds first (a
    hand's end brings its books, the next deal and every seat's private frame; a Piles stage turn changes
    every seat's best hand)."""
    if after is None or after.phase == "over":
        return "hand end, next deal"
    if getattr(after, "stage", 0) != getattr(before, "stage", 0):
        return "Piles stage turn"
    if after.phase != before.phase:  # Piranha's betting round to the drop, Piles' last round to the declaring
        return "betting round ends"
    if first:
        return "first of a hand"
    return "drop/declare decision" if action in ("in", "out", "declare") else "betting action"


def by_kind(rows: list[tuple[str, str, dict[str, float]]]) -> None:
    """Per game and kind of action: how many, how many above the p95 of all actions' total, and each part's
    mean / p50 / p95 / max (ms of CPU; ``private``: the private frames rendered, a count)."""
    tail = percentile([row["total"] for _, _, row in rows], 0.95)
    above = sum(row["total"] > tail for _, _, row in rows)
    print(
        f"by kind of action: ms of CPU (private: frames rendered), mean / p50 / p95 / max; the p95 of all "
        f"{len(rows)} actions' total is {tail * 1000:.2f} ms, {above} above it"
    )
    groups: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    for game, kind, row in rows:
        groups[game, kind].append(row)
    for (game, kind), group in sorted(groups.items(), key=lambda item: -statistics.mean(r["total"] for r in item[1])):
        over = sum(r["total"] > tail for r in group)
        print(
            f"  {game}, {kind}: {len(group)} ({len(group) / len(rows):.1%} of all), {over} above the p95 "
            f"({over / len(group):.0%} of the kind, {over / max(above, 1):.0%} of those above)"
        )
        for part in KIND_PARTS:
            values = sorted(r[part] * (1 if part == "private" else 1000) for r in group)
            print(
                f"    {part:<9}{statistics.mean(values):8.2f}{statistics.median(values):8.2f}"
                f"{percentile(values, 0.95):8.2f}{values[-1]:8.2f}"
            )


def ms(values: list[float]) -> str:
    return f"{statistics.mean(values) * 1000:6.2f} / {statistics.median(values) * 1000:5.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions timed at each table")
    parser.add_argument(
        "--betting-round", action="store_true", help="Piranha with its betting round, as bench/load.py plays it"
    )
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    try:
        tables = setup_tables(args.betting_round)
        totals: list[float] = []
        bare: list[float] = []
        private = [0.0, 0]  # CPU of the private frames, how many
        counted: list[str] = []
        rows: list[tuple[str, str, dict[str, float]]] = []  # game, kind of action, its parts
        print(f"CPU per action in this process, ms, mean / median ({args.actions} actions a game):")
        print(f"  {'':<26}" + "".join(f"{part:>17}" for part in PARTS))
        for table, users in tables:
            costs: dict[str, list[float]] = defaultdict(list)
            counts: dict[str, list[int]] = defaultdict(list)
            kinds: list[str] = []
            hands = play(table, users, args.actions, costs, bare, counts, kinds)
            costs["together"] = [
                a + r + s for a, r, s in zip(costs["action"], costs["read"], costs["renders"], strict=True)
            ]
            for i, kind in enumerate(kinds):
                parts = (costs["action"][i], costs["read"][i], costs["renders"][i], counts["private"][i])
                rows.append((table.name, kind, dict(zip(KIND_PARTS, (*parts, costs["together"][i]), strict=True))))
            totals += costs["together"]
            private[0] += sum(costs["private"])
            private[1] += sum(counts["private"])
            print(f"  {table.name + f' ({hands} hands)':<26}" + "".join(f"{ms(costs[p]):>17}" for p in PARTS))
            counted.append(
                f"  {table.name}: per action {statistics.mean(counts['public']):.2f} public renders, "
                f"{statistics.mean(counts['private']):.2f} private renders, "
                f"{statistics.mean(counts['statements']):.2f} statements to publish; per socket 0 and 0"
            )
        print(f"  {'bare message':<26}{ms(bare):>17}   (one INSERT, one SELECT, six frames)")
        print("\n".join(counted))
        each = private[0] / max(private[1], 1)
        print(
            f"one private frame: {each * 1000:.3f} ms mean; bare message / private frame (CPU): "
            f"{statistics.mean(bare) / each:.2f}"
        )
        by_kind(rows)
        ratio = statistics.mean(bare) / statistics.mean(totals)
        print(f"ratio bare message / project action with its frames' read and renders (CPU, mean): {ratio:.2f}")
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
