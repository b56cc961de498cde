"""My tables: every open or running table of my clubs where I sit, what needs me first (the selector, the
page, its block, the lobby's first block, the header's count), in bounded queries."""

from __future__ import annotations

import re

import pytest
from django.test import Client

import engine
from accounts.models import Membership, User
from games import services
from games.models import Hand, Table
from games.presentation.mine import my_tables_shown
from games.selectors.mine import my_tables
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.games.async_helpers import awaited, expire, user_at
from tests.games.helpers import make_table

RULES = engine.PiranhaRules(betting_round=True)  # every seat checks once: the turn can be steered


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def started_until_turn_of(table: Table, user: User, starter: User) -> Hand:
    """Start ``table`` and check round the seats until ``user`` is awaited."""
    hand = services.table_start(table_id=table.pk, user=starter)
    while user.pk not in {user_at(hand, s).pk for s in awaited(hand)}:
        services.hand_act(
            hand_id=hand.pk, user=user_at(hand, awaited(hand)[0]), action={"type": "check"}, version=hand.version
        )
    return hand


@pytest.fixture
def tables(club_setup):
    """Tables of two clubs of a's, and some a must not see."""
    a, b, c = club_setup.members
    club1, org1 = club_setup.club, club_setup.organiser
    club2 = ClubFactory()
    org2 = MembershipFactory(club=club2, role=Membership.Role.ORGANISER).user
    for user in (a, b):
        MembershipFactory(club=club2, user=user)
    gone = ClubFactory()  # a club a leaves, a table where a still holds a seat
    org3 = MembershipFactory(club=gone, role=Membership.Role.ORGANISER).user
    for user in (a, b):
        MembershipFactory(club=gone, user=user)
    left = make_table(gone, org3, RULES, players=[a, b])
    started_until_turn_of(left, a, a)
    Membership.objects.filter(club=gone, user=a).delete()

    idle = make_table(club1, org1, RULES, players=[a, c])  # open, no hand yet
    not_mine = make_table(club1, org1, RULES, players=[b, c])
    started_until_turn_of(not_mine, b, b)
    other = make_table(club2, org2, RULES, players=[a, b])
    started_until_turn_of(other, b, a)
    later = make_table(club1, org1, RULES, players=[a, b])
    started_until_turn_of(later, a, a)
    sooner = make_table(club2, org2, RULES, players=[b, a])
    soon_hand = started_until_turn_of(sooner, a, a)
    expire(soon_hand, ago=-60)  # its clock runs out in a minute: before the other's
    return {"sooner": sooner, "later": later, "other": other, "idle": idle, "not_mine": not_mine, "left": left}


@pytest.mark.django_db
def test_my_tables_lists_mine_across_clubs_what_needs_me_first(club_setup, tables) -> None:
    a, b, c = club_setup.members
    rows = my_tables(user=a)
    assert [r.table.pk for r in rows] == [tables[k].pk for k in ("sooner", "later", "other", "idle")]
    assert [r.my_turn for r in rows] == [True, True, False, False]
    first = rows[0]
    assert first.to_act_names == [a.shown_name] and first.deadline is not None and first.pot == 2 * RULES.ante
    assert first.last_event is not None and my_tables_shown(user=a)[0].last_words  # the public log's last line
    assert rows[2].to_act_names == [b.shown_name] and rows[2].deadline is not None  # b's clock: not sealed
    assert rows[3].hand is None and rows[3].deadline is None
    assert {r.table.pk for r in my_tables(user=c)} == {tables["idle"].pk, tables["not_mine"].pk}


@pytest.mark.django_db
def test_my_tables_reads_in_bounded_queries(club_setup, tables, django_assert_max_num_queries) -> None:
    with django_assert_max_num_queries(4):  # tables, hands, last actions, names: whatever their number
        rows = my_tables(user=club_setup.members[0])
    assert len(rows) == 4


@pytest.mark.django_db
def test_the_page_and_block_show_only_my_own(club_setup, tables) -> None:
    a, _b, c = club_setup.members
    for path in ("/tables/mine/", "/tables/mine/block/"):
        assert Client().get(path).status_code == 302  # to the login page
        assert logged_in(a).post(path).status_code == 405
    page = logged_in(a).get("/tables/mine/").content.decode()
    shown = [int(n) for n in re.findall(r'data-table-id="(\d+)"', page)]
    assert shown == [tables[k].pk for k in ("sooner", "later", "other", "idle")]
    block = logged_in(c).get("/tables/mine/block/").content.decode()
    assert block.startswith('<section id="my-tables-live"')
    assert {int(n) for n in re.findall(r'data-table-id="(\d+)"', block)} == {tables["idle"].pk, tables["not_mine"].pk}
    assert "You sit at no open table." in logged_in(club_setup.outsider).get("/tables/mine/").content.decode()


@pytest.mark.django_db
def test_the_lobby_opens_with_my_tables_of_every_club(club_setup, tables) -> None:
    a = club_setup.members[0]
    page = logged_in(a).get(f"/clubs/{club_setup.club.pk}/tables/").content.decode()
    mine, rest = page.split("Every table here", 1)
    assert 'id="my-tables-live"' in mine and f'data-table-id="{tables["sooner"].pk}"' in mine  # another club's
    assert f'href="/tables/{tables["sooner"].pk}/"' not in rest


@pytest.mark.django_db
def test_the_header_counts_the_tables_waiting_for_me(club_setup, tables) -> None:
    a, _b, c = club_setup.members
    page = logged_in(a).get("/tables/mine/").content.decode()
    assert re.search(r'id="tables-waiting">2 waiting<', page)
    assert 'href="/tables/mine/"' in page
    assert 'id="tables-waiting"' not in logged_in(c).get("/tables/mine/").content.decode()


@pytest.mark.django_db
def test_the_header_the_digest_and_the_summary_read_one_list_of_hands_waiting_for_me(club_setup, tables) -> None:
    """games/selectors/mine.py ``hands_waiting_for``: the hands awaiting the member at tables of their clubs
    (not the club they left), soonest clock first; the digest and a club's summary show the same tables."""
    from clubhouse.selectors import summary_since
    from games.selectors.mine import hands_waiting_for, tables_my_turn
    from notices.services.digest import tables_waiting_for

    a, b, _c = club_setup.members
    waiting = hands_waiting_for(user=a)
    assert [w.hand.table.pk for w in waiting] == [tables["sooner"].pk, tables["later"].pk]
    assert [w.seat for w in waiting] == [hand_seat(w.hand, a) for w in waiting]
    assert waiting[0].deadline < waiting[1].deadline
    assert [t.pk for t in tables_my_turn(user=a)] == [w.hand.table.pk for w in waiting]
    assert [w.table_id for w in tables_waiting_for(user=a)] == [w.hand.table.pk for w in waiting]
    here = summary_since(club=club_setup.club, user=a, since=tables["later"].created_at)
    assert [t.pk for t in here.waiting] == [tables["later"].pk]
    assert [w.hand.table.pk for w in hands_waiting_for(user=b)] == [tables["not_mine"].pk, tables["other"].pk]


def hand_seat(hand: Hand, user: User) -> int:
    return next(int(seat) for seat, uid in hand.players.items() if int(uid) == user.pk)
