"""The last hand shown beside the hand being played is named by the seats statement (its id, version and voiding)
and read once a process, not at every version (games/selectors/snapshot.py ``_previous_hand``): each later
version's read is the seats statement alone, its frames byte for byte those read afresh, and a voiding of the
last hand shows in the next version's frame."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import engine
from games.live import render
from games.models import Hand
from games.presentation import area
from games.selectors import snapshot as snapshots
from games.selectors.advance import advance_rows
from games.selectors.states import hand_state
from games.services.voiding import hand_void
from ledger.services import LedgerError
from tests.games.helpers import act_at_random, three_players_started


def _published(table_id: int) -> tuple[Any, int]:
    """The table's newest hand read as the committing transaction holds it (its advance actions with it), its
    snapshot as the publisher makes it (``table_snapshot_of``), and how many statements that sent."""
    hand = (
        Hand.objects.select_related("table__club", "rule_version__rule_set")
        .filter(table_id=table_id)
        .order_by("-number")
        .first()
    )
    assert hand is not None
    carried = snapshots.Carried(advance_rows=advance_rows(hand_id=hand.pk))  # the action's statements saw them
    with CaptureQueriesContext(connection) as ctx:
        found = snapshots.table_snapshot_of(hand=hand, state=hand_state(hand), carried=carried)
    return found, len(ctx.captured_queries)


def _afresh(table_id: int) -> str:
    """The public frame read and rendered with nothing kept."""
    snapshots._PREVIOUS_HANDS._entries.clear()
    area._PREVIOUS_HANDS._entries.clear()
    found = snapshots.table_snapshot_read(table_id=table_id)
    assert found is not None
    return render.public_frame(found)


def _values(hand: Hand | None) -> dict[str, Any] | None:
    """The previous hand's columns, its state as the area reads it (a kept row holds none: ``previous_hand_state``
    reads it again)."""
    if hand is None:
        return None
    values = {name: getattr(hand, name) for name in snapshots._HAND.names if name != "state"}
    return values | {"state": engine.state_to_json(snapshots.previous_hand_state(copy.copy(hand)))}


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_a_version_after_the_first_reads_the_seats_alone_and_shows_the_last_hand_as_read_afresh(
    club_setup, rules: engine.Rules
) -> None:
    table, players = three_players_started(club_setup, rules)
    rng = random.Random(5)
    kept = 0
    for _ in range(80):
        before = _published(table.pk)[0]
        found, statements = _published(table.pk)  # the same version again: the last hand is known here now
        if before.previous is not None:
            assert statements == 1, "the last hand was read again"
            kept += 1
        assert _values(found.previous) == _values(before.previous)
        frame = render.public_frame(found)
        if found.previous is not None:
            # The kept row holds no state: its section rendered anew reads it again, and shows the same.
            area._PREVIOUS_HANDS._entries.clear()
            assert render.public_frame(_published(table.pk)[0]) == frame
        assert frame == _afresh(table.pk)
        fresh = snapshots.table_snapshot_read(table_id=table.pk)
        assert fresh is not None and _values(fresh.previous) == _values(found.previous)
        if not act_at_random(table.pk, players, rng):
            break
    assert kept > 5, "the game never showed a last hand"


@pytest.mark.django_db
def test_the_last_hand_voided_while_the_next_is_played_shows_voided_in_the_next_version(club_setup) -> None:
    table, players = three_players_started(club_setup, engine.PilesRules())
    rng = random.Random(3)
    while True:  # a last hand whose pot carried into the next can't be voided: play on to one that can
        shown = _published(table.pk)[0]  # the last hand, if any, now kept
        previous = shown.previous
        try:
            if previous is not None:
                ruled = Hand.objects.get(pk=previous.pk)  # as the ruling's page reads it
                hand_void(hand=ruled, reason="Misdeal: two cards face up", ruled_by=club_setup.organiser)
                break
        except LedgerError:  # its pot carried into the hand after it
            pass
        assert act_at_random(table.pk, players, rng), "no last hand could be voided"
    assert shown.previous.voided_at is None
    found, _ = _published(table.pk)
    assert found.previous is not None and found.previous.voided_at is not None
    assert json.loads(render.public_frame(found))["html"] == json.loads(_afresh(table.pk))["html"]
    assert "Voided" in json.loads(render.public_frame(found))["html"]


@pytest.mark.django_db
def test_a_table_keeps_one_last_hand_however_many_hands_it_plays(club_setup) -> None:
    """The hands before the last are never shown again, so the process keeps none of them; and the kept row
    holds no decoded state (most of a row): the area renders the last hand's section once per process."""
    table, players = three_players_started(club_setup, engine.PilesRules())
    snapshots._PREVIOUS_HANDS._entries.clear()
    rng = random.Random(3)
    shown: set[int] = set()
    for _ in range(400):
        found, _ = _published(table.pk)
        if found.previous is not None:
            shown.add(found.previous.pk)
        if len(shown) >= 3 or not act_at_random(table.pk, players, rng):
            break
    assert len(shown) >= 3, "the table did not play three hands"
    assert [table_id for table_id, _kept in snapshots._PREVIOUS_HANDS._entries.items()] == [table.pk]
    assert [kept.state for _key, kept in snapshots._PREVIOUS_HANDS._entries.values()] == [None]
