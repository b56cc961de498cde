"""The hand results' statement (clubhouse migration 0004, read once a hand) writes the rows that migration 0002's
(read once a seat) wrote, for real hands of both games: Piranha with its drop, Piles with its declarations, a
voided hand, and a practice table, whose rows the guard of migration 0003 keeps out."""

from __future__ import annotations

import random
from importlib import import_module
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction

import engine
from accounts.models import User
from clubhouse import results
from clubhouse.migrations import _week_sql as week_sql
from games.models import Hand, Table
from games.selectors.states import hand_state
from games.services import practice
from games.services.hands import hand_act
from games.services.voiding import hand_void
from ledger.services import LedgerError
from tests.clubhouse.play import play_table
from tests.conftest import _APP_CREDENTIALS, _connect_default_as
from tests.games.practice_helpers import plain_action, play_out

NEW = import_module("clubhouse.migrations.0004_hand_results_read_once")


def _body(function: str) -> str:
    """The statement a trigger function's SQL runs, between its BEGIN and its RETURN NULL."""
    return function.split("BEGIN", 1)[1].split("RETURN NULL;", 1)[0].strip().rstrip(";")


def _installed(cursor: Any) -> list[str]:
    """The words of the trigger function at work; its owner's rights and its settings checked."""
    cursor.execute("SELECT prosrc, prosecdef, proconfig FROM pg_proc WHERE proname = 'clubhouse_hand_finished'")
    source, definer, settings = cursor.fetchone()
    assert definer and "search_path=public, pg_temp" in settings
    return source.split()


def _migrate(target: str | None) -> None:
    owner = settings.DATABASES.get("owner")
    if owner:
        _connect_default_as({"USER": owner.get("USER"), "PASSWORD": owner.get("PASSWORD")})
    try:
        call_command("migrate", "clubhouse", *([target] if target else []), verbosity=0)
    finally:
        if owner:
            _connect_default_as(_APP_CREDENTIALS)


def _rows(cursor: Any, club_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    cursor.execute(
        "SELECT hand_id, club_id, user_id, game, seat, finished_at, decision, won, net FROM clubhouse_handresult"
        " WHERE hand_id IN (SELECT h.id FROM games_hand h "
        "JOIN games_table t ON t.id = h.table_id WHERE t.club_id = %s) ORDER BY hand_id, user_id",
        [club_id],
    )
    hand_rows = cursor.fetchall()
    cursor.execute(
        "SELECT club_id, user_id, game, week, hands, wins, net, biggest, stayed_in, stayed_in_won, high, high_won,"
        " low, low_won, pig, pig_won, last_win, last_miss FROM clubhouse_weekresult WHERE club_id = %s"
        " ORDER BY 1, 2, 3, 4",
        [club_id],
    )
    return hand_rows, cursor.fetchall()


def _replayed(function: str, club_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The club's rows as ``function``'s statement writes them: each finished hand's rows written again, in
    the order the hands finished, then the voided hands taken out of their weeks (the void trigger's own
    statement); in a transaction rolled back."""
    voided = _body(week_sql.VOIDED_TRIGGER.split("CREATE TRIGGER", 1)[0]).split(";\n")  # a DELETE, an INSERT
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.id, h.voided_at IS NOT NULL FROM games_hand h JOIN games_table t ON t.id = h.table_id "
            "WHERE t.club_id = %s AND h.finished_at IS NOT NULL ORDER BY h.finished_at, h.id",
            [club_id],
        )
        hands = cursor.fetchall()
        cursor.execute("DELETE FROM clubhouse_weekresult WHERE club_id = %s", [club_id])
        cursor.execute("DELETE FROM clubhouse_handresult WHERE hand_id = ANY(%s)", [[h for h, _ in hands]])
        for hand_id, _ in hands:
            cursor.execute(_body(function).replace("NEW.id", "%(hand)s"), {"hand": hand_id})
        for hand_id, was_voided in hands:
            for statement in voided if was_voided else ():
                cursor.execute(statement.replace("NEW.id", "%(hand)s"), {"hand": hand_id})
        rows = _rows(cursor, club_id)
        transaction.set_rollback(True)
    return rows


def _play_plainly(table: Table) -> Hand:
    """Play the hand being dealt at ``table`` to its end, every seat checking, calling and staying in."""
    hand = Hand.objects.get(table=table, finished_at__isnull=True)
    for _ in range(400):
        hand.refresh_from_db()
        if hand.is_finished:
            return hand
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        hand_act(
            hand_id=hand.pk,
            table_id=table.pk,
            user=User.objects.get(pk=hand.players[str(seat)]),
            action=engine.action_to_dict(plain_action(state, seat)),
            version=hand.version,
        )
    raise AssertionError("the hand did not end")


@pytest.mark.django_db(transaction=True)
def test_the_results_read_once_a_hand_are_the_rows_read_once_a_seat(club_setup) -> None:
    club, everyone = club_setup.club, club_setup.everyone
    rng = random.Random(20261206)
    piranha = play_table(
        club=club, organiser=club_setup.organiser, players=everyone, rules=engine.PiranhaRules(), rng=rng, hands=6
    )
    piles = play_table(
        club=club, organiser=club_setup.organiser, players=everyone, rules=engine.PilesRules(), rng=rng, hands=2
    )
    _play_plainly(piles)  # and one to its declarations
    # the latest hand whose pot carried into no later hand may be voided
    for hand in Hand.objects.filter(table__in=(piranha, piles), finished_at__isnull=False).order_by("-number"):
        try:
            hand_void(hand=hand, reason="Misdeal", ruled_by=club_setup.organiser)
            break
        except LedgerError:
            continue
    assert Hand.objects.filter(table__club=club, voided_at__isnull=False).exists()
    drill = practice.practice_open(club=club, user=everyone[1], game="piles", computers=2, strength="strong")
    practised = play_out(drill, everyone[1])

    finished = Hand.objects.filter(table__club=club, finished_at__isnull=False)
    kinds = {
        event["kind"]
        for hand in finished.exclude(table=drill)
        for action in hand.actions.all()
        for event in action.events
    }
    # both games' sealed decisions were opened, and some hands paid pots out
    assert {"drop_open", "declare_open", "award"} <= kinds
    assert finished.filter(table=piles).exists() and practised.is_finished

    with connection.cursor() as cursor:
        assert _installed(cursor) == NEW.FINISHED_FUNCTION_0004.split("$$")[1].split()
        live = _rows(cursor, club.pk)
    assert results.FILL == NEW.FILL_0004  # the backfill runs the trigger's statement

    hand_rows, week_rows = live
    # one row a player of every finished hand but the practice table's, several entries a member a hand
    assert len(hand_rows) == sum(len(h.players) for h in finished.exclude(table=drill))
    assert not [row for row in hand_rows if row[0] == practised.pk]
    assert {row[6] for row in hand_rows} >= {"in", "out"}
    assert any(row[7] > 0 for row in hand_rows) and any(row[8] < 0 for row in hand_rows)
    assert week_rows
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT max(n) FROM (SELECT count(*) AS n FROM ledger_journalentry je JOIN ledger_posting po"
            " ON po.entry_id = je.id JOIN ledger_account ac ON ac.id = po.account_id AND ac.kind = 'member'"
            " WHERE je.club_id = %s GROUP BY je.hand_id, ac.user_id) x",
            [club.pk],
        )
        assert cursor.fetchone()[0] >= 3  # a member's postings of several entries in one hand, summed
        cursor.execute(
            "SELECT count(*) FROM ledger_journalentry WHERE club_id = %s AND reverses_id IS NOT NULL", [club.pk]
        )
        assert cursor.fetchone()[0]  # the voided hand's reversals, left out of its rows

    old = _replayed(week_sql.FINISHED_FUNCTION_0002, club.pk)
    assert old == live
    assert _replayed(NEW.FINISHED_FUNCTION_0004, club.pk) == old


@pytest.mark.django_db(transaction=True)
def test_the_backfill_writes_the_rows_the_trigger_wrote(club_setup) -> None:
    club = club_setup.club
    play_table(
        club=club,
        organiser=club_setup.organiser,
        players=club_setup.everyone,
        rules=engine.PiranhaRules(),
        rng=random.Random(7),
        hands=3,
    )
    with connection.cursor() as cursor:
        live = _rows(cursor, club.pk)
        cursor.execute("DELETE FROM clubhouse_weekresult WHERE club_id = %s", [club.pk])
        cursor.execute("DELETE FROM clubhouse_handresult WHERE club_id = %s", [club.pk])
    results.hand_results_backfill(club_id=club.pk)
    with connection.cursor() as cursor:
        assert _rows(cursor, club.pk) == live
    assert live[0]


@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_to_the_statement_read_once_a_seat() -> None:
    old = week_sql.FINISHED_FUNCTION_0002.split("$$")[1].split()
    _migrate("0003_practice_results_guard")  # as the database's owner, as a deploy does
    try:
        with connection.cursor() as cursor:
            assert _installed(cursor) == old
    finally:
        _migrate(None)
    with connection.cursor() as cursor:
        assert _installed(cursor) == NEW.FINISHED_FUNCTION_0004.split("$$")[1].split()
        cursor.execute("SELECT proconfig FROM pg_proc WHERE proname = 'clubhouse_hand_finished'")
        assert "plan_cache_mode=force_generic_plan" in cursor.fetchone()[0]
