"""A practice table under the house rule ``cut_required`` (docs/fairness.md "Protocol" 6): no browser may be there
to cut (computer players have no device), so its deals never wait for a cut, each deal's list closes in public
as at any table, and the pages say plainly that the server chose the order when nobody cut."""

from __future__ import annotations

import pytest

import engine
from games.models import CutList, DeckAhead, Hand, Table
from games.services import practice
from games.services.cuts import CutRefused, cut_take
from games.services.seating import table_new_game
from tests.games.cut_keys import registered
from tests.games.helpers import make_rule_set
from tests.games.practice_helpers import play_out


@pytest.mark.django_db(transaction=True)
def test_a_practice_table_with_cut_required_deals_on_without_waiting(club_setup, client_for) -> None:
    member = club_setup.members[0]
    device, _row = registered(member, 0)
    rules = make_rule_set(club_setup.club, club_setup.organiser, engine.PiranhaRules(cut_required=True), max_seats=4)
    table = practice.practice_open(
        club=club_setup.club,
        user=member,
        game="piranha",
        computers=2,
        strength="strong",
        rule_version_id=rules.versions.get().pk,
    )
    first = Hand.objects.get(table=table, number=1)  # dealt at once: nothing waited for a cut
    assert first.scheme == engine.SCHEME_CUT_V2 and first.cuts == []
    # Deal 2's list closed at deal 1 although empty (no waiting at practice); the member cuts deal 3.
    assert CutList.objects.get(deck__table=table, deck__number=2).cuts == []
    cut = device.cut_of(table, 3)
    cut_take(table_id=table.pk, user=member, number=3, device=cut["device"], signature=cut["signature"])
    with pytest.raises(CutRefused, match="closed"):
        late = device.cut_of(table, 2)
        cut_take(table_id=table.pk, user=member, number=2, device=late["device"], signature=late["signature"])
    for number in (1, 2, 3):
        table.refresh_from_db()
        if table.status == Table.Status.FINISHED:  # one alone stayed in: the game goes on at the same table
            table_new_game(table_id=table.pk, user=member)
        hand = play_out(table, member)
        assert hand.number == number
    assert not DeckAhead.objects.filter(table=table, wait_until__isnull=False).exists()  # no deal ever waited
    third = Hand.objects.get(table=table, number=3)
    assert len(third.cuts) == 1 and third.cuts[0]["member_id"] == member.pk
    page = client_for(member).get(f"/hands/{Hand.objects.get(table=table, number=2).pk}/").content.decode()
    assert "the club&#x27;s server chose its order" in page
