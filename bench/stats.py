"""Statistics benchmark: a generated club of 100,000 hands over five years; every stats page timed.

    .venv/bin/python bench/stats.py            # build (once) and measure
    .venv/bin/python bench/stats.py --rebuild  # drop and rebuild the data first

Runs against its own database `bench_stats` on the embedded PostgreSQL. The club has 12
members at 8 tables (4 Piranha, 4 Piles), 4 to 6 players a hand. Each hand goes in as real
rows: the hand, an action-log row holding its opened drop or declaration, and its journal
entries and postings through every trigger that guards the books (antes, Piles bets, pots
won). The players' result rows are then written by the same SQL the commit trigger runs
(clubhouse/results.py), and that fill is timed too.

Then, in one run, each stats page is fetched through Django (test client, a logged-in member:
the view, its SQL and the template) and its median wall time is printed against two baselines
measured in the same run: the club's plain home page (a page that reads a few rows), and the
club's table computed straight from the action log and the ledger without the result rows
(what every page would cost without them). Target: every stats page under 200 ms.

Not a timed test.
"""

from __future__ import annotations

import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.django_setup import setup_bench_django, timed  # noqa: E402

DB_NAME = "bench_stats"
HANDS = int(os.environ.get("BENCH_HANDS", "100000"))
MEMBERS = 12
TABLES = 8
YEARS = 5
BATCH = 1000  # hands a transaction: each posting rewrites its account row, so keep transactions short
TARGET_MS = 200.0


def setup_django() -> None:
    setup_bench_django(DB_NAME, rebuild="--rebuild" in sys.argv)


def _hand_plan(rng: random.Random, game: str, seats: list[int]) -> tuple[dict[int, str], list[tuple[int, int, str]]]:
    """(seat -> opened decision, [(seat, cents, kind)]) of one generated hand; the pot is paid out whole."""
    ante = 25 * rng.randint(1, 4)
    moves: list[tuple[int, int, str]] = [(s, -ante, "ante") for s in seats]
    pot = ante * len(seats)
    if game == "piranha":
        decisions = {s: rng.choice(["in", "in", "out"]) for s in seats}
        ins = [s for s in seats if decisions[s] == "in"] or [seats[0]]
        decisions[ins[0]] = "in"
        winners = [rng.choice(ins)]
    else:
        decisions = {s: rng.choice(["high", "high", "low", "low", "pig", "fold"]) for s in seats}
        live = [s for s in seats if decisions[s] != "fold"] or [seats[0]]
        decisions[live[0]] = decisions[live[0]] if decisions[live[0]] != "fold" else "high"
        for s in live:
            bet = 25 * rng.randint(2, 12)
            moves.append((s, -bet, "bet"))
            pot += bet
        winners = rng.sample(live, k=min(len(live), rng.choice([1, 2])))
    share = pot // len(winners)
    for k, s in enumerate(winners):
        moves.append((s, share + (pot - share * len(winners) if k == 0 else 0), "award"))
    return decisions, moves


def build() -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    from accounts.models import Club, Membership, User
    from clubhouse.models import ClubVisit, HandResult, Season
    from clubhouse.results import hand_results_backfill
    from games.demo.simulate import simulation_table_create
    from games.models import ChatMessage, Game, Hand, HandAction
    from ledger.services import account_for_table_pot, member_accounts

    call_command("migrate", verbosity=0)
    club = Club.objects.filter(name="Stats bench club").first()
    if club is not None:
        if HandResult.objects.filter(club=club).exists():
            return {"club_id": club.pk, "built": False}
        raise SystemExit("bench_stats holds a partial build: run with --rebuild")
    rng = random.Random(2026)
    now = timezone.now()
    span = timedelta(days=365 * YEARS)
    with transaction.atomic():
        club = Club.objects.create(name="Stats bench club", currency="USD")
        users = [User.objects.create_user(username=f"stats{i}", display_name=f"Player {i}") for i in range(MEMBERS)]
        Membership.objects.bulk_create(
            Membership(club=club, user=u, role=Membership.Role.ORGANISER if i == 0 else Membership.Role.MEMBER)
            for i, u in enumerate(users)
        )
        tables = [
            simulation_table_create(
                club=club, game=Game.PIRANHA if t % 2 == 0 else Game.PILES, created_by=users[0], name=f"Table {t}"
            )
            for t in range(TABLES)
        ]
        accounts = {uid: a.pk for uid, a in member_accounts(club=club, users=users).items()}
        pots = {t.pk: account_for_table_pot(table=t).pk for t in tables}
        for year in range(YEARS):
            opened = now - span + timedelta(days=365 * year)
            Season.objects.create(
                club=club,
                name=f"Year {year + 1}",
                opened_at=opened,
                closed_at=None if year == YEARS - 1 else opened + timedelta(days=365),
                opened_by=users[0],
                closed_by=None if year == YEARS - 1 else users[0],
            )
    start = time.perf_counter()
    numbers = {t.pk: 0 for t in tables}
    phases = {"hands and log": 0.0, "entries and postings": 0.0, "commit": 0.0}
    for first in range(0, HANDS, BATCH):
        count = min(BATCH, HANDS - first)
        hands: list[Hand] = []
        plans = []
        for k in range(first, first + count):
            table = tables[k % TABLES]
            numbers[table.pk] += 1
            players = rng.sample(users, rng.randint(4, 6))
            seats = list(range(1, len(players) + 1))
            decisions, moves = _hand_plan(rng, table.game, seats)
            finished = now - span + span * (k + 1) / (HANDS + 1)
            hands.append(
                Hand(
                    table=table,
                    number=numbers[table.pk],
                    rule_version=table.rule_version,
                    players={str(s): u.pk for s, u in zip(seats, players, strict=True)},
                    button=seats[0],
                    deck=[],
                    salt="",
                    commitment="",
                    state={},
                    version=len(seats),
                    finished_at=finished,
                )
            )
            plans.append((table, players, decisions, moves, finished))
        t0 = time.perf_counter()
        with transaction.atomic():
            Hand.objects.bulk_create(hands)
            opened_kind = {"piranha": "drop_open", "piles": "declare_open"}
            HandAction.objects.bulk_create(
                HandAction(
                    hand=h,
                    sequence=1,
                    seat=1,
                    user=players[0],
                    action={"type": "in"},
                    events=[
                        {
                            "kind": opened_kind[table.game],
                            "decisions": [{"seat": s, "decision": d} for s, d in decisions.items()],
                        }
                    ],
                )
                for h, (table, players, decisions, _, _) in zip(hands, plans, strict=True)
            )
            phases["hands and log"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            # One entry for what the players paid into the pot and one for what it paid out: each
            # hand's net and winnings as play posts them, in fewer rows (every posting passes the
            # books' triggers, which is what loading costs).
            entries = [
                (h.pk, table.pk, table.game, kind, finished)
                for h, (table, _, _, moves, finished) in zip(hands, plans, strict=True)
                for kind in ("ante", "award")
                if any((m[2] == "award") == (kind == "award") for m in moves)
            ]
            with connection.cursor() as cursor:
                cursor.execute(
                    """
                    INSERT INTO ledger_journalentry (club_id, kind, memo, created_at, table_id, hand_id, game)
                    SELECT %s, k, 'bench', t, tb, h, g
                      FROM unnest(%s::text[], %s::timestamptz[], %s::bigint[], %s::bigint[], %s::text[])
                           AS x(k, t, tb, h, g)
                    RETURNING id, hand_id, kind""",
                    [
                        club.pk,
                        [e[3] for e in entries],
                        [e[4] for e in entries],
                        [e[1] for e in entries],
                        [e[0] for e in entries],
                        [e[2] for e in entries],
                    ],
                )
                entry_of = {(hand_id, kind): entry_id for entry_id, hand_id, kind in cursor.fetchall()}
                lines: list[tuple[int, int, int]] = []
                for h, (table, players, _, moves, _) in zip(hands, plans, strict=True):
                    for kind in ("ante", "award"):
                        part = [(seat, amount) for seat, amount, k in moves if (k == "award") == (kind == "award")]
                        if not part:
                            continue
                        entry_id = entry_of[(h.pk, kind)]
                        by_account: dict[int, int] = {}
                        for seat, amount in part:
                            account = accounts[players[seat - 1].pk]
                            by_account[account] = by_account.get(account, 0) + amount
                        lines += [(entry_id, account, amount) for account, amount in by_account.items()]
                        lines.append((entry_id, pots[table.pk], -sum(by_account.values())))
                cursor.execute(
                    """
                    INSERT INTO ledger_posting (entry_id, account_id, amount, seq, balance_after, kind, game)
                    SELECT e, a, m, 0, 0, '', '' FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS x(e, a, m)
                     ORDER BY e, a""",
                    [[x[0] for x in lines], [x[1] for x in lines], [x[2] for x in lines]],
                )
            phases["entries and postings"] += time.perf_counter() - t0
            t0 = time.perf_counter()
        phases["commit"] += time.perf_counter() - t0
        done = first + count
        if done % 20000 == 0 or done == HANDS:
            print(
                f"  loaded {done:,} hands ({done / (time.perf_counter() - start):,.0f}/s; "
                + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items())
                + ")",
                flush=True,
            )
    load = time.perf_counter() - start
    with connection.cursor() as cursor:
        for table_name in ("ledger_posting", "ledger_journalentry", "games_hand", "games_handaction"):
            cursor.execute(f"VACUUM (ANALYZE) {table_name}")
    t = time.perf_counter()
    with transaction.atomic():
        rows = hand_results_backfill()
    fill = time.perf_counter() - t
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) clubhouse_handresult")
    # the night's summary has something to show: a week of chat, the member's last visit a week ago
    with transaction.atomic():
        for k in range(300):
            msg = ChatMessage.objects.create(
                table=tables[k % TABLES], user=users[1 + k % (MEMBERS - 1)], text=f"line {k}"
            )
            ChatMessage.objects.filter(pk=msg.pk).update(created_at=now - timedelta(minutes=30 * k))
        ClubVisit.objects.create(club=club, user=users[0], seen_at=now - timedelta(days=7))
    print(f"  result rows: {rows:,} written by the fill in {fill:.1f} s ({rows / fill:,.0f} rows/s)")
    return {"club_id": club.pk, "built": True, "load_seconds": load, "fill_seconds": fill}


def measure(club_id: int) -> None:
    from django.db import connection
    from django.test import Client

    from accounts.models import Club, Membership
    from clubhouse.models import HandResult, Season
    from clubhouse.results import FILL

    club = Club.objects.get(pk=club_id)
    organiser = Membership.objects.get(club=club, role=Membership.Role.ORGANISER).user
    client = Client()
    client.force_login(organiser)
    seasons = list(Season.objects.filter(club=club).order_by("opened_at"))
    closed, current = seasons[-2], seasons[-1]
    rows = HandResult.objects.filter(club=club).count()
    hands = HandResult.objects.filter(club=club).values("hand_id").distinct().count()
    print(
        f"\nclub {club.pk}: {hands:,} hands, {rows:,} result rows, {Season.objects.filter(club=club).count()} seasons"
    )

    def page(url: str) -> Any:
        def fetch() -> None:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)

        return fetch

    c = club.pk
    pages = [
        ("results, all time", f"/clubs/{c}/results/"),
        ("results, one season", f"/clubs/{c}/results/?season={closed.pk}"),
        (
            "results, Piles, 2 years",
            f"/clubs/{c}/results/?game=piles&date_from={(current.opened_at - timedelta(days=365)).date()}",
        ),
        ("member, all time", f"/clubs/{c}/results/members/{organiser.pk}/"),
        ("member, one season", f"/clubs/{c}/results/members/{organiser.pk}/?season={closed.pk}"),
        ("season closed + settle", f"/clubs/{c}/seasons/{closed.pk}/"),
        ("season open", f"/clubs/{c}/seasons/{current.pk}/"),
        ("seasons list", f"/clubs/{c}/seasons/"),
        ("since last here", f"/clubs/{c}/since/"),
        ("how to play Piles", f"/clubs/{c}/how-to-play/piles/"),
    ]
    baseline = timed(page(f"/clubs/{c}/"))

    def naive() -> None:
        with connection.cursor() as cursor:
            cursor.execute(_naive_table(FILL, club.pk))
            cursor.fetchall()

    naive_ms = timed(naive, repeat=1)
    print(
        f"\nbaselines: the club's home page {baseline:.1f} ms; the club's table straight from the action log "
        f"and the ledger (no result rows) {naive_ms:,.0f} ms\n"
    )
    print(
        f"{'stats page (wall ms)':<28}{'ours':>9}{'home page':>11}{'x home':>8}{'x naive':>9}  under {TARGET_MS:.0f} ms"
    )
    worst = 0.0
    for name, url in pages:
        ms = timed(page(url))
        worst = max(worst, ms)
        print(
            f"{name:<28}{ms:>9.1f}{baseline:>11.1f}{ms / baseline:>7.1f}x{naive_ms / ms:>8.0f}x  "
            f"{'yes' if ms < TARGET_MS else 'NO'}"
        )
    print(f"\nslowest stats page: {worst:.1f} ms (target < {TARGET_MS:.0f} ms)")


def _naive_table(fill: str, club_id: int) -> str:
    """The club's table by aggregating the fill's SELECT (action log + ledger per hand) directly."""
    select = fill.split("INSERT INTO clubhouse_handresult", 1)[1].split(")", 1)[1].split("ON CONFLICT")[0]
    select = select.replace("{where}", f"t.club_id = {int(club_id)}")
    select = select.replace(
        "SELECT h.id, t.club_id, p.value::bigint, rs.game, p.key::int, h.finished_at,",
        "SELECT p.value::bigint AS user_id, rs.game AS game,",
        1,
    )
    select = select.replace(
        "COALESCE(d.decision, ''), COALESCE(m.won, 0), COALESCE(m.net, 0)",
        "COALESCE(d.decision, '') AS decision, COALESCE(m.won, 0) AS won, COALESCE(m.net, 0) AS net",
        1,
    )
    return (
        f"SELECT user_id, game, count(*), count(*) FILTER (WHERE won > 0), sum(net), max(won) "  # noqa: S608
        f"FROM ({select}) q GROUP BY user_id, game"
    )


def main() -> None:
    setup_django()
    info = build()
    if info.get("built"):
        print(f"built in {info['load_seconds']:.0f} s (result fill {info['fill_seconds']:.1f} s)")
    measure(info["club_id"])


if __name__ == "__main__":
    main()
