"""The log's timeout marks come with the hand row (``Hand.timeouts``, kept by the step that timed out), so a
version's frames read no log: the mark lands on the timed-out action's first line, once, and migration 0014
fills the same marks for hands played before it."""

from __future__ import annotations

import importlib
import json
import re

import pytest
from django.db import connection
from django.utils import timezone

import engine
from games import services
from games.live.render import public_frame
from games.models import Hand
from games.presentation.presenters import TIMEOUT_MARK
from games.selectors.snapshot import table_snapshot_read
from games.services.hands import hand_apply_timeout
from tests.games.async_helpers import awaited, expire, user_at
from tests.games.helpers import make_table


def _log(hand: Hand) -> list[str]:
    snapshot = table_snapshot_read(table_id=hand.table_id, hand_id=hand.pk)
    assert snapshot is not None
    html = json.loads(public_frame(snapshot))["html"]
    block = re.search(r'<section class="log".*?<ol>(.*?)</ol>', html, re.S)
    assert block, "no log"
    return [" ".join(re.sub(r"<[^>]+>", "", li).split()) for li in re.findall(r"<li>(.*?)</li>", block.group(1), re.S)]


@pytest.mark.django_db
def test_a_timed_out_fold_is_marked_on_its_own_line_and_the_migration_finds_the_same_marks(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    first = awaited(hand)[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, first), action={"type": "bet", "amount": 25}, version=0)
    late = awaited(hand)[0]
    expire(hand, [late])
    assert hand_apply_timeout(hand_id=hand.pk, version=1) is True
    hand.refresh_from_db()
    assert not hand.is_finished

    lines = _log(hand)
    marked = [i for i, line in enumerate(lines) if TIMEOUT_MARK in line]
    assert marked == [len(hand.deal_events) + 1], lines  # the deal's lines, the bet, then the fold
    assert lines[marked[0]] == f"{user_at(hand, late).shown_name} folds. {TIMEOUT_MARK}"
    assert hand.timeouts == [[len(hand.deal_events) + 1, "fold"]]

    fill = importlib.import_module("games.migrations.0014_hand_timeouts")._FILL
    Hand.objects.filter(pk=hand.pk).update(timeouts=[])
    with connection.cursor() as cursor:
        cursor.execute(fill)
    hand.refresh_from_db()
    assert hand.timeouts == [[len(hand.deal_events) + 1, "fold"]]


def _public(hand: Hand) -> dict:
    snapshot = table_snapshot_read(table_id=hand.table_id, hand_id=hand.pk)
    assert snapshot is not None
    return json.loads(public_frame(snapshot))


def _public_text(hand: Hand) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", _public(hand)["html"]).split())


@pytest.mark.django_db
def test_a_drop_whose_clock_ran_out_keeps_waiting_until_the_decisions_open_together(club_setup) -> None:
    """Piranha's drop (piranha.txt 3.1; docs/design.md: a timed-out drop is "out"). Seat 1's clock runs out while
    the others still have time (quiet hours make clocks differ): nothing changes at that moment, in the state,
    the version, the frames or the log, so nobody can tell it timed out. Its default is taken when the last of
    the others decides, and only then is the log's line marked."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    assert sorted(awaited(hand)) == [1, 2, 3]
    before = (hand.version, _public(hand)["html"], hand.private_marks)
    expire(hand, [1])
    assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False
    hand.refresh_from_db()
    assert (hand.version, _public(hand)["html"], hand.private_marks) == before
    assert sorted(awaited(hand)) == [1, 2, 3] and hand.timeouts == []
    assert hand.deadline > timezone.now()  # the alarm waits for the last clock, not the one that ran out
    assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False  # the sweep again: still nothing

    services.hand_act(hand_id=hand.pk, user=user_at(hand, 2), action={"type": "in"}, version=hand.version)
    hand.refresh_from_db()
    text = _public_text(hand)
    assert sorted(awaited(hand)) == [1, 3] and f"{user_at(hand, 2).shown_name} has decided." in text
    assert f"{user_at(hand, 1).shown_name} has decided." not in text
    assert engine.view(engine.state_from_json(hand.state), None).seat_view(1).decision == "waiting"

    services.hand_act(hand_id=hand.pk, user=user_at(hand, 3), action={"type": "in"}, version=hand.version)
    hand.refresh_from_db()
    state = engine.state_from_json(hand.state)
    assert state.phase != "drop"  # opened together, seat 1 out by default
    assert state.decisions[0] == "out"
    lines = _log(hand)
    assert any(
        line.startswith(f"{user_at(hand, 1).shown_name} has decided.") and TIMEOUT_MARK in line for line in lines
    )


@pytest.mark.django_db
def test_when_every_clock_of_a_sealed_decision_has_run_out_the_defaults_open_together(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=user_at(hand, 2), action={"type": "in"}, version=hand.version)
    expire(hand, [1])
    assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False
    expire(hand, [1, 3])
    assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is True
    hand.refresh_from_db()
    state = engine.state_from_json(hand.state)
    assert state.decisions[0] == "out" and state.decisions[2] == "out"  # seat 2 alone in: it takes the pot
    assert hand.is_finished
