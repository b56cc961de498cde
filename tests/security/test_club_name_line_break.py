"""A club name with a line break broke the invitation mail's subject after the invitation was saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Club, Invitation
from tests.accounts.factories import ClubFactory, MembershipFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["Tuesday\nGame", "Tuesday\r\nBcc: x@example.com", "Tab\there", "Bidi \u202egame"])
def test_a_club_name_that_is_not_one_line_of_text_is_refused(club_setup, client_for, name):
    client = client_for(club_setup.organiser)
    created = client.post(reverse("club_new"), {"name": name, "currency": "USD", "credit_limit_units": "100"})
    assert created.status_code == 200 and "errorlist" in created.content.decode()
    settings_url = reverse("club_settings", args=[club_setup.club.pk])
    changed = client.post(settings_url, {"name": name, "currency": "USD", "credit_limit_units": "100"})
    assert changed.status_code == 200
    assert not Club.objects.filter(name=name).exists()


def test_an_invitation_from_a_club_with_a_stored_line_break_is_mailed_and_kept(
    client_for, mailoutbox, django_capture_on_commit_callbacks
):
    club = ClubFactory(name="Old\nName")  # stored before names were checked
    organiser = MembershipFactory(club=club, role="organiser").user
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(organiser).post(
            reverse("club_invitations", args=[club.pk]), {"email": "friend@example.com", "valid_for_days": "7"}
        )
    assert response.status_code == 302
    assert Invitation.objects.filter(club=club, email="friend@example.com").exists()
    assert len(mailoutbox) == 1 and mailoutbox[0].subject == "You are invited to join Old Name"


@pytest.mark.django_db(transaction=True)  # the mail goes out when the invitation really commits
def test_a_mail_that_cannot_be_sent_keeps_the_invitation_and_says_so(club_setup, client_for, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2  # nothing listens there
    client = client_for(club_setup.organiser)
    response = client.post(
        reverse("club_invitations", args=[club_setup.club.pk]),
        {"email": "friend@example.com", "valid_for_days": "7"},
        follow=True,
    )
    assert response.status_code == 200
    assert "mail could not be sent" in response.content.decode()
    assert Invitation.objects.get(club=club_setup.club).email == "friend@example.com"


def test_names_stored_before_the_rule_become_one_line():
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    broken, fine = ClubFactory(name="Old\r\nName\t\u202e"), ClubFactory(name="Fine name")
    importlib.import_module("accounts.migrations.0004_club_name_one_line").one_line(
        apps, SimpleNamespace(connection=connection)
    )
    broken.refresh_from_db()
    fine.refresh_from_db()
    assert (broken.name, fine.name) == ("Old Name", "Fine name")
