"""Password reset by email, end to end, and password change."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "an entirely new passphrase"


def log_in(client, username: str, password: str) -> bool:
    response = client.post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def reset_link(mail) -> str:
    found = re.search(r"http://testserver(/password/reset/[^/\s]+/[^/\s]+/)", mail.body)
    assert found, mail.body
    return found.group(1)


def test_password_reset_sends_an_email_whose_link_sets_a_new_password(client, mailoutbox):
    user = UserFactory(email="rob@example.com")
    response = client.post(reverse("password_reset"), {"email": "ROB@example.com"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["rob@example.com"] and "new password" in mail.subject
    assert user.username in mail.body

    set_password_page = client.get(reset_link(mail), follow=True)
    assert set_password_page.status_code == 200 and set_password_page.context["validlink"]
    done = client.post(
        set_password_page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")

    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert log_in(client, user.username, NEW_PASSWORD)


def test_a_reset_link_works_only_once(client, mailoutbox):
    user = UserFactory()
    client.post(reverse("password_reset"), {"email": user.email})
    link = reset_link(mailoutbox[0])
    page = client.get(link, follow=True)
    client.post(page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    again = client.get(link, follow=True)
    assert again.status_code == 200 and not again.context["validlink"]
    assert "Link no longer valid" in again.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_email(client, mailoutbox):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert mailoutbox == []


def test_password_change_with_the_old_password(client_for):
    user = UserFactory()
    client = client_for(user)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_password_change_with_a_wrong_old_password_changes_nothing(client_for):
    user = UserFactory()
    response = client_for(user).post(
        reverse("password_change"),
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200 and "incorrectly" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_password_change_needs_a_login(client):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
