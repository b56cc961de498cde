"""Money in table pots is not settled in cash: the balance sheet and Settle up name the tables that hold
it, link to them, and say how it comes back (play there goes on, or an organiser closes the table)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Seat
from ledger.selectors import TablePot, pots_by_table
from ledger.services import ledger_post_hand_events

from .helpers import make_hand, make_table

pytestmark = pytest.mark.django_db


def _pot_where_everyone_sits_out(setup):
    """Ann, Ben and Cy have put 74 cents into the pot of 'Friday', and all three sit out there now."""
    ann, ben, cy = setup.members
    table = make_table(setup.club, setup.organiser)
    table.name = "Friday"
    table.save(update_fields=["name"])
    hand = make_hand(table, [ann, ben, cy])
    ledger_post_hand_events(
        hand=hand,
        seat_users={0: ann, 1: ben, 2: cy},
        created_by=None,
        events=[
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "ante", "seat": 2, "amount": 24},
        ],
    )
    for number, user in enumerate((ann, ben, cy), start=1):
        Seat.objects.create(
            table=table,
            user=user,
            number=number,
            accepted_version=table.rule_version,
            accepted_at=timezone.now(),
            sitting_out=True,
        )
    return table


def test_the_pots_are_listed_by_table_with_why_the_money_sits_there(club_setup):
    table = _pot_where_everyone_sits_out(club_setup)
    assert pots_by_table(club=club_setup.club) == [
        TablePot(table_id=table.pk, name="Friday", amount=74, state="sitting_out")
    ]
    Seat.objects.filter(table=table).update(left_at=timezone.now())
    assert pots_by_table(club=club_setup.club)[0].state == "empty"


@pytest.mark.parametrize("page", ["ledger:balance_sheet", "ledger:settle"])
def test_the_pages_point_to_the_table_and_say_how_the_money_comes_back(club_setup, client_for, page):
    table = _pot_where_everyone_sits_out(club_setup)
    url = reverse(page, args=[club_setup.club.pk])
    body = client_for(club_setup.members[0]).get(url).content.decode()
    assert f'<a href="/tables/{table.pk}/">Friday</a> holds 0.74' in body
    assert "Everyone there sits out" in body and "it comes back when players sit in and play on there" in body
    assert "when an organiser closes the table: its pot then goes back to the members who paid it." in body
    assert f"/tables/{table.pk}/close/" not in body  # a member may not close it
    organiser = client_for(club_setup.organiser).get(url).content.decode()
    assert f'<a href="/tables/{table.pk}/close/">Close Friday</a>' in organiser
