"""The engine state an action starts from: a version this process committed is taken as it was committed (not
parsed again); a version written by a transaction that rolled back is never taken."""

from __future__ import annotations

import pytest
from django.db import transaction

import engine
from games import services
from games.models import Hand
from games.selectors.snapshot import table_snapshot_read
from games.selectors.states import hand_state
from games.services.locking import hand_state_committed
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_piranha_game import BOARD_1, HOLES_1


def piranha_hand(setup) -> Hand:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    return services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))


@pytest.mark.django_db(transaction=True)
def test_the_state_of_a_committed_action_is_the_one_the_next_action_starts_from(club_setup) -> None:
    a = club_setup.members[0]
    hand = piranha_hand(club_setup)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    stored = Hand.objects.get(pk=hand.pk)
    held = hand_state(stored)
    assert held == engine.state_from_json(stored.state)
    assert hand_state(Hand.objects.get(pk=hand.pk)) is held  # kept, not parsed again
    snapshot = table_snapshot_read(table_id=stored.table_id, hand_id=hand.pk)
    assert snapshot is not None and snapshot.state is held  # the table area's snapshot of it too


@pytest.mark.django_db(transaction=True)
def test_a_state_written_by_a_transaction_that_rolled_back_is_never_taken(club_setup) -> None:
    a = club_setup.members[0]
    hand = piranha_hand(club_setup)
    before = Hand.objects.get(pk=hand.pk)
    moved, _ = engine.apply(engine.state_from_json(before.state), 1, engine.action_from_dict({"type": "in"}))
    with pytest.raises(RuntimeError), transaction.atomic():
        locked = Hand.objects.select_for_update().get(pk=hand.pk)
        locked.version += 1
        hand_state_committed(hand=locked, state=moved)
        raise RuntimeError("rolled back")
    services.hand_act(hand_id=hand.pk, user=club_setup.members[1], action={"type": "out"}, version=0)
    after = Hand.objects.get(pk=hand.pk)
    assert after.version == 1
    assert hand_state(after) == engine.state_from_json(after.state) != moved
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=1)
    assert Hand.objects.get(pk=hand.pk).version == 2
