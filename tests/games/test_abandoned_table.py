"""A table nobody plays stops dealing: no ante is charged for a game its players have left."""

from __future__ import annotations

import pytest

import engine
from games import services
from games.models import Hand, Table
from ledger.models import JournalEntry
from tests.games.async_helpers import awaited, expire, user_at
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db


def _time_out_everyone(hand: Hand) -> None:
    while awaited(hand):
        expire(hand)
        assert services.hand_apply_timeout(hand_id=hand.pk, version=hand.version) is True


@pytest.mark.parametrize("rules", [engine.PiranhaRules(), engine.PilesRules()], ids=["piranha", "piles"])
def test_a_hand_where_every_clock_ran_out_stops_the_table(club_setup, client_for, rules) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, rules, players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    entries = JournalEntry.objects.count()

    _time_out_everyone(hand)

    table.refresh_from_db()
    assert Hand.objects.filter(table=table).count() == 1, "no hand is dealt after one nobody played"
    assert table.status == Table.Status.OPEN and table.stopped_at_hand == 1
    antes = JournalEntry.objects.filter(kind="ante").count()
    assert JournalEntry.objects.count() >= entries and antes == 3, "nobody pays another ante"
    lobby = client_for(b).get(f"/clubs/{club_setup.club.pk}/tables/").content.decode()
    assert "nobody played hand 1" in lobby
    page = client_for(b).get(f"/tables/{table.pk}/").content.decode()
    assert "Nobody played hand 1" in page

    again = services.table_start(table_id=table.pk, user=b)
    table.refresh_from_db()
    assert again.number == 2 and table.status == Table.Status.RUNNING and table.stopped_at_hand is None


def test_a_hand_where_one_player_acted_deals_the_next(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    first = awaited(hand)[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, first), action={"type": "out"}, version=0)
    hand.refresh_from_db()
    _time_out_everyone(hand)

    table.refresh_from_db()
    assert Hand.objects.filter(table=table).count() == 2
    assert table.status == Table.Status.RUNNING and table.stopped_at_hand is None
