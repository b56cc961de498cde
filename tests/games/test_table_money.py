"""Money at the table: each seat's club balance and net for this sitting, read with the seats in one statement."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

import engine
from games import services
from games.models import Seat, Table
from games.selectors import snapshot
from games.selectors.snapshot import table_snapshot_read
from ledger.models import Account, Posting
from ledger.services import account_for_table_pot, member_accounts
from tests.games.helpers import analyse_as_autovacuum, books_history, make_table


def money_of(table: Table) -> dict[int, tuple[int, int]]:
    """The oracle, from the books by the ORM: each seated member's club balance and the sum of their postings at
    the table since they took the seat (members with no account yet left out)."""
    money = {}
    for seat in Seat.objects.filter(table=table, left_at__isnull=True):
        account = Account.objects.filter(club_id=table.club_id, kind=Account.Kind.MEMBER, user=seat.user_id).first()
        if account is not None:
            net = account.postings.filter(table=table, created_at__gte=seat.accepted_at).aggregate(n=Sum("amount"))
            money[seat.user_id] = (account.balance, int(net["n"] or 0))
    return money


def shown_money(table: Table) -> dict[int, tuple[int, int]]:
    shown = table_snapshot_read(table_id=table.pk)
    assert shown is not None
    return {u: (m.balance, m.sitting_net) for u, m in shown.seat_money.items()}


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

    with django_assert_num_queries(1):
        seats, _money, _previous = snapshot._seats_read(table.pk, table.club_id, 0)
    assert [s.user_id for s in seats] == [a.pk, b.pk, c.pk]
    # The balance counts every table; the sitting's net only this one.
    assert money_of(table) == {a.pk: (-10 + 50, 50), b.pk: (10 - 25, -25), c.pk: (-25, -25)}
    assert shown_money(table) == money_of(table)

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
    assert shown_money(table)[b.pk] == money_of(table)[b.pk] == (-25, -25)

    Seat.objects.filter(table=table, user=b).update(accepted_at=timezone.now())
    assert shown_money(table)[b.pk] == money_of(table)[b.pk] == (-25, 0)


@pytest.mark.django_db
def test_seats_with_no_account_show_no_money_and_a_table_nobody_sits_at_none(
    club_setup, django_assert_num_queries
) -> None:
    a, b, _c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    empty = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25))
    assert shown_money(table) == money_of(table) == {}
    with django_assert_num_queries(1):
        assert snapshot._seats_read(empty.pk, empty.club_id, 0) == ([], {}, None)


def _postings_read(plan: dict[str, Any]) -> int:
    """The ledger_posting rows a plan's nodes looked at: those they returned and those they read and dropped."""
    seen = 0
    if plan.get("Relation Name") == "ledger_posting":
        looked = ("Actual Rows", "Rows Removed by Filter", "Rows Removed by Index Recheck")
        seen += sum(int(plan.get(k, 0)) for k in looked) * int(plan.get("Actual Loops", 1))
    return seen + sum(_postings_read(child) for child in plan.get("Plans", []))


def _plan(sql: str, params: list[int], mode: str) -> dict[str, Any]:
    """The plan PostgreSQL runs ``sql`` by, prepared as the site prepares a statement it repeats (psycopg binds on
    the server), planned for these values (``force_custom_plan``) or for any (``force_generic_plan``, as
    PostgreSQL may keep after five runs)."""
    numbers = iter(range(1, 100))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL plan_cache_mode = {mode}")
        cursor.execute("PREPARE seats_read AS " + re.sub("%s", lambda _: f"${next(numbers)}", sql))
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE seats_read({', '.join(str(int(p)) for p in params)})")
        found = cursor.fetchone()[0]
        cursor.execute("DEALLOCATE seats_read")
    return (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["force_custom_plan", "force_generic_plan"])
def test_the_seats_money_reads_only_the_postings_of_this_sitting(club_setup, mode: str) -> None:
    """Read with every version of a hand, the seats statement's cost must not grow with the club's books: the
    members' postings at other tables, and at this table before they sat, are not read (the sitting index,
    docs/live.md "Machinery"), whether PostgreSQL plans it for the values or keeps a generic plan."""
    a, b, _c = club_setup.members
    club_id = club_setup.club.pk
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    other = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25))
    accounts = list(member_accounts(club=club_setup.club, users=[a, b]).values())
    sat = Seat.objects.filter(table=table).earliest("accepted_at").accepted_at
    books_history(club_id, accounts, account_for_table_pot(table=table), table, sat - timedelta(days=1), 100)
    books_history(club_id, accounts, account_for_table_pot(table=other), other, sat - timedelta(days=1), 300)
    books_history(club_id, accounts, account_for_table_pot(table=other), other, timezone.now(), 300)
    hand = services.table_start(table_id=table.pk, user=a)  # two antes
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "out"}, version=1)  # a takes the pot
    this_sitting = Posting.objects.filter(account__in=accounts, table=table, created_at__gte=sat).count()
    assert this_sitting == 3

    analyse_as_autovacuum("ledger_posting")
    plan = _plan(snapshot._SEATS_AND_PREVIOUS_SQL, [table.pk, club_id, table.pk, table.pk, hand.number + 1], mode)
    # EXPLAIN gives a node's rows a loop rounded (one loop a seat): up to one more a seat. The history: 2,800.
    assert this_sitting <= _postings_read(plan) <= this_sitting + 2, json.dumps(plan, indent=1)
    assert shown_money(table) == money_of(table) == {a.pk: (-3500 - 25 + 50, 25), b.pk: (-3500 - 25, -25)}
