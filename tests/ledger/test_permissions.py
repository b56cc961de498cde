"""Permission matrix for every ledger URL: anonymous, non-member, member, organiser; own vs other statement."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.demo.simulate import simulation_run
from ledger.models import Settlement
from tests.conftest import rows_kept_for_module

pytestmark = pytest.mark.django_db

ANON, OUTSIDER, MEMBER, ORGANISER = "anonymous", "outsider", "member", "organiser"


_kept_rows, played = rows_kept_for_module("played", lambda setup: _played(setup))  # two simulated hands, once


def _played(club_setup):
    simulation_run(club=club_setup.club, players=club_setup.everyone, hands=2, seed=3)
    ann, ben, _ = club_setup.members
    settlement = Settlement.objects.create(
        club=club_setup.club, payer=ann, payee=ben, amount=100, paid_on="2026-01-01", recorded_by=ann
    )
    return club_setup, settlement


def _who(setup, role):
    return {ANON: None, OUTSIDER: setup.outsider, MEMBER: setup.members[0], ORGANISER: setup.organiser}[role]


def _urls(setup, settlement):
    c = setup.club.pk
    me, other = setup.members[0].pk, setup.members[1].pk
    # (name, method, url, expected status per role); 302 for anonymous means "sent to log in".
    return [
        ("balance sheet", "get", reverse("ledger:balance_sheet", args=[c]), {MEMBER: 200, ORGANISER: 200}),
        ("my statement", "get", reverse("ledger:my_statement", args=[c]), {MEMBER: 302, ORGANISER: 302}),
        ("own statement", "get", reverse("ledger:statement", args=[c, me]), {MEMBER: 200, ORGANISER: 200}),
        ("other's statement", "get", reverse("ledger:statement", args=[c, other]), {MEMBER: 403, ORGANISER: 200}),
        ("own export", "get", reverse("ledger:statement_export", args=[c, me]), {MEMBER: 200, ORGANISER: 200}),
        ("other's export", "get", reverse("ledger:statement_export", args=[c, other]), {MEMBER: 403, ORGANISER: 200}),
        ("journal", "get", reverse("ledger:journal", args=[c]), {MEMBER: 403, ORGANISER: 200}),
        ("journal export", "get", reverse("ledger:journal_export", args=[c]), {MEMBER: 403, ORGANISER: 200}),
        ("chart", "get", reverse("ledger:chart", args=[c]), {MEMBER: 200, ORGANISER: 200}),
        ("other's chart", "get", reverse("ledger:chart", args=[c]) + f"?member={other}", {MEMBER: 403, ORGANISER: 200}),
        ("settle", "get", reverse("ledger:settle", args=[c]), {MEMBER: 200, ORGANISER: 200}),
        ("settle post", "post", reverse("ledger:settle", args=[c]), {MEMBER: 400, ORGANISER: 400}),
        ("limit", "post", reverse("ledger:settlement_limit", args=[c]), {MEMBER: 403, ORGANISER: 400}),
        # The member is the payer: may withdraw (decline) but not confirm. The organiser
        # confirms it, so their decline that follows is refused as already confirmed.
        (
            "confirm",
            "post",
            reverse("ledger:settlement_confirm", args=[c, settlement.pk]),
            {MEMBER: 400, ORGANISER: 302},
        ),
        (
            "decline",
            "post",
            reverse("ledger:settlement_decline", args=[c, settlement.pk]),
            {MEMBER: 302, ORGANISER: 400},
        ),
        ("rulings", "get", reverse("ledger:rulings", args=[c]), {MEMBER: 403, ORGANISER: 200}),
        ("adjust", "post", reverse("ledger:ruling_adjust", args=[c]), {MEMBER: 403, ORGANISER: 400}),
        ("void", "post", reverse("games:ruling_void", args=[c]), {MEMBER: 403, ORGANISER: 400}),
    ]


@pytest.mark.parametrize("role", [ANON, OUTSIDER, MEMBER, ORGANISER])
def test_every_ledger_url_answers_each_role_as_it_should(played, client_for, role):
    setup, settlement = played
    client = client_for(_who(setup, role))
    for name, method, url, expected in _urls(setup, settlement):
        response = getattr(client, method)(url, {})
        if role == ANON:
            assert response.status_code == 302 and "/login/" in response["Location"], name
        elif role == OUTSIDER:
            assert response.status_code == 404, name  # the club's existence is not revealed
        else:
            assert response.status_code == expected[role], (name, response.status_code)
        if role == MEMBER and name == "decline":
            settlement.refresh_from_db()
            assert settlement.status == Settlement.Status.DECLINED


def test_every_ledger_url_is_in_the_matrix(played):
    from django.urls import resolve

    from ledger import urls

    setup, settlement = played
    covered = {resolve(url.split("?")[0]).url_name for _, _, url, _ in _urls(setup, settlement)}
    ledger_pages = {p.name for p in urls.urlpatterns} | {"ruling_void"}  # the void form posts to games
    assert covered == ledger_pages


def test_a_member_of_another_club_in_the_url_is_not_found(played, client_for):
    setup, _ = played
    response = client_for(setup.organiser).get(reverse("ledger:statement", args=[setup.club.pk, setup.outsider.pk]))
    assert response.status_code == 404


def test_posts_need_the_csrf_token(played, client_for):
    from django.test import Client

    setup, _ = played
    client = Client(enforce_csrf_checks=True)
    client.force_login(setup.organiser, backend="django.contrib.auth.backends.ModelBackend")
    response = client.post(reverse("ledger:ruling_adjust", args=[setup.club.pk]), {})
    assert response.status_code == 403
