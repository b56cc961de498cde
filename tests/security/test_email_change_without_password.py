"""A borrowed or stolen session changes the account's email address, then resets the password."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_the_profile_form_no_longer_changes_the_email(client_for):
    member = UserFactory(email="member@example.com")
    client_for(member).post(
        reverse("profile"),
        {"display_name": "M", "email": "thief@example.com", "time_zone": "UTC", "turn_notices": "each"},
    )
    member.refresh_from_db()
    assert member.email == "member@example.com"


def test_changing_the_email_needs_the_password(client_for, mailoutbox):
    member = UserFactory(email="member@example.com")
    response = client_for(member).post(
        reverse("email_change"), {"new_email": "thief@example.com", "password": "a guess"}
    )
    assert response.status_code == 200 and "not your current password" in response.content.decode()
    member.refresh_from_db()
    assert member.email == "member@example.com" and mailoutbox == []


def test_the_new_address_changes_only_through_the_mailed_link_once(client_for, client, mailoutbox):
    member = UserFactory(email="member@example.com")
    response = client_for(member).post(reverse("email_change"), {"new_email": "new@example.com", "password": PASSWORD})
    assert response.status_code == 200 and "Check your email" in response.content.decode()
    member.refresh_from_db()
    assert member.email == "member@example.com"  # not yet
    confirm, notice = mailoutbox
    assert confirm.to == ["new@example.com"] and notice.to == ["member@example.com"]
    link = re.search(r"http://testserver(/profile/email/confirm/\S+/)", confirm.body)
    assert link is not None
    assert client.get(link.group(1)).status_code == 200  # a mail scanner opening it changes nothing
    member.refresh_from_db()
    assert member.email == "member@example.com"
    assert client.post(link.group(1)).status_code == 200
    member.refresh_from_db()
    assert member.email == "new@example.com"
    assert client.post(link.group(1)).status_code == 400  # spent
    assert client.post(link.group(1)[:-3] + "x/").status_code == 400  # tampered


def test_the_password_cannot_be_guessed_on_the_email_page(client_for):
    member = UserFactory(email="member@example.com")
    client = client_for(member)
    for n in range(5):
        client.post(reverse("email_change"), {"new_email": "thief@example.com", "password": f"guess {n}"})
    response = client.post(reverse("email_change"), {"new_email": "thief@example.com", "password": PASSWORD})
    assert "many times in the last hour" in response.content.decode()
    member.refresh_from_db()
    assert member.email == "member@example.com"


def test_the_email_page_needs_a_logged_in_member(client):
    response = client.get(reverse("email_change"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
