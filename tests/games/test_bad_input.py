"""Bad input at the table: each gets a clear message to that member only, and nothing changes."""

from __future__ import annotations

import pytest

import engine
from games import services
from games.models import HandAction
from ledger.models import JournalEntry
from tests.games.helpers import make_table


@pytest.fixture
def piles_table(club_setup):
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    return table, hand  # the button is seat 1: seat 2 (members[1]) acts first


def snapshot(hand):
    hand.refresh_from_db()
    return (hand.version, hand.state, HandAction.objects.count(), JournalEntry.objects.count())


def post(client, table, data):
    response = client.post(f"/tables/{table.pk}/act/", data, follow=True)
    return response.status_code, response.content.decode()


@pytest.mark.parametrize(
    ("who", "action", "message"),
    [
        (1, "dance", "Unknown action"),
        (1, "bet:30", "Fixed limit: the bet this round is 25 cents."),
        (1, "raise", "There is no bet to raise"),
        (1, "declare:pig", "you declare after the ninth betting round"),
        (1, "in", "Piles has no drop"),
        (1, "bet:abc", "The amount must be a whole number of cents."),
        (1, "", "Choose an action."),
        (2, "check", "It is not your turn."),
        (0, "check", "It is not your turn."),
    ],
)
@pytest.mark.django_db
def test_a_refused_action_changes_nothing(club_setup, client_for, piles_table, who, action, message) -> None:
    table, hand = piles_table
    before = snapshot(hand)
    client = client_for(club_setup.members[who])
    status, html = post(client, table, {"hand": hand.pk, "version": hand.version, "action": action})
    assert status == 200 and message in html.replace("&#x27;", "'")
    assert snapshot(hand) == before
    # The message went to that member only.
    other = client_for(club_setup.members[(who + 1) % 3]).get(f"/tables/{table.pk}/").content.decode()
    assert message not in other.replace("&#x27;", "'")


@pytest.mark.django_db
def test_a_double_click_applies_once_and_the_second_hears_the_table_moved_on(
    club_setup, client_for, piles_table
) -> None:
    table, hand = piles_table
    client = client_for(club_setup.members[1])
    data = {"hand": hand.pk, "version": 0, "action": "check"}
    _, first = post(client, table, data)
    after_first = snapshot(hand)
    assert after_first[0] == 1
    _, second = post(client, table, data)
    assert "The table moved on; here is the current state." in second
    assert snapshot(hand) == after_first


@pytest.mark.parametrize("version", ["", "abc", "-1", "7"])
@pytest.mark.django_db
def test_a_stale_or_garbled_version_is_refused(club_setup, client_for, piles_table, version) -> None:
    table, hand = piles_table
    before = snapshot(hand)
    _, html = post(client_for(club_setup.members[1]), table, {"hand": hand.pk, "version": version, "action": "check"})
    assert "The table moved on; here is the current state." in html
    assert snapshot(hand) == before


@pytest.mark.django_db
def test_a_spectator_cannot_act(club_setup, client_for, piles_table) -> None:
    table, hand = piles_table
    before = snapshot(hand)
    _, html = post(client_for(club_setup.organiser), table, {"hand": hand.pk, "version": 0, "action": "check"})
    assert "You are not playing in this hand." in html
    assert snapshot(hand) == before


@pytest.mark.django_db
def test_a_forged_hand_or_table_id_is_refused(club_setup, client_for, piles_table) -> None:
    table, hand = piles_table
    other = make_table(club_setup.club, club_setup.organiser, players=[club_setup.members[0]])
    before = snapshot(hand)
    client = client_for(club_setup.members[1])
    _, html = post(client, other, {"hand": hand.pk, "version": 0, "action": "check"})
    assert "That hand is not being played at this table." in html
    _, html = post(client, table, {"hand": 999999, "version": 0, "action": "check"})
    assert "That hand is not being played at this table." in html
    _, html = post(client, table, {"hand": "x", "version": 0, "action": "check"})
    assert "That hand is not being played at this table." in html
    assert client.post("/tables/999999/act/", {"hand": hand.pk, "version": 0, "action": "check"}).status_code == 404
    assert snapshot(hand) == before


@pytest.mark.django_db
def test_a_non_member_gets_not_found_and_changes_nothing(club_setup, client_for, piles_table) -> None:
    table, hand = piles_table
    before = snapshot(hand)
    response = client_for(club_setup.outsider).post(
        f"/tables/{table.pk}/act/", {"hand": hand.pk, "version": 0, "action": "check"}
    )
    assert response.status_code == 404
    assert snapshot(hand) == before


@pytest.mark.django_db
def test_the_service_refuses_a_player_not_dealt_in(club_setup, piles_table) -> None:
    _, hand = piles_table
    from games.errors import NotSeated

    with pytest.raises(NotSeated):
        services.hand_act(hand_id=hand.pk, user=club_setup.organiser, action={"type": "check"}, version=0)
