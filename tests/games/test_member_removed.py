"""A member removed from the club while seated: their turns take the default at once, they are dealt
out of the next hand (no ante charged) and their seats are left (accounts/services.py membership_remove)."""

from __future__ import annotations

import pytest

import engine
from accounts.models import Membership
from accounts.services import membership_remove
from games import services
from games.models import Hand, HandAction, Seat
from ledger.services import balance_of
from tests.games.async_helpers import seat_of
from tests.games.helpers import make_table


def remove(club_setup, user) -> None:
    membership = Membership.objects.get(club=club_setup.club, user=user)
    membership_remove(club_id=club_setup.club.pk, membership_id=membership.pk, by=club_setup.organiser)


@pytest.mark.django_db
def test_a_member_removed_mid_hand_does_not_stall_it_and_is_not_dealt_the_next(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    c_seat = seat_of(hand, c)
    c_balance = balance_of(club=club_setup.club, user=c)
    assert c_balance < 0  # the first hand's ante
    remove(club_setup, c)
    hand.refresh_from_db()
    # c's sealed drop waits like any undecided seat while the others still decide (a default taken at once would
    # show by its moment); it takes the default (out) as soon as they have, logged as a timeout.
    assert not HandAction.objects.filter(hand=hand).exists()
    assert c_seat in engine.to_act(engine.state_from_json(hand.state))
    seat = Seat.objects.get(table=table, user=c)
    assert seat.sitting_out and seat.left_at is None  # dealt into the hand being played
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "out"}, version=hand.version)
    hand.refresh_from_db()
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "out"}, version=hand.version)
    row = HandAction.objects.get(hand=hand, seat=c_seat)
    assert (row.action, row.is_timeout) == ({"type": "out"}, True)
    # Nobody in: the pot carries to a fresh deal, without c and without charging c an ante.
    following = Hand.objects.get(table=table, number=2)
    assert str(c_seat) not in following.players and set(following.players.values()) == {a.pk, b.pk}
    assert balance_of(club=club_setup.club, user=c) == c_balance
    assert Seat.objects.get(table=table, user=c).left_at is not None


@pytest.mark.django_db
def test_a_removed_members_seat_at_a_waiting_table_is_left_at_once(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    remove(club_setup, c)
    assert Seat.objects.get(table=table, user=c).left_at is not None
    hand = services.table_start(table_id=table.pk, user=a)
    assert set(hand.players.values()) == {a.pk, b.pk}


@pytest.mark.django_db
def test_the_deal_skips_a_seat_whose_member_left_the_club_by_any_path(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    Membership.objects.filter(club=club_setup.club, user=c).delete()  # not through the service
    hand = services.table_start(table_id=table.pk, user=a)
    assert set(hand.players.values()) == {a.pk, b.pk}
    assert Seat.objects.get(table=table, user=c).left_at is not None
