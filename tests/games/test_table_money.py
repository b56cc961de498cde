"""Money at the table: each seat's club balance and net for this sitting, read for all seats at once."""

from __future__ import annotations

import re

import pytest

import engine
from games import services
from games.models import Seat
from games.selectors.snapshot import table_snapshot_read
from ledger.selectors import table_seat_money
from tests.games.helpers import make_table


def money_of(table):
    seats = list(Seat.objects.filter(table=table, left_at__isnull=True))
    return {
        u: (m.balance, m.sitting_net)
        for u, m in table_seat_money(
            club_id=table.club_id, table_id=table.pk, sittings={s.user_id: s.accepted_at for s in seats}
        ).items()
    }


@pytest.mark.django_db
def test_each_seat_has_its_balance_and_sitting_net_in_one_query(
    club_setup, client_for, django_assert_num_queries
) -> None:
    a, b, c = club_setup.members
    other = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=10), players=[b, a])
    hand = services.table_start(table_id=other.pk, user=b)
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "out"}, version=1)  # b takes 20

    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "out"}, version=1)
    services.hand_act(hand_id=hand.pk, user=c, action={"type": "out"}, version=2)  # a takes 75

    seats = list(Seat.objects.filter(table=table, left_at__isnull=True))
    with django_assert_num_queries(1):
        table_seat_money(club_id=table.club_id, table_id=table.pk, sittings={s.user_id: s.accepted_at for s in seats})
    # The balance counts every table; the sitting's net only this one.
    assert money_of(table) == {a.pk: (-10 + 50, 50), b.pk: (10 - 25, -25), c.pk: (-25, -25)}
    # The table area reads the same money within its seats statement (ledger.selectors.seat_money_join).
    shown = table_snapshot_read(table_id=table.pk)
    assert shown is not None
    assert {u: (m.balance, m.sitting_net) for u, m in shown.seat_money.items()} == money_of(table)

    html = client_for(c).get(f"/tables/{table.pk}/").content.decode()
    row = re.search(r'<li class="seat[^"]*" data-seat="2">(.*?)</li>', html, re.S)
    assert row is not None and "balance -$0.15 · this sitting -$0.25" in " ".join(row.group(1).split())


@pytest.mark.django_db
def test_a_new_sitting_starts_at_zero(club_setup) -> None:
    a, b, _c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "out"}, version=1)
    assert money_of(table)[b.pk] == (-25, -25)
    from django.utils import timezone

    Seat.objects.filter(table=table, user=b).update(accepted_at=timezone.now())
    assert money_of(table)[b.pk] == (-25, 0)


@pytest.mark.django_db
def test_nobody_seated_reads_nothing(club_setup, django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        assert table_seat_money(club_id=club_setup.club.pk, table_id=1, sittings={}) == {}
