"""Guessing passwords from many usernames at one address, or at one username from many addresses.

django-axes locks a (username, address) pair; beside it an address is locked whatever the usernames,
and a username is slowed down whatever the addresses, without locking its member out for good."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse

from accounts.throttle import DEVICE_COOKIE
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def log_in(client: Client, username: str, password: str, address: str) -> int:
    response = client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)
    return response.status_code


def test_one_address_trying_many_usernames_is_locked(settings):
    victims = [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]
    for victim in victims:  # one wrong guess each: no (username, address) pair reaches its limit
        assert log_in(Client(), victim.username, "wrong", "192.0.2.10") == 200
    newcomer = UserFactory()
    assert log_in(Client(), newcomer.username, PASSWORD, "192.0.2.10") == 429
    assert log_in(Client(), newcomer.username, PASSWORD, "192.0.2.11") == 302  # other addresses are not


def test_many_addresses_guessing_one_username_are_slowed_down(settings):
    member = UserFactory()
    for n in range(settings.LOGIN_SLOWDOWN_AFTER):  # each below the (username, address) limit
        assert log_in(Client(), member.username, "wrong", f"198.51.100.{n + 1}") == 200
    response = Client().post(
        reverse("login"), {"username": member.username, "password": PASSWORD}, REMOTE_ADDR="198.51.100.99"
    )
    assert response.status_code == 429
    assert re.search(r"Wait \d+ seconds and try again", response.content.decode())


def test_the_slowdown_ends_and_never_locks_the_member_out(settings):
    member = UserFactory()
    for n in range(settings.LOGIN_SLOWDOWN_AFTER + 30):  # an attacker keeps trying
        log_in(Client(), member.username, "wrong", f"198.51.100.{n + 1}")
    assert log_in(Client(), member.username, PASSWORD, "203.0.113.5") == 429
    # The longest wait is LOGIN_SLOWDOWN_MAX_SECONDS after the last failure.
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.latest("attempt_time").attempt_time
        - timedelta(seconds=settings.LOGIN_SLOWDOWN_MAX_SECONDS)
    )
    assert log_in(Client(), member.username, PASSWORD, "203.0.113.5") == 302


def test_a_browser_that_logged_in_before_is_not_slowed_down(settings):
    member = UserFactory()
    own = Client()
    assert log_in(own, member.username, PASSWORD, "203.0.113.5") == 302
    assert DEVICE_COOKIE in own.cookies
    own.post(reverse("logout"))
    for n in range(settings.LOGIN_SLOWDOWN_AFTER + 5):
        log_in(Client(), member.username, "wrong", f"198.51.100.{n + 1}")
    assert log_in(Client(), member.username, PASSWORD, "203.0.113.5") == 429  # a new browser waits
    assert log_in(own, member.username, PASSWORD, "203.0.113.5") == 302  # the member's own does not


def test_a_device_cookie_of_another_account_does_not_exempt():
    member, other = UserFactory(), UserFactory()
    client = Client()
    assert log_in(client, other.username, PASSWORD, "203.0.113.5") == 302
    client.post(reverse("logout"))
    for n in range(15):
        log_in(Client(), member.username, "wrong", f"198.51.100.{n + 1}")
    assert log_in(client, member.username, PASSWORD, "203.0.113.5") == 429
