"""Twenty failed log-ins from one address (a household, a carrier's NAT) lock that address for guessers and
new browsers, but not a member on a browser that logged in to their account before (accounts/throttle.py)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

SHARED = "192.0.2.77"


def log_in(client: Client, username: str, password: str) -> int:
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=SHARED).status_code


def test_an_address_lock_keeps_guessers_out_but_not_a_members_own_browser(settings) -> None:
    member, other = UserFactory(), UserFactory()
    own = Client()
    assert log_in(own, member.username, PASSWORD) == 302
    own.post(reverse("logout"))
    for victim in [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]:
        assert log_in(Client(), victim.username, "wrong") == 200  # one guess each: no pair lock

    assert log_in(Client(), member.username, PASSWORD) == 429  # a new browser behind that address waits
    assert log_in(Client(), member.username, "guess") == 429  # and so does a guesser at the member
    assert log_in(own, other.username, "guess") == 429  # the cookie exempts its own account only
    assert log_in(own, member.username, PASSWORD) == 302  # the member's own browser logs in
