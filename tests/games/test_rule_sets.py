"""House-rule agreements: entered in currency units, validated with clear messages, versioned and frozen."""

from __future__ import annotations

import pytest

import engine
from games import services
from games.models import RuleSet, RuleSetVersion
from tests.games.helpers import make_rule_set

PIRANHA_POST = {
    "name": "Friday",
    "ante": "0.25",
    "ante_each_hand": "every",
    "match_cap": "5.00",
    "bet_size": "0.25",
    "max_raises": "3",
    "nobody_in": "carry",
    "max_seats": "6",
    "clock_amount": "24",
    "clock_unit": "hours",
    "spectators_allowed": "on",
}
PILES_POST = {
    "name": "Piles night",
    "forced": "ante",
    "ante": "0.25",
    "small_blind": "0.10",
    "big_blind": "0.25",
    **{f"stage_{n}": v for n, v in zip(range(1, 10), ["0.25"] * 6 + ["0.50", "0.50", "1"], strict=True)},
    "max_raises": "3",
    "declare_timeout": "fold",
    "max_seats": "7",
    "clock_amount": "1",
    "clock_unit": "days",
}


@pytest.mark.django_db
def test_organiser_agrees_piranha_rules_in_currency_units_and_reads_them_in_words(club_setup, client_for) -> None:
    client = client_for(club_setup.organiser)
    response = client.post(f"/clubs/{club_setup.club.pk}/rules/new/piranha/", PIRANHA_POST)
    assert response.status_code == 302
    version = RuleSetVersion.objects.get(rule_set__club=club_setup.club)
    assert version.rules["ante"] == 25 and version.rules["match_cap"] == 500
    assert version.max_seats == 6 and version.rules["turn_seconds"] == 86400 and version.number == 1
    page = client_for(club_setup.members[0]).get(f"/clubs/{club_setup.club.pk}/rules/versions/{version.pk}/")
    text = page.content.decode()
    assert "Each player antes $0.25 every hand." in text
    assert "Losers pay the pot, at most $5.00 each" in text
    assert "If nobody stays in, the pot carries to a fresh deal." in text
    assert "clock of 1 day" in text


@pytest.mark.django_db
def test_piles_rules_keep_nine_stage_bets_in_cents(club_setup, client_for) -> None:
    client = client_for(club_setup.organiser)
    response = client.post(f"/clubs/{club_setup.club.pk}/rules/new/piles/", PILES_POST)
    assert response.status_code == 302, response.content.decode()
    version = RuleSetVersion.objects.get(rule_set__club=club_setup.club)
    assert version.rules["stage_bets"] == [25, 25, 25, 25, 25, 25, 50, 50, 100]
    text = client.get(f"/clubs/{club_setup.club.pk}/rules/versions/{version.pk}/").content.decode()
    assert "$0.25, $0.25, $0.25, $0.25, $0.25, $0.25, $0.50, $0.50 and $1.00" in text


@pytest.mark.parametrize(
    ("game", "change", "message"),
    [
        ("piranha", {"max_seats": "12"}, "Piranha is for 2 to 11 players."),
        ("piranha", {"max_seats": "1"}, "Piranha is for 2 to 11 players."),
        ("piles", {"max_seats": "8"}, "Piles is for 2 to 7 players."),
        ("piranha", {"bet_size": "0"}, "must be more than zero"),
        ("piles", {"stage_4": "-0.25"}, "cannot be negative"),
        ("piles", {"stage_9": "0"}, "must be more than zero"),
        ("piranha", {"match_cap": "-1"}, "cannot be negative"),
        ("piranha", {"ante": "0.255"}, "at most two decimal places"),
        ("piranha", {"clock_amount": "5", "clock_unit": "seconds"}, "between 10 seconds and 7 days"),
        ("piles", {"clock_amount": "8", "clock_unit": "days"}, "between 10 seconds and 7 days"),
        ("piles", {"small_blind": "0.50", "forced": "blinds"}, "small blind may not be larger than the big blind"),
        ("piranha", {"ante": "lots"}, "Enter an amount like 0.25."),
    ],
)
@pytest.mark.django_db
def test_unsound_rules_are_refused_with_a_clear_message(club_setup, client_for, game, change, message) -> None:
    data = {**(PIRANHA_POST if game == "piranha" else PILES_POST), **change}
    response = client_for(club_setup.organiser).post(f"/clubs/{club_setup.club.pk}/rules/new/{game}/", data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not RuleSet.objects.exists()


@pytest.mark.django_db
def test_an_unknown_game_is_not_found(club_setup, client_for) -> None:
    assert client_for(club_setup.organiser).get(f"/clubs/{club_setup.club.pk}/rules/new/poker/").status_code == 404


@pytest.mark.django_db
def test_a_version_used_by_a_table_is_frozen_and_an_edit_makes_a_new_version(club_setup, client_for) -> None:
    club, organiser = club_setup.club, club_setup.organiser
    rule_set = make_rule_set(club, organiser, engine.PiranhaRules(ante=25), max_seats=6)
    client = client_for(organiser)
    # Unused: an edit changes version 1 in place.
    client.post(f"/clubs/{club.pk}/rules/{rule_set.pk}/edit/", {**PIRANHA_POST, "ante": "0.50"})
    v1 = rule_set.versions.get()
    assert v1.rules["ante"] == 50 and v1.frozen_at is None
    table = services.table_create(club=club, user=organiser, name="T", rule_version_id=v1.pk)
    v1.refresh_from_db()
    assert v1.frozen_at is not None
    page = client.get(f"/clubs/{club.pk}/rules/{rule_set.pk}/edit/").content.decode()
    assert "saving makes a new version" in page
    client.post(f"/clubs/{club.pk}/rules/{rule_set.pk}/edit/", {**PIRANHA_POST, "ante": "1.00"})
    assert list(rule_set.versions.order_by("number").values_list("number", "rules__ante")) == [(1, 50), (2, 100)]
    v1.refresh_from_db()
    assert v1.rules["ante"] == 50
    table.refresh_from_db()
    assert table.rule_version_id == v1.pk
    # The table's page states the rules in force: version 1.
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert "Each player antes $0.50 every hand." in html and "version 1" in html


@pytest.mark.django_db
def test_members_cannot_create_or_edit_rules(club_setup, client_for) -> None:
    rule_set = make_rule_set(club_setup.club, club_setup.organiser)
    client = client_for(club_setup.members[0])
    assert client.post(f"/clubs/{club_setup.club.pk}/rules/new/piranha/", PIRANHA_POST).status_code == 403
    assert client.post(f"/clubs/{club_setup.club.pk}/rules/{rule_set.pk}/edit/", PIRANHA_POST).status_code == 403
    assert RuleSetVersion.objects.count() == 1


@pytest.mark.parametrize(
    "name", ["Friday\nBcc: victim@example.org", "Fri\rday", "Fri\x00day", "Fri\tday", "Friday\u2028night"]
)
@pytest.mark.django_db
def test_a_rule_set_name_with_control_characters_is_refused(club_setup, client_for, name) -> None:
    data = {**PIRANHA_POST, "name": name}
    response = client_for(club_setup.organiser).post(f"/clubs/{club_setup.club.pk}/rules/new/piranha/", data)
    assert response.status_code == 200
    assert "no line breaks, tabs or other control characters" in response.content.decode()
    assert not RuleSet.objects.exists()


@pytest.mark.django_db
def test_rule_set_forms_show_money_to_the_cent(club_setup, client_for) -> None:
    client = client_for(club_setup.organiser)
    html = client.get(f"/clubs/{club_setup.club.pk}/rules/new/piles/").content.decode()
    assert 'name="ante" value="0.25"' in html and 'name="stage_9" value="1.00"' in html
    rule_set = make_rule_set(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=100, bet_size=50, match_cap=1000)
    )
    html = client.get(f"/clubs/{club_setup.club.pk}/rules/{rule_set.pk}/edit/").content.decode()
    assert 'name="ante" value="1.00"' in html and 'name="bet_size" value="0.50"' in html
    assert 'name="match_cap" value="10.00"' in html
