"""The read-only JSON API: keys, scope, pages, limits, the schema, and no hidden card."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client, override_settings
from django.urls import get_resolver

import engine
from accounts.models import ApiToken
from accounts.tokens import api_token_create, api_token_revoke
from games import services
from games.demo.simulate import simulation_run
from games.models import Hand
from ledger.models import Posting
from tests.games.helpers import fixed_deck, make_table

pytestmark = pytest.mark.django_db

HOLES = {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["Qc", "Jd", "Th", "4s"]}
BOARD = ["Kd", "Kh", "8c", "2d", "6s"]


def _get(key: str | None, path: str) -> tuple[int, dict]:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key is not None else {}
    response = Client().get(path, **headers)
    return response.status_code, json.loads(response.content or b"{}")


@pytest.fixture
def keyed(club_setup):
    ann = club_setup.members[0]
    _, key = api_token_create(user=ann, name="Sheet")
    return club_setup, ann, key


def test_a_key_reads_the_members_clubs_balances_and_statement(keyed):
    setup, ann, key = keyed
    simulation_run(club=setup.club, players=setup.everyone, hands=3, seed=5)
    status, body = _get(key, "/api/v1/clubs")
    assert status == 200 and [c["id"] for c in body["clubs"]] == [setup.club.pk]
    status, body = _get(key, f"/api/v1/clubs/{setup.club.pk}/balances")
    assert status == 200
    assert sum(r["balance_cents"] for r in body["balances"]) + body["pots_cents"] == 0
    status, body = _get(key, f"/api/v1/clubs/{setup.club.pk}/statement")
    assert status == 200 and body["member"]["id"] == ann.pk
    lines = Posting.objects.filter(account__user=ann, club=setup.club).count()
    assert len(body["lines"]) == min(lines, 50)
    if body["lines"]:
        assert body["lines"][0]["balance_after_cents"] == body["balance_cents"]


def test_the_statement_pages_by_the_same_keyset_as_the_page(keyed):
    setup, ann, key = keyed
    from ledger.services import ruling_adjust

    for _ in range(55):
        ruling_adjust(
            club=setup.club, from_user=ann, to_user=setup.members[1], amount=1, reason="Test", ruled_by=setup.organiser
        )
    status, first = _get(key, f"/api/v1/clubs/{setup.club.pk}/statement")
    assert status == 200 and len(first["lines"]) == 50 and first["next"]
    assert first["next"].endswith(f"before={first['lines'][-1]['line']}")
    status, second = _get(key, first["next"].split("testserver")[1])
    assert status == 200 and len(second["lines"]) == 5 and second["next"] is None
    seqs = [line["line"] for line in first["lines"] + second["lines"]]
    assert seqs == list(range(55, 0, -1))
    assert _get(key, f"/api/v1/clubs/{setup.club.pk}/statement?before=abc")[0] == 400


def test_other_clubs_and_other_members_are_refused(keyed):
    setup, ann, key = keyed
    other_club = setup.outsider.memberships.get().club
    assert _get(key, f"/api/v1/clubs/{other_club.pk}/balances") == (404, {"error": "No such club."})
    assert _get(key, f"/api/v1/clubs/{other_club.pk}/statement")[0] == 404
    assert _get(key, f"/api/v1/clubs/{other_club.pk}/tables")[0] == 404
    foreign = make_table(other_club, setup.outsider, engine.PiranhaRules())
    assert _get(key, f"/api/v1/tables/{foreign.pk}/hands")[0] == 404
    # A member reads only their own statement; an organiser any member's.
    ben = setup.members[1]
    assert _get(key, f"/api/v1/clubs/{setup.club.pk}/statement?member={ben.pk}")[0] == 403
    _, organiser_key = api_token_create(user=setup.organiser, name="Books")
    status, body = _get(organiser_key, f"/api/v1/clubs/{setup.club.pk}/statement?member={ben.pk}")
    assert status == 200 and body["member"]["id"] == ben.pk
    assert _get(organiser_key, f"/api/v1/clubs/{setup.club.pk}/statement?member={setup.outsider.pk}")[0] == 404


def test_wrong_missing_and_revoked_keys_are_refused(keyed, client_for):
    setup, ann, key = keyed
    path = f"/api/v1/clubs/{setup.club.pk}/balances"
    assert _get(None, path)[0] == 401
    assert _get(key + "x", path)[0] == 401
    assert _get("", path)[0] == 401
    # A logged-in browser session is not a key.
    assert client_for(ann).get(path).status_code == 401
    token = ApiToken.objects.get(user=ann)
    assert api_token_revoke(user=setup.members[1], token_id=token.pk) is None  # not theirs to revoke
    assert _get(key, path)[0] == 200
    api_token_revoke(user=ann, token_id=token.pk)
    status, body = _get(key, path)
    assert status == 401 and "revoked" in body["error"]


def test_only_a_hash_of_the_key_is_stored(keyed):
    _, ann, key = keyed
    token = ApiToken.objects.get(user=ann)
    assert key not in (token.key_hash, token.prefix) and len(token.key_hash) == 64
    assert key.startswith(token.prefix)


@override_settings(API_RATE_PER_MINUTE=5)
def test_a_key_is_limited_per_minute(keyed):
    setup, _, key = keyed
    path = f"/api/v1/clubs/{setup.club.pk}/balances"
    statuses = [Client().get(path, HTTP_AUTHORIZATION=f"Bearer {key}") for _ in range(7)]
    assert [r.status_code for r in statuses] == [200] * 5 + [429, 429]
    assert 1 <= int(statuses[-1]["Retry-After"]) <= 60


def test_a_hand_shows_only_what_its_page_shows_the_member(club_setup):
    ann, ben, cat = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben, cat])
    hand = services.table_start(table_id=table.pk, user=ann, deck=fixed_deck(HOLES, BOARD, button=1))
    order = {1: ann, 2: ben, 3: cat}
    choices = {1: "in", 2: "in", 3: "out"}
    for version, seat in enumerate((1, 2, 3)):
        services.hand_act(hand_id=hand.pk, user=order[seat], action={"type": choices[seat]}, version=version)
    hand.refresh_from_db()
    assert hand.is_finished
    _, key = api_token_create(user=ann, name="Sheet")
    _, outsider_key = api_token_create(user=club_setup.outsider, name="Other")
    status, listing = _get(key, f"/api/v1/tables/{table.pk}/hands")
    assert status == 200 and [h["id"] for h in listing["hands"]] == [hand.pk]
    status, body = _get(key, f"/api/v1/hands/{hand.pk}")
    assert status == 200 and body["your_seat"] == 1
    raw = json.dumps(body)
    codes = set(re.findall(r'"([2-9TJQKA][cdhs])"', raw))
    # Cat dropped out: their cards are never shown, and the rest of the deck neither.
    assert set(HOLES[1]) | set(BOARD) <= codes  # her own cards and the board are there
    assert codes.isdisjoint(HOLES[3])
    assert codes <= set(HOLES[1]) | set(HOLES[2]) | set(BOARD)
    assert "deck" not in body and "salt" not in body
    assert _get(outsider_key, f"/api/v1/hands/{hand.pk}")[0] == 404


def test_a_hand_being_played_and_a_closed_table_are_refused(club_setup):
    ann, ben, cat = club_setup.members
    closed = make_table(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben], spectators_allowed=False
    )
    hand = services.table_start(table_id=closed.pk, user=ann)
    _, ann_key = api_token_create(user=ann, name="A")
    _, cat_key = api_token_create(user=cat, name="C")
    assert _get(ann_key, f"/api/v1/hands/{hand.pk}")[0] == 409
    assert _get(cat_key, f"/api/v1/hands/{hand.pk}")[0] == 403
    services.hand_act(hand_id=hand.pk, user=ann, action={"type": "out"}, version=0)
    services.hand_act(hand_id=hand.pk, user=ben, action={"type": "out"}, version=1)
    assert _get(cat_key, f"/api/v1/hands/{hand.pk}")[0] == 403
    assert _get(cat_key, f"/api/v1/tables/{closed.pk}/hands")[0] == 403
    assert _get(ann_key, f"/api/v1/hands/{hand.pk}")[0] == 200
    assert Hand.objects.get(pk=hand.pk).is_finished


def test_the_schema_describes_every_api_route():
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    described = {"/api/v1" + path for path in schema["paths"]}
    routed = set()
    for pattern in get_resolver().url_patterns:
        for sub in getattr(pattern, "url_patterns", []):
            route = str(sub.pattern)
            if route.startswith("api/v1/") and sub.name != "api_schema":
                routed.add("/" + re.sub(r"<int:(\w+)>", r"{\1}", route))
    assert described == routed


def test_api_keys_are_made_and_revoked_on_the_profile_page(club_setup, client_for):
    ann = club_setup.members[0]
    client = client_for(ann)
    page = client.post("/profile/api-keys/", {"name": "My sheet"})
    assert page.status_code == 200
    key = re.search(r'value="(hc_[^"]+)"', page.content.decode()).group(1)
    assert _get(key, "/api/v1/clubs")[0] == 200
    profile = client.get("/profile/").content.decode()
    assert "My sheet" in profile and key not in profile
    token = ApiToken.objects.get(user=ann)
    assert client_for(club_setup.members[1]).post(f"/profile/api-keys/{token.pk}/revoke/").status_code == 302
    assert _get(key, "/api/v1/clubs")[0] == 200  # another member's revoke found nothing
    client.post(f"/profile/api-keys/{token.pk}/revoke/")
    assert _get(key, "/api/v1/clubs")[0] == 401
