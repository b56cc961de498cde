"""The hand row is written at every action: PostgreSQL writes those versions HOT (no index entry) when no
indexed column changes, so no index of games_hand holds a column the step sets while the hand is played
(its deadline, its clocks). The sweeps that look for running hands by their deadline find them through the
partial index on unfinished hands (one a table), however many finished hands the table holds."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import engine
from games.models import Hand
from games.selectors.hands import hands_overdue
from notices.services.turns import turn_notices_sweep
from operations.scrape import ClubCollector
from tests.games.helpers import act_at_random, three_players_started


def _hand_counts() -> tuple[int, int]:
    """games_hand's row updates and HOT updates so far, this connection's pending counts flushed first."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
    with connection.cursor() as cursor:  # a transaction later: the counts are flushed at its end
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'games_hand'::regclass")
        updated, hot = cursor.fetchone()
    return int(updated), int(hot)


@pytest.mark.django_db(transaction=True)
def test_a_hands_updates_during_play_write_no_index_entry(club_setup) -> None:
    """Each action commits on its own, as on the site, so the page's dead versions are pruned and the next
    version finds room beside them. With the deadline indexed, none was HOT. A step that ends the hand sets
    ``finished_at`` (in the predicate of the index on unfinished hands): that one is not HOT."""
    table, players = three_players_started(club_setup, engine.PilesRules(turn_seconds=3600))
    rng = random.Random(11)
    before = _hand_counts()
    steps = 0
    for _ in range(24):
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        assert hand is not None
        act_at_random(table.pk, players, rng, stay=1.0)
        after = Hand.objects.get(pk=hand.pk)
        if after.is_finished:
            break
        assert after.deadline != hand.deadline  # each turn sets its own clock: the indexed column would change
        steps += 1
    updated, hot = (a - b for a, b in zip(_hand_counts(), before, strict=True))
    assert steps >= 12
    assert updated >= steps
    # Not every one: a version finds no room on its page when the page's dead versions were not pruned (at
    # fillfactor 100 pruning waits for a tenth of the page free; the publisher reads the table's rows on its
    # own connection right after each commit, and a page it holds then is not pruned): 20 to 24 of 24 in our runs.
    assert hot >= steps * 0.75, f"{hot} of {updated} updates of games_hand were HOT"


def _explained(run: Callable[[], Any]) -> list[dict[str, Any]]:
    """The plans of the statements ``run`` sends that read games_hand."""
    with CaptureQueriesContext(connection) as captured:
        run()
    plans = []
    for query in captured.captured_queries:
        if '"games_hand"' in query["sql"] and query["sql"].startswith("SELECT"):
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (FORMAT JSON) " + query["sql"].replace("%", "%%"))
                found = cursor.fetchone()[0]
            plans.append((json.loads(found) if isinstance(found, str) else found)[0]["Plan"])
    return plans


def _scans(plan: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The plan's scans of games_hand and its indexes (a bitmap scan's index is named by its child)."""
    named = plan.get("Relation Name") == "games_hand" or plan.get("Index Name", "").startswith(("games_hand", "hand_"))
    found = [(plan["Node Type"], plan.get("Index Name"))] if named else []
    return found + [scan for child in plan.get("Plans", []) for scan in _scans(child)]


@pytest.mark.django_db
def test_the_sweeps_find_running_hands_by_the_index_on_unfinished_hands(club_setup) -> None:
    """With thousands of finished hands beside three running ones, the overdue sweep, the notice sweep and the
    overdue gauge read the running hands from ``hand_one_unfinished_per_table``, not every hand."""
    running = []
    for rules in (engine.PilesRules(turn_seconds=3600), engine.PiranhaRules(), engine.PilesRules()):
        table, _ = three_players_started(club_setup, rules)
        running.append(Hand.objects.get(table=table))
    source = running[0]
    with connection.cursor() as cursor:
        # Finished hands of these tables, copied from a dealt one (read from an export, as far as the deal's
        # guards are concerned: its closed leaves are set).
        cursor.execute(
            "INSERT INTO games_hand (table_id, number, rule_version_id, players, button, carry_in, deck, scheme, "
            "salt, salts, commitment, closed_leaves, cuts, state, deal_events, version, deadline, clocks, "
            "private_marks, timeouts, started_at, finished_at) "
            "SELECT t.table_id, 1000 + n, rule_version_id, players, button, carry_in, deck, scheme, salt, salts, "
            "commitment, '{\"0\": \"\"}', cuts, state, deal_events, version, NULL, '{}', private_marks, timeouts, "
            "started_at, started_at FROM games_hand h, generate_series(1, 2000) n, "
            "(SELECT table_id FROM games_hand WHERE id = ANY(%s)) t WHERE h.id = %s",
            [[h.pk for h in running], source.pk],
        )
        cursor.execute("ANALYZE games_hand")
    now = timezone.now() + timedelta(days=1)
    assert sorted(pk for pk, _ in hands_overdue(now=now, limit=50)) == sorted(h.pk for h in running)
    sweeps: list[Callable[[], object]] = [
        lambda: hands_overdue(now=now, limit=50),
        lambda: turn_notices_sweep(now=now),
        lambda: ClubCollector()._overdue(),  # the overdue turns' gauge
    ]
    for run in sweeps:
        plans = _explained(run)
        assert plans
        for plan in plans:
            scans = _scans(plan)
            assert "Seq Scan" not in {kind for kind, _ in scans}, scans
            # The primary key may join in (the notice sweep reads by key after the last batch).
            indexes = {index for _, index in scans} - {None}
            assert "hand_one_unfinished_per_table" in indexes and indexes <= {
                "hand_one_unfinished_per_table",
                "games_hand_pkey",
            }, scans
