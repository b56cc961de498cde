"""The statements of a player's action and of the publisher's read each keep one plan on their connection.

psycopg prepares a statement its connection has run five times (config/settings/base.py); PostgreSQL then
plans it for the values of each run ("custom") until a plan for any values ("generic") costs no more than
those, and keeps that one. A statement whose generic plan always costs more is planned again at every run:
PostgreSQL's CPU for nothing (the players' statement did: about 0.1 ms of planning an action).

Both plans' costs come from the tables' statistics. Each test here of a kept plan analyses the tables once its
rows are committed, as autovacuum would: left as an earlier test in the worker left them (one long-played table holding
every seat and posting, since emptied), they gave a new table's custom plans a small fraction of the generic
plan's cost, and the seats statement was planned at every run.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

import engine
from games.models import Hand
from games.selectors.hands import hand_players
from games.selectors.snapshot import _seats_read, table_snapshot_of
from games.selectors.states import hand_state
from games.services.locking import _MEMBER_HAND_SQL
from ledger.services import account_for_table_pot, member_accounts
from tests.games.helpers import (
    act_at_random,
    analyse_as_autovacuum,
    books_history,
    make_table,
    three_players_started,
)


def _planned_each_time(runs_over: int) -> list[str]:
    """The prepared statements of this connection run more than ``runs_over`` times with a custom plan each
    time."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE generic_plans = 0 AND custom_plans > %s",
            [runs_over],
        )
        return [row[0][:120] for row in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "rules", [engine.PiranhaRules(betting_round=True), engine.PilesRules()], ids=["piranha", "piles"]
)
def test_every_statement_of_the_actions_and_the_publishers_read_keeps_a_generic_plan(club_setup, rules) -> None:
    table, players = three_players_started(club_setup, rules)
    analyse_as_autovacuum()
    rng = random.Random(7)
    for _ in range(30):
        act_at_random(table.pk, players, rng, stay=0.95)
        hand = Hand.objects.select_related("table__club", "rule_version__rule_set").filter(table=table)
        shown = hand.order_by("-number").first()
        assert shown is not None
        table_snapshot_of(hand=shown, state=hand_state(shown))
    assert _planned_each_time(runs_over=10) == []


@pytest.mark.django_db(transaction=True)
def test_the_players_statement_is_planned_once_on_a_connection(club_setup) -> None:
    table, _ = three_players_started(club_setup, engine.PilesRules())
    analyse_as_autovacuum()
    hand = Hand.objects.get(table=table)
    found = [hand_players(hand=hand, club_id=table.club_id) for _ in range(12)]
    assert all(f == found[0] for f in found) and len(found[0].seat_users) == 3
    assert _planned_each_time(runs_over=5) == []


@pytest.mark.django_db(transaction=True)
def test_the_seats_statement_keeps_a_generic_plan_at_a_new_table_beside_a_long_played_one(club_setup) -> None:
    """Planned for its own values, a new table (three seats, a few postings) looked cheaper than the plan for any
    values, which costs what an average table's thousands of postings would: the statement was planned again at
    every read on a connection that began at the new table."""
    a, b, c = club_setup.members
    played = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25))
    accounts = list(member_accounts(club=club_setup.club, users=[a, b, c]).values())
    books_history(club_setup.club.pk, accounts, account_for_table_pot(table=played), played, timezone.now(), 500)
    table, players = three_players_started(club_setup, engine.PilesRules())
    act_at_random(table.pk, players, random.Random(7))
    analyse_as_autovacuum()
    connection.close()
    connection.close_pool()  # a connection of its own: one that kept the generic plan earlier would keep it on
    shown = Hand.objects.get(table=table)
    money = [_seats_read(table.pk, table.club_id, shown.number)[1] for _ in range(12)]
    assert money[0] and all(m == money[0] for m in money)
    assert _planned_each_time(runs_over=5) == []


def _generic_plan(sql: str) -> dict[str, Any]:
    """The plan PostgreSQL makes of ``sql`` for any values (what it keeps for a prepared copy after five runs)."""
    numbers = iter(range(1, 100))
    prepared = re.sub("%s", lambda _: f"${next(numbers)}", sql)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (GENERIC_PLAN, FORMAT JSON) " + prepared.replace("%", "%%"))
        found = cursor.fetchone()[0]
    return (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]


def _scans(plan: dict[str, Any], relation: str) -> list[tuple[str, str | None]]:
    """Each read of ``relation`` in ``plan``: its kind and the index it goes through (a bitmap read: the index of
    the bitmap under it, which names no relation of its own)."""
    if plan.get("Relation Name") == relation:
        index = plan.get("Index Name")
        if plan["Node Type"] == "Bitmap Heap Scan":
            under = [c.get("Index Name") for c in plan.get("Plans", []) if c["Node Type"] == "Bitmap Index Scan"]
            index = under[0] if len(under) == 1 else None  # several bitmaps combined: no one index
        return [(plan["Node Type"], index)]
    return [scan for child in plan.get("Plans", []) for scan in _scans(child, relation)]


@pytest.mark.django_db
def test_the_action_locks_its_hand_found_by_its_id_alone(club_setup) -> None:
    """Not by its table or its rule version: a generic plan that looked the hand up by the table read every hand of
    it (and their dead versions) at each action, more as the table played on."""
    three_players_started(club_setup, engine.PilesRules())
    with connection.cursor() as cursor:
        # On the tests' tiny tables a sequential read of a page would do as well as any index, and which one the
        # planner takes depends on the statistics earlier tests left (this test's rows are not committed, so not
        # analysed): with reads barred, only the indexes compete.
        cursor.execute("SET LOCAL enable_seqscan = off")
    # By its primary key alone, read through the index or through a bitmap of it (the two cost alike here).
    (scan,) = _scans(_generic_plan(_MEMBER_HAND_SQL), "games_hand")
    assert scan in [("Index Scan", "games_hand_pkey"), ("Bitmap Heap Scan", "games_hand_pkey")], scan
