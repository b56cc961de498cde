"""Twenty conflicting actions at once on one hand, over real parallel PostgreSQL connections: one wins."""

from __future__ import annotations

from functools import partial

import pytest

import engine
from games import services
from games.models import HandAction
from ledger.models import JournalEntry
from tests.games.helpers import make_table, race


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_conflicting_actions_apply_exactly_one(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    actor = b  # the button is seat 1, so seat 2 acts first
    actions = [{"type": "check"}, {"type": "bet", "amount": 25}, {"type": "fold"}, {"type": "bet"}]
    done = race(
        [
            (action, partial(services.hand_act, hand_id=hand.pk, user=actor, action=action, version=0))
            for action in (actions[k % len(actions)] for k in range(20))
        ]
    )
    applied, refused = done.went_through, done.refused
    assert not done.errors, done.errors
    assert len(applied) == 1 and len(refused) == 19
    assert set(refused) == {"The table moved on; here is the current state."}
    hand.refresh_from_db()
    assert hand.version == 1
    assert HandAction.objects.filter(hand=hand).count() == 1
    bets = JournalEntry.objects.filter(hand=hand, kind="bet").count()
    assert bets == (1 if applied[0]["type"] == "bet" else 0)
