"""A member's own data download, and deleting an account while the books keep balancing."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.test import Client

import engine
from accounts.models import Membership, User
from accounts.tokens import api_token_create
from clubdata.archive import club_export
from clubdata.importing import club_import
from games import services
from games.demo.simulate import simulation_run
from games.models import ChatMessage, Seat
from games.services.chat import chat_post
from ledger.models import Posting
from ledger.services import balance_of
from ledger.verify import ledger_problems
from tests.accounts.factories import PASSWORD
from tests.games.helpers import fixed_deck, make_table

pytestmark = pytest.mark.django_db

HOLES = {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["Qc", "Jd", "Th", "4s"]}
BOARD = ["Kd", "Kh", "8c", "2d", "6s"]


def _balances(club):
    return {u: balance_of(club=club, user=u) for u in User.objects.filter(memberships__club=club)}


def test_a_member_downloads_their_own_data_and_sees_no_hidden_card(club_setup, client_for):
    ann, ben, cat = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben, cat])
    hand = services.table_start(table_id=table.pk, user=ann, deck=fixed_deck(HOLES, BOARD, button=1))
    for version, (user, choice) in enumerate(((ann, "in"), (ben, "in"), (cat, "out"))):
        services.hand_act(hand_id=hand.pk, user=user, action={"type": choice}, version=version)
    chat_post(table_id=table.pk, user=ann, text="nice hand")
    response = client_for(ann).get("/account/data/download.json")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["profile"]["username"] == ann.username and data["profile"]["email"] == ann.email
    assert [m["club_id"] for m in data["memberships"]] == [club_setup.club.pk]
    lines = data["statements"][0]["lines"]
    assert len(lines) == Posting.objects.filter(account__user=ann).count() > 0
    assert lines[-1]["balance_after_cents"] == balance_of(club=club_setup.club, user=ann)
    # The showdown hand, and the next hand the table dealt (being played: her view of it so far).
    assert [h["hand"] for h in data["hands"]][0] == hand.pk
    assert [h["finished_at"] is None for h in data["hands"]] == [False, True]
    assert [a["action"] for a in data["hands"][0]["your_actions"]] == [{"type": "in"}]
    assert data["chat"][0]["text"] == "nice hand"
    codes = set(re.findall(r'"([2-9TJQKA][cdhs])"', json.dumps(data["hands"][0])))
    assert set(HOLES[1]) <= codes and codes.isdisjoint(HOLES[3])
    assert "password" not in data["profile"]
    # Nobody else's data: Ben's download names only his hand seat and his own actions.
    ben_data = json.loads(client_for(ben).get("/account/data/download.json").content)
    assert ben_data["profile"]["username"] == ben.username
    assert [a["action"] for a in ben_data["hands"][0]["your_actions"]] == [{"type": "in"}]


def test_deleting_an_account_keeps_the_books_and_replaces_the_name(club_setup):
    ann, ben, cat = club_setup.members
    simulation_run(club=club_setup.club, players=club_setup.everyone, hands=4, seed=2)
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben])
    chat_post(table_id=table.pk, user=ann, text="my words")
    _, key = api_token_create(user=ann, name="Sheet")
    before = _balances(club_setup.club)
    postings_before = Posting.objects.filter(account__user=ann).count()
    old_name, old_username = ann.shown_name, ann.username

    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/account/delete/").content.decode()
    assert "What stays, and why" in page and f"Former member #{ann.pk}" in page and "balance" in page
    refused = client.post("/account/delete/", {"password": "wrong", "confirm": "on"})
    assert refused.status_code == 400 and "not your password" in refused.content.decode()
    assert client.post("/account/delete/", {"password": PASSWORD}).status_code == 400  # not confirmed
    done = client.post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert done.status_code == 200 and "Former member" in done.content.decode()

    ann.refresh_from_db()
    assert ann.shown_name == f"Former member #{ann.pk}" and ann.email == "" and not ann.is_active
    assert not ann.has_usable_password() and old_name not in ann.username
    assert _balances(club_setup.club) == before  # every balance, hers too, unchanged
    assert Posting.objects.filter(account__user=ann).count() == postings_before
    assert ledger_problems(club_id=club_setup.club.pk)[0] == []
    assert Membership.objects.get(user=ann, club=club_setup.club).role == Membership.Role.MEMBER
    assert not Seat.objects.filter(user=ann, left_at__isnull=True).exists()
    assert ChatMessage.objects.get(user=ann).hidden_at is not None
    assert Client().get("/api/v1/clubs", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 401
    # Logged out, and can't log in again.
    assert client.get("/profile/").status_code == 302
    for username in (ann.username, old_username):
        login = Client().post("/login/", {"username": username, "password": PASSWORD})
        assert login.status_code == 200  # the form again, with its error: no session
    # The pages name her by the new name only.
    organiser = Client()
    organiser.force_login(club_setup.organiser, backend="django.contrib.auth.backends.ModelBackend")
    sheet = organiser.get(f"/clubs/{club_setup.club.pk}/ledger/").content.decode()
    assert f"Former member #{ann.pk}" in sheet and old_name not in sheet
    journal = organiser.get(f"/clubs/{club_setup.club.pk}/ledger/journal/").content.decode()
    assert old_name not in journal
    # And a club export carries nothing of who she was.
    out = io.BytesIO()
    club_export(club=club_setup.club, out=out, reason="Moving to a new host")
    assert old_name.encode() not in out.getvalue()
    assert ledger_problems(club_id=club_import(source=io.BytesIO(out.getvalue())).club.pk)[0] == []


def test_deleting_is_refused_while_dealt_into_a_hand_being_played(club_setup, client_for):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[ann, ben])
    services.table_start(table_id=table.pk, user=ann)
    client = client_for(ann)
    page = client.get("/account/delete/").content.decode()
    assert "hand being played at Test table" in page and 'name="password"' not in page
    response = client.post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert response.status_code == 400
    ann.refresh_from_db()
    assert ann.is_active and ann.username != f"former-member-{ann.pk}"


def test_wrong_passwords_on_the_deletion_form_are_limited(club_setup, client_for):
    ann = club_setup.members[0]
    client = client_for(ann)
    for _ in range(5):
        assert (
            "not your password" in client.post("/account/delete/", {"password": "x", "confirm": "on"}).content.decode()
        )
    refused = client.post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert refused.status_code == 400 and "Too many wrong passwords" in refused.content.decode()
    ann.refresh_from_db()
    assert ann.is_active


def test_the_only_organiser_of_a_club_with_members_is_refused(club_setup, client_for):
    response = client_for(club_setup.organiser).post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert response.status_code == 400 and "only organiser" in response.content.decode()
    club_setup.organiser.refresh_from_db()
    assert club_setup.organiser.is_active
