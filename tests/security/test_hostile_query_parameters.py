"""Hostile query parameters: a Unicode digit, a NUL, a huge or negative number, junk, a very long value.

Every page that takes GET requests is found from the URL configuration and walked as the club's
organiser (who may see every page). For each query parameter a page reads (recorded while the page
answers a plain request) each hostile value is sent; the page answers with a clear refusal (400 with
a message, or the page with a message, or 404 for an id that names nothing) and never with a server
error. ``?before=²`` was a 500 on the hand history and the rulings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.http import QueryDict
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

import engine
from accounts.models import Membership, User
from accounts.tokens import api_token_create
from games import services
from ledger.services import ruling_adjust
from tests.conftest import ClubSetup, club_setup_make
from tests.games.helpers import make_table

HOSTILE = [
    "²",
    "١٢",
    "𝟙",
    "-1",
    "0",
    "1.5",
    "1e9",
    "9" * 30,
    "\x00",
    "1\x00",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "x" * 5000,
    " 7",
    "%",
    "[]",
    "\u202e1",
]


def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace == "admin" or getattr(entry, "app_name", "") == "admin":
                continue
            namespace = f"{prefix}{entry.namespace}:" if entry.namespace else prefix
            yield from _patterns(entry, namespace)
        elif entry.name:
            yield prefix, entry


@contextmanager
def reads_of_query() -> Iterator[set[str]]:
    """Record the names of the query parameters read while the block runs."""
    seen: set[str] = set()
    originals = {name: getattr(QueryDict, name) for name in ("get", "__getitem__", "getlist", "__contains__")}

    def recorder(name: str) -> Any:
        original = originals[name]

        def method(self: QueryDict, key: Any, *args: Any, **kwargs: Any) -> Any:
            seen.add(str(key))
            return original(self, key, *args, **kwargs)

        return method

    for name in originals:
        setattr(QueryDict, name, recorder(name))
    try:
        yield seen
    finally:
        for name, original in originals.items():
            setattr(QueryDict, name, original)


@pytest.fixture(scope="module")
def _page_rows(module_rows) -> tuple[User, str, list[str], dict[str, str]]:
    with module_rows():
        return _pages(club_setup_make())


@pytest.fixture
def pages(_page_rows, db) -> tuple[Client, list[str], dict[str, str]]:
    """The organiser's client, the path of every page that answers GET, and a few pages by name (the rows made
    once for the module; what a test writes is rolled back after it)."""
    organiser, key, paths, named = _page_rows
    # The JSON API answers a key, not a session: the organiser's key goes with every request.
    client = Client(headers={"Authorization": f"Bearer {key}"})
    client.force_login(organiser, backend="django.contrib.auth.backends.ModelBackend")
    return client, list(paths), dict(named)


def _pages(club_setup: ClubSetup) -> tuple[User, str, list[str], dict[str, str]]:
    organiser = club_setup.organiser
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    for user in (a, b):  # both in: the showdown ends the hand, the next is dealt
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=hand.version)
    ruling_adjust(club=club_setup.club, from_user=a, to_user=b, amount=100, reason="Rob is right", ruled_by=organiser)
    version = table.rule_version
    ids = {
        "club_id": club_setup.club.pk,
        "table_id": table.pk,
        "hand_id": hand.pk,
        "user_id": a.pk,
        "rule_set_id": version.rule_set_id,
        "version_id": version.pk,
        "game": "piranha",
        "membership_id": Membership.objects.get(club=club_setup.club, user=a).pk,
    }
    paths = []
    for namespace, pattern in _patterns(get_resolver()):
        wanted = set(pattern.pattern.converters) if hasattr(pattern.pattern, "converters") else set()
        if not wanted <= set(ids):
            continue  # a page keyed by something this walk does not make (a token, a settlement)
        paths.append(reverse(f"{namespace}{pattern.name}", kwargs={k: ids[k] for k in wanted}))
    named = {
        "history": reverse("games:hand_history", args=[table.pk]),
        "rulings": reverse("ledger:rulings", args=[club_setup.club.pk]),
    }
    return organiser, api_token_create(user=organiser, name="walk")[1], sorted(set(paths)), named


@pytest.mark.django_db
@override_settings(API_RATE_PER_MINUTE=1_000_000)  # the walk sends the API hundreds of requests a minute
def test_every_query_parameter_of_every_page_refuses_hostile_values_clearly(pages) -> None:
    client, paths, _ = pages
    assert len(paths) > 20
    walked = 0
    for path in paths:
        with reads_of_query() as names:
            plain = client.get(path)
        assert plain.status_code < 500, path
        # A page that reads no parameter gets them all at once (the cursor every list takes, and junk).
        queries: list[dict[str, str]] = [{"before": "²", **{f"p{k}": v for k, v in enumerate(HOSTILE)}}]
        # A page that reads some gets each hostile value in each of them, one at a time.
        queries += [{name: value} for name in sorted(names) for value in HOSTILE]
        for query in queries:
            response = client.get(path, query)
            walked += 1
            assert response.status_code < 500, (path, query, response.status_code)
            # 409: the club's export waits while a hand is being played (the page says so).
            assert response.status_code in (200, 302, 400, 403, 404, 405, 409), (path, query)
    assert walked > 500


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["history", "rulings"])
@pytest.mark.parametrize("value", ["²", "١", "𝟙", "9" * 30, "-3", "abc", "\x00"])
def test_a_broken_page_link_is_refused_with_a_message(pages, page: str, value: str) -> None:
    client, _, named = pages
    response = client.get(named[page], {"before": value})
    assert response.status_code == 400
    text = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
    assert "That page link is broken; start from the newest." in text


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["history", "rulings"])
def test_a_good_page_link_still_pages(pages, page: str) -> None:
    client, _, named = pages
    assert client.get(named[page], {"before": "5"}).status_code == 200
    assert client.get(named[page], {"before": ""}).status_code == 200
