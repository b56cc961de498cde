"""Flooding a member's mailbox (or the mail server) with password-reset mails."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


def ask_reset(email: str, address: str) -> int:
    return Client().post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address).status_code


def test_one_address_gets_a_few_reset_mails_an_hour_whoever_asks(settings, mailoutbox):
    member = UserFactory()
    for n in range(settings.PASSWORD_RESET_MAILS_PER_ADDRESS + 5):
        assert ask_reset(member.email, f"198.51.100.{n + 1}") == 302  # the same answer every time
    assert len(mailoutbox) == settings.PASSWORD_RESET_MAILS_PER_ADDRESS


def test_one_client_asking_for_many_addresses_is_refused(settings, mailoutbox):
    members = [UserFactory() for _ in range(settings.PASSWORD_RESET_REQUESTS_PER_CLIENT + 3)]
    answers = [ask_reset(member.email, "192.0.2.50") for member in members]
    assert answers == [302] * settings.PASSWORD_RESET_REQUESTS_PER_CLIENT + [429] * 3
    assert len(mailoutbox) == settings.PASSWORD_RESET_REQUESTS_PER_CLIENT
    refused = Client().post(reverse("password_reset"), {"email": members[0].email}, REMOTE_ADDR="192.0.2.50")
    assert "Too many password reset requests" in refused.content.decode()
    assert ask_reset(members[-1].email, "192.0.2.51") == 302  # another client still can
