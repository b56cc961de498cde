"""Computer players on a real Celery worker: a member plays whole practice hands; every computer turn is
taken by the worker's ``computer_turn`` through ``hand_act``, once, and the books stay empty."""

from __future__ import annotations

import time

import pytest
from django.db import connections

import engine
from clubhouse.models import HandResult
from games.models import Hand, HandAction
from games.selectors.states import hand_state
from games.services import practice
from games.services.after_commit import turn_work_flush
from games.services.hands import hand_act
from ledger.models import JournalEntry
from tests.games.celery_worker import start_worker
from tests.games.practice_helpers import plain_action

pytestmark = [pytest.mark.celery]


@pytest.fixture(autouse=True)
def close_thread_connections():
    yield
    connections.close_all()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_the_worker_plays_the_computers_turns_and_the_member_finishes_a_hand(club_setup, procs, tmp_path, game) -> None:
    member = club_setup.members[0]
    procs.append(start_worker(tmp_path, PRACTICE_PAUSE_SECONDS="0.2"))
    table = practice.practice_open(club=club_setup.club, user=member, game=game, computers=3, strength="solid")
    first = Hand.objects.get(table=table)
    mine = next(int(s) for s, u in first.players.items() if u == member.pk)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        first.refresh_from_db()
        if first.is_finished:
            break
        state = hand_state(first)
        if mine in engine.to_act(state):
            hand_act(
                hand_id=first.pk,
                table_id=table.pk,
                user=member,
                action=plain_action(state, mine),
                version=first.version,
            )
        time.sleep(0.2)
    turn_work_flush()
    assert first.is_finished, procs[0].text()[-3000:]
    machines = {int(s) for s, u in first.players.items() if u != member.pk}
    acted = list(HandAction.objects.filter(hand=first, seat__in=machines, is_timeout=False))
    assert acted, "the computers took their turns on the worker"
    assert all(a.user_id == int(first.players[str(a.seat)]) for a in acted)
    assert not HandAction.objects.filter(hand=first, is_timeout=True).exists()
    assert not JournalEntry.objects.exists() and not HandResult.objects.exists()
