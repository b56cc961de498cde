"""Club settings: organisers change name, currency and credit limit; bad input changes nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts import services
from tests.accounts.helpers import club_state

pytestmark = pytest.mark.django_db

VALID = {"name": "Friday game", "currency": "gbp", "credit_limit_units": "250.50"}


def test_organiser_sees_the_current_settings(club_setup, client_for):
    response = client_for(club_setup.organiser).get(reverse("club_settings", args=[club_setup.club.pk]))
    form = response.context["form"]
    assert form["name"].value() == club_setup.club.name
    assert float(form["credit_limit_units"].value()) == club_setup.club.credit_limit / 100


def test_organiser_saves_name_currency_and_credit_limit_in_cents(club_setup, client_for):
    response = client_for(club_setup.organiser).post(reverse("club_settings", args=[club_setup.club.pk]), VALID)
    assert response.status_code == 302
    club = club_setup.club
    club.refresh_from_db()
    assert (club.name, club.currency, club.credit_limit) == ("Friday game", "GBP", 25050)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("name", "   ", "This field is required"),
        ("name", "x" * 81, "at most 80 characters"),
        ("currency", "EU", "three-letter currency code"),
        ("currency", "€UR", "three-letter currency code"),
        ("credit_limit_units", "-1", "greater than or equal to 0"),
        ("credit_limit_units", "1.234", "no more than 2 decimal places"),
        ("credit_limit_units", "lots", "Enter a number"),
        ("credit_limit_units", "1e30", "no more than 12 digits"),
    ],
)
def test_bad_settings_get_a_message_and_change_nothing(club_setup, client_for, field, value, message):
    before = club_state(club_setup.club)
    response = client_for(club_setup.organiser).post(
        reverse("club_settings", args=[club_setup.club.pk]), {**VALID, field: value}
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert club_state(club_setup.club) == before
    assert f"Settings of {club_setup.club.name}" in response.content.decode()  # not the rejected name


def test_the_service_refuses_a_member_and_a_negative_limit(club_setup):
    with pytest.raises(services.NotAllowed):
        services.club_update(
            club_id=club_setup.club.pk, by=club_setup.members[0], name="X", currency="USD", credit_limit=0
        )
    with pytest.raises(services.InvalidInput):
        services.club_update(
            club_id=club_setup.club.pk, by=club_setup.organiser, name="X", currency="USD", credit_limit=-1
        )


def test_the_credit_limit_is_shown_with_two_decimals(club_setup, client_for):
    club = club_setup.club
    club.credit_limit = 10_000
    club.save()
    client = client_for(club_setup.organiser)
    html = client.get(reverse("club_settings", args=[club.pk])).content.decode()
    assert 'name="credit_limit_units" value="100.00"' in html
    club.credit_limit = 2_550
    club.save()
    html = client.get(reverse("club_settings", args=[club.pk])).content.decode()
    assert 'name="credit_limit_units" value="25.50"' in html
    # A new club's form starts from the default limit, also to the cent.
    html = client.get(reverse("club_new")).content.decode()
    assert 'name="credit_limit_units" value="100.00"' in html
