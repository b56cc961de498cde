"""Who may open the data pages and the API outside a club's URL: every one of them is listed here."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

import engine
from accounts.tokens import api_token_create
from clubdata.urls import urlpatterns as clubdata_urlpatterns
from games import services
from games.urls import urlpatterns as games_urlpatterns
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db

ANON, MEMBER, OUTSIDER = "anonymous", "member", "outsider"
DATA_VIEWS = ("clubdata.views", "games.api.views")


@pytest.fixture
def world(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben])
    hand = services.table_start(table_id=table.pk, user=ann)
    services.hand_act(hand_id=hand.pk, user=ann, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=ben, action={"type": "out"}, version=1)
    keys = {
        MEMBER: api_token_create(user=ann, name="k")[1],
        OUTSIDER: api_token_create(user=club_setup.outsider, name="k")[1],
    }
    users = {ANON: None, MEMBER: ann, OUTSIDER: club_setup.outsider}
    return club_setup, users, keys, {"club": club_setup.club.pk, "table": table.pk, "hand": hand.pk}


def _cases(ids):
    c, t, h = ids["club"], ids["table"], ids["hand"]
    # (url name, method, path, {role: status}); pages send the anonymous to log in, the API answers 401.
    return [
        ("my_data", "get", "/account/data/", {ANON: 302, MEMBER: 200, OUTSIDER: 200}),
        ("my_data_download", "get", "/account/data/download.json", {ANON: 302, MEMBER: 200, OUTSIDER: 200}),
        ("account_delete", "get", "/account/delete/", {ANON: 302, MEMBER: 200, OUTSIDER: 200}),
        ("account_delete", "post", "/account/delete/", {ANON: 302, MEMBER: 400, OUTSIDER: 400}),
        ("api_schema", "get", "/api/v1/openapi.json", {ANON: 200, MEMBER: 200, OUTSIDER: 200}),
        ("api_clubs", "get", "/api/v1/clubs", {ANON: 401, MEMBER: 200, OUTSIDER: 200}),
        ("api_balances", "get", f"/api/v1/clubs/{c}/balances", {ANON: 401, MEMBER: 200, OUTSIDER: 404}),
        ("api_statement", "get", f"/api/v1/clubs/{c}/statement", {ANON: 401, MEMBER: 200, OUTSIDER: 404}),
        ("api_tables", "get", f"/api/v1/clubs/{c}/tables", {ANON: 401, MEMBER: 200, OUTSIDER: 404}),
        ("api_table_hands", "get", f"/api/v1/tables/{t}/hands", {ANON: 401, MEMBER: 200, OUTSIDER: 404}),
        ("api_hand", "get", f"/api/v1/hands/{h}", {ANON: 401, MEMBER: 200, OUTSIDER: 404}),
        ("api_hand", "post", f"/api/v1/hands/{h}", {ANON: 405, MEMBER: 405, OUTSIDER: 405}),
    ]


@pytest.mark.parametrize("role", [ANON, MEMBER, OUTSIDER])
def test_each_data_url_answers_each_role(world, role):
    setup, users, keys, ids = world
    for name, method, path, expected in _cases(ids):
        client = Client()
        if users[role] is not None and not path.startswith("/api/"):
            client.force_login(users[role], backend="django.contrib.auth.backends.ModelBackend")
        headers = {"HTTP_AUTHORIZATION": f"Bearer {keys[role]}"} if role in keys and path.startswith("/api/") else {}
        response = getattr(client, method)(path, **headers)
        assert response.status_code == expected[role], (name, method, role, response.status_code)
        if expected[role] == 302:
            assert response["Location"].startswith(reverse("login"))


def test_every_data_and_api_url_is_listed(world):
    _, _, _, ids = world
    listed = {name for name, *_ in _cases(ids)} | {"club_data", "club_data_export", "club_data_import"}
    ours = {p.name for p in [*games_urlpatterns, *clubdata_urlpatterns] if p.callback.__module__ in DATA_VIEWS}
    assert ours == listed
