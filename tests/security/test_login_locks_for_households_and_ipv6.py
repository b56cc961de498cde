"""Log-in locks that fit a household and IPv6 (accounts/throttle.py).

Found: a member's new browser was locked for 15 minutes by someone else's failures from the same address,
and so was their known browser once a housemate had guessed at their username five times (django-axes' pair
lock held every browser); and IPv6 addresses were keyed one by one, so a /64 (one household, one machine)
gave a guesser unlimited tries. Now failures are keyed per account and per network (IPv4 /32, IPv6 /64), and
a member's known browser, or a fresh browser that opened a one-time link mailed to the account, is held only
by its own failures."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.throttle import network_key
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

HOUSE_V6 = "2001:db8:77:1::"  # a household's /64
HOUSE_V4 = "192.0.2.77"


def log_in(client: Client, username: str, password: str, address: str) -> int:
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address).status_code


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("2001:db8:77:1:aaaa:bbbb:cccc:dddd", "2001:db8:77:1::"),
        ("2001:db8:77:1::1", "2001:db8:77:1::"),
        ("2001:db8:77:2::1", "2001:db8:77:2::"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("192.0.2.7", "192.0.2.7"),
        ("192.0.2.8", "192.0.2.8"),
    ],
)
def test_failures_are_keyed_by_network(address, network) -> None:
    assert network_key(address) == network


def test_many_addresses_of_one_ipv6_64_are_one_network_to_the_lock(settings) -> None:
    victims = [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]
    for n, victim in enumerate(victims):  # a fresh address of the /64 for every guess
        assert log_in(Client(), victim.username, "wrong", f"{HOUSE_V6}{n + 1:x}") == 200
    newcomer = UserFactory()
    assert log_in(Client(), newcomer.username, "guess", f"{HOUSE_V6}beef") == 429  # the whole /64 waits
    assert log_in(Client(), newcomer.username, PASSWORD, "2001:db8:77:2::1") == 302  # the next /64 does not


def test_one_username_guessed_from_many_addresses_of_a_64_is_locked_as_a_pair(settings) -> None:
    member = UserFactory()
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(Client(), member.username, "wrong", f"{HOUSE_V6}{n + 100:x}") == 200
    assert log_in(Client(), member.username, "wrong", f"{HOUSE_V6}ffff") == 429  # the last one locks the pair
    assert log_in(Client(), member.username, PASSWORD, f"{HOUSE_V6}9999") == 429
    assert log_in(Client(), member.username, PASSWORD, "2001:db8:77:2::1") == 302  # another network is not held


def test_ipv4_addresses_stay_apart(settings) -> None:
    victims = [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]
    for victim in victims:
        assert log_in(Client(), victim.username, "wrong", "198.51.100.10") == 200
    assert log_in(Client(), UserFactory().username, PASSWORD, "198.51.100.11") == 302


@pytest.mark.parametrize("house", [HOUSE_V4, f"{HOUSE_V6}1"])
def test_a_known_browser_is_not_locked_by_a_housemate_guessing_its_account(settings, house) -> None:
    member = UserFactory()
    own = Client()
    assert log_in(own, member.username, PASSWORD, house) == 302
    own.post(reverse("logout"))
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):  # the pair (member, network) is locked for everyone else
        log_in(Client(), member.username, "guess", house)
    for victim in [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]:  # and the network too
        log_in(Client(), victim.username, "wrong", house)
    assert log_in(Client(), member.username, PASSWORD, house) == 429
    assert log_in(own, member.username, PASSWORD, house) == 302  # the member's own browser logs in


def test_a_known_browser_still_counts_its_own_failures(settings) -> None:
    member = UserFactory()
    own = Client()
    assert log_in(own, member.username, PASSWORD, HOUSE_V4) == 302
    own.post(reverse("logout"))
    for victim in [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]:  # the network is locked
        log_in(Client(), victim.username, "wrong", HOUSE_V4)
    for _ in range(settings.AXES_FAILURE_LIMIT):  # a thief holding the browser: spared, but counted
        assert log_in(own, member.username, "guess", HOUSE_V4) == 200
    assert log_in(own, member.username, PASSWORD, HOUSE_V4) == 429  # spared no more: held like anyone else


def _link_from_the_mail() -> str:
    assert len(mail.outbox) == 1
    found = re.search(r"https?://\S+/login/link/(\S+)/", mail.outbox[0].body)
    assert found, mail.outbox[0].body
    return f"/login/link/{found.group(1)}/"


@pytest.mark.parametrize("house", [HOUSE_V4, f"{HOUSE_V6}1"])
def test_a_fresh_browser_with_a_mailed_link_and_the_password_gets_in(settings, house) -> None:
    member = UserFactory(email="member@example.com")
    for victim in [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]:  # someone else's failures
        log_in(Client(), victim.username, "wrong", house)
    fresh = Client()
    locked = fresh.post(reverse("login"), {"username": member.username, "password": PASSWORD}, REMOTE_ADDR=house)
    assert locked.status_code == 429 and reverse("login_link_request") in locked.content.decode()

    asked = fresh.post(reverse("login_link_request"), {"username": member.username}, REMOTE_ADDR=house)
    assert asked.status_code == 200 and "a link is on its way" in asked.content.decode()
    assert mail.outbox[0].to == ["member@example.com"]
    link = _link_from_the_mail()
    assert fresh.get(link, REMOTE_ADDR=house).status_code == 200  # a scanner's visit uses nothing up
    assert log_in(fresh, member.username, "guess", house) == 429  # not yet used: still held
    assert fresh.post(link, REMOTE_ADDR=house).status_code == 302
    assert log_in(fresh, member.username, PASSWORD, house) == 302

    again = Client()
    used = again.post(link, REMOTE_ADDR=house)
    assert used.status_code == 400 and "used or has expired" in used.content.decode()
    assert log_in(again, member.username, PASSWORD, house) == 429  # a used link spares no other browser


def test_a_link_spares_only_its_own_account_and_asking_tells_nothing(settings) -> None:
    member, other = UserFactory(email="m@example.com"), UserFactory(email="o@example.com")
    for victim in [UserFactory() for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT)]:
        log_in(Client(), victim.username, "wrong", HOUSE_V4)
    fresh = Client()
    nobody = fresh.post(reverse("login_link_request"), {"username": "no-such-member"}, REMOTE_ADDR=HOUSE_V4)
    assert nobody.status_code == 200 and "a link is on its way" in nobody.content.decode() and not mail.outbox
    fresh.post(reverse("login_link_request"), {"username": member.username}, REMOTE_ADDR=HOUSE_V4)
    assert fresh.post(_link_from_the_mail(), REMOTE_ADDR=HOUSE_V4).status_code == 302
    assert log_in(fresh, other.username, PASSWORD, HOUSE_V4) == 429
    assert log_in(fresh, member.username, PASSWORD, HOUSE_V4) == 302
    bad = Client().post("/login/link/forged-token/", REMOTE_ADDR=HOUSE_V4)
    assert bad.status_code == 400


def test_a_log_in_link_never_reaches_a_log() -> None:
    from config.security import redact_secrets

    line = '127.0.0.1 - "POST /login/link/eyJ1IjoxLCJuIjoiYWJjIn0:1tQ:AbC-d_e/ HTTP/1.1" 302'
    assert redact_secrets(line) == '127.0.0.1 - "POST /login/link/[redacted]/ HTTP/1.1" 302'
