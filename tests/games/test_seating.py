"""Tables and seats: accepting the exact rules, the credit limit, sitting out, coming back, leaving, starting."""

from __future__ import annotations

import pytest
from django.urls import reverse

import engine
from games import services
from games.models import Seat, Table
from ledger.services import ruling_adjust
from tests.games.helpers import current_hand, make_rule_set, make_table


@pytest.mark.django_db
def test_creating_a_table_freezes_the_version_and_the_lobby_shows_it(club_setup, client_for) -> None:
    club = club_setup.club
    rule_set = make_rule_set(club, club_setup.organiser, engine.PilesRules())
    version = rule_set.versions.get()
    client = client_for(club_setup.members[0])
    response = client.post(f"/clubs/{club.pk}/tables/new/", {"name": "Main", "rule_version": version.pk})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    version.refresh_from_db()
    assert version.is_frozen
    lobby = client.get(f"/clubs/{club.pk}/tables/").content.decode()
    assert "Main" in lobby and "0 of 7 seats taken" in lobby


@pytest.mark.django_db
def test_a_version_of_another_club_cannot_open_a_table(club_setup, client_for) -> None:
    other = make_rule_set(club_setup.outsider.clubs.get(), club_setup.outsider)
    response = client_for(club_setup.members[0]).post(
        f"/clubs/{club_setup.club.pk}/tables/new/", {"name": "X", "rule_version": other.versions.get().pk}
    )
    assert response.status_code == 200 and "Choose one of the club" in response.content.decode()
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_taking_a_seat_shows_the_rules_and_records_acceptance_of_that_version(club_setup, client_for) -> None:
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25))
    member = club_setup.members[0]
    client = client_for(member)
    page = client.get(f"/tables/{table.pk}/sit/").content.decode()
    assert "Each player antes $0.25 every hand." in page
    assert f'name="version" value="{table.rule_version_id}"' in page
    # Without ticking acceptance: refused.
    response = client.post(f"/tables/{table.pk}/sit/", {"number": 2, "version": table.rule_version_id})
    assert "accept the house rules" in response.content.decode() and not Seat.objects.exists()
    response = client.post(f"/tables/{table.pk}/sit/", {"number": 2, "version": table.rule_version_id, "accept": "on"})
    assert response.status_code == 302
    seat = Seat.objects.get()
    assert (seat.user, seat.number, seat.accepted_version_id) == (member, 2, table.rule_version_id)
    assert seat.accepted_at is not None


@pytest.mark.django_db
def test_a_seat_is_refused_when_the_rules_shown_are_not_the_tables(club_setup, client_for) -> None:
    table = make_table(club_setup.club, club_setup.organiser)
    newer = services.rule_set_edit(
        rule_set_id=table.rule_version.rule_set_id,
        user=club_setup.organiser,
        name="New",
        rules=engine.PiranhaRules(ante=100),
        max_seats=6,
        spectators_allowed=True,
    )
    response = client_for(club_setup.members[0]).post(
        f"/tables/{table.pk}/sit/", {"number": 1, "version": newer.pk, "accept": "on"}
    )
    assert "not the ones you accepted" in response.content.decode()
    assert not Seat.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"number": 99}, "That seat is not free."),
        ({"number": "x"}, "That seat is not free."),
        ({"number": 1, "version": "abc"}, "please read them again"),
    ],
)
@pytest.mark.django_db
def test_forged_seat_posts_are_refused(club_setup, client_for, data, message) -> None:
    table = make_table(club_setup.club, club_setup.organiser, players=[club_setup.members[1]])
    post = {"version": table.rule_version_id, "accept": "on", **data}
    response = client_for(club_setup.members[0]).post(f"/tables/{table.pk}/sit/", post)
    assert response.status_code == 200 and message in response.content.decode()
    assert Seat.objects.count() == 1


@pytest.mark.django_db
def test_a_member_below_the_credit_limit_cannot_sit(club_setup, client_for) -> None:
    club = club_setup.club
    club.credit_limit = 100
    club.save()
    debtor, creditor = club_setup.members[0], club_setup.members[1]
    ruling_adjust(
        club=club, from_user=debtor, to_user=creditor, amount=101, reason="test", ruled_by=club_setup.organiser
    )
    table = make_table(club, club_setup.organiser)
    response = client_for(debtor).post(
        f"/tables/{table.pk}/sit/", {"number": 1, "version": table.rule_version_id, "accept": "on"}
    )
    html = response.content.decode()
    assert "below the club&#x27;s credit limit" in html
    assert "record the payment on the club&#x27;s Settle up page" in html  # says what to do
    settle = reverse("ledger:settle", kwargs={"club_id": club.pk})
    assert f'<a href="{settle}" class="button settle-up">Go to Settle up</a>' in html
    assert not Seat.objects.exists()
    # Other refusals offer no such link.
    other = (
        client_for(creditor)
        .post(f"/tables/{table.pk}/sit/", {"number": 99, "version": table.rule_version_id, "accept": "on"})
        .content.decode()
    )
    assert "settle-up" not in other


@pytest.mark.django_db
def test_coming_back_below_the_credit_limit_is_refused_with_a_link_to_settle_up(club_setup, client_for) -> None:
    club = club_setup.club
    club.credit_limit = 100
    club.save()
    debtor, creditor = club_setup.members[0], club_setup.members[1]
    table = make_table(club, club_setup.organiser, players=[debtor, creditor])
    services.seat_sit_out(table_id=table.pk, user=debtor)
    ruling_adjust(
        club=club, from_user=debtor, to_user=creditor, amount=101, reason="test", ruled_by=club_setup.organiser
    )
    html = client_for(debtor).post(f"/tables/{table.pk}/sit-in/", follow=True).content.decode()
    assert "below the club&#x27;s credit limit" in html and "Settle up page" in html
    settle = reverse("ledger:settle", kwargs={"club_id": club.pk})
    assert f'<a href="{settle}" class="settle-up">Go to Settle up</a>' in html
    assert Seat.objects.get(user=debtor).sitting_out
    # An ordinary refusal carries no link.
    html = client_for(club_setup.members[2]).post(f"/tables/{table.pk}/sit-in/", follow=True).content.decode()
    assert "You are not seated at this table." in html and "settle-up" not in html


@pytest.mark.django_db
def test_sit_out_come_back_and_leave_between_hands(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    ca = client_for(a)
    assert "Start" in ca.get(f"/tables/{table.pk}/").content.decode()
    ca.post(f"/tables/{table.pk}/start/")
    hand = current_hand(table)
    assert sorted(hand.players) == ["1", "2", "3"]
    # C sits out: still plays this hand; may not leave during it.
    cc = client_for(c)
    cc.post(f"/tables/{table.pk}/sit-out/")
    html = cc.post(f"/tables/{table.pk}/leave/", follow=True).content.decode()
    assert "you can leave when it ends" in html
    for user in (b, c, a):
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "out"}, version=hand.version)
        hand.refresh_from_db()
    nxt = current_hand(table)
    assert sorted(nxt.players) == ["1", "2"]  # C sat out
    html = cc.post(f"/tables/{table.pk}/leave/", follow=True).content.decode()
    assert "You have left the table." in html
    seat = Seat.objects.get(user=c)
    assert seat.left_at is not None
    # B sits out, then comes back before the next hand.
    cb = client_for(b)
    cb.post(f"/tables/{table.pk}/sit-out/")
    cb.post(f"/tables/{table.pk}/sit-in/")
    assert not Seat.objects.get(user=b).sitting_out


@pytest.mark.django_db
def test_start_needs_two_playing_and_a_seated_player(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, players=[a])
    html = client_for(a).post(f"/tables/{table.pk}/start/", follow=True).content.decode()
    assert "At least two players" in html
    services.seat_take(table_id=table.pk, user=b, number=2, version_id=table.rule_version_id)
    html = client_for(club_setup.members[2]).post(f"/tables/{table.pk}/start/", follow=True).content.decode()
    assert "Only a player seated" in html
    assert not table.hands.exists()
    client_for(a).post(f"/tables/{table.pk}/start/")
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING and table.hands.count() == 1
    html = client_for(b).post(f"/tables/{table.pk}/start/", follow=True).content.decode()
    assert "already playing" in html and table.hands.count() == 1


@pytest.mark.django_db
def test_when_players_leave_the_table_waits_for_more(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    services.seat_sit_out(table_id=table.pk, user=b)
    state = engine.state_from_json(hand.state)
    seat = engine.to_act(state)[0]
    user = a if seat == 1 else b
    services.hand_act(hand_id=hand.pk, user=user, action={"type": "fold"}, version=0)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN and table.hands.count() == 1


@pytest.mark.parametrize("name", ["Main\nBcc: victim@example.org", "Main\r\nX", "Ma\x07in", "Ma\u2029in"])
@pytest.mark.django_db
def test_a_table_name_with_control_characters_is_refused(club_setup, client_for, name) -> None:
    version = make_rule_set(club_setup.club, club_setup.organiser, engine.PilesRules()).versions.get()
    response = client_for(club_setup.members[0]).post(
        f"/clubs/{club_setup.club.pk}/tables/new/", {"name": name, "rule_version": version.pk}
    )
    assert response.status_code == 200
    assert "no line breaks, tabs or other control characters" in response.content.decode()
    assert not Table.objects.exists()
