"""The foundation: health check, log in, clubs, and who may see a club."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Club, Membership
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_healthz_is_200_when_postgres_and_redis_answer(client):
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8000")  # the details: loopback only
    assert response.status_code == 200
    assert response.json() == {"ok": True, "postgres": True, "redis": True}


def test_healthz_is_503_when_redis_is_down(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 503
    assert response.json()["redis"] is False


def test_login_with_correct_password_reaches_home(client):
    user = UserFactory()
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD}, follow=True)
    assert response.status_code == 200
    assert response.context["user"] == user


def test_failed_logins_are_throttled(client):
    user = UserFactory()
    for _ in range(5):
        client.post(reverse("login"), {"username": user.username, "password": "wrong"})
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 429
    assert b"Too many failed log-ins" in response.content


def test_creating_a_club_makes_the_creator_its_organiser(client_for):
    user = UserFactory()
    response = client_for(user).post(
        reverse("club_new"), {"name": "Tuesday game", "currency": "eur", "credit_limit_units": "50"}
    )
    club = Club.objects.get(name="Tuesday game")
    assert response.status_code == 302
    assert club.currency == "EUR" and club.credit_limit == 5000
    assert Membership.objects.get(club=club, user=user).role == Membership.Role.ORGANISER


def test_a_malformed_currency_is_refused_with_a_message(client_for):
    response = client_for(UserFactory()).post(
        reverse("club_new"), {"name": "X", "currency": "e1", "credit_limit_units": "50"}
    )
    assert response.status_code == 200
    assert "three-letter currency code" in response.content.decode()
    assert not Club.objects.exists()


@pytest.mark.parametrize("who, status", [("anonymous", 302), ("outsider", 404), ("member", 200), ("organiser", 200)])
def test_club_page_permissions(club_setup, client_for, who, status):
    user = {
        "anonymous": None,
        "outsider": club_setup.outsider,
        "member": club_setup.members[0],
        "organiser": club_setup.organiser,
    }[who]
    response = client_for(user).get(reverse("club_detail", args=[club_setup.club.pk]))
    assert response.status_code == status


def test_home_lists_only_my_clubs(club_setup, client_for):
    response = client_for(club_setup.members[0]).get(reverse("home"))
    assert club_setup.club.name in response.content.decode()
    assert response.context["memberships"].count() == 1


def test_profile_time_zone_changes_how_times_are_shown(client_for):
    user = UserFactory()
    response = client_for(user).post(
        reverse("profile"), {"display_name": "Rob", "email": user.email, "time_zone": "Europe/London"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.time_zone == "Europe/London" and user.shown_name == "Rob"


def test_duplicate_email_is_refused_case_insensitively(client_for):
    UserFactory(email="rob@example.com")
    user = UserFactory()
    response = client_for(user).post(reverse("email_change"), {"new_email": "ROB@example.com", "password": PASSWORD})
    assert response.status_code == 200
    assert "belongs to another account" in response.content.decode()


def test_healthz_answers_a_host_that_allowed_hosts_does_not_list(client, settings):
    """A container health check asks for 127.0.0.1:8000, which production rightly doesn't allow."""
    settings.ALLOWED_HOSTS = ["club.example"]
    assert client.get("/healthz", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/login/", HTTP_HOST="127.0.0.1:8000").status_code == 400
