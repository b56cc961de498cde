"""Who may open and post every club URL of the accounts app.

Anonymous -> log-in redirect; not a member (even an organiser elsewhere) -> 404;
member on an organiser-only page -> 403; organiser -> the page, or the change.
Every refusal leaves the club exactly as it was; every allowed post changes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Club, Invitation, Membership, User
from tests.accounts.factories import ClubFactory, InvitationFactory, MembershipFactory
from tests.accounts.helpers import club_state
from tests.conftest import ClubSetup, rows_kept_for_module

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "outsider", "foreign_organiser", "member", "organiser"]


@dataclass
class World:
    club: Club
    users: dict[str, User | None]
    co_organiser: Membership
    plain_member: Membership
    invitation: Invitation


_kept_rows, world = rows_kept_for_module("world", lambda setup: _world(setup))


def _world(club_setup: ClubSetup) -> World:
    club = club_setup.club
    co_organiser = Membership.objects.get(club=club, user=club_setup.members[2])
    co_organiser.role = Membership.Role.ORGANISER
    co_organiser.save()
    foreign_organiser = MembershipFactory(club=ClubFactory(), role=Membership.Role.ORGANISER).user
    return World(
        club=club,
        users={
            "anonymous": None,
            "outsider": club_setup.outsider,
            "foreign_organiser": foreign_organiser,
            "member": club_setup.members[0],
            "organiser": club_setup.organiser,
        },
        co_organiser=co_organiser,
        plain_member=Membership.objects.get(club=club, user=club_setup.members[1]),
        invitation=InvitationFactory(club=club, created_by=club_setup.organiser),
    )


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    url: Callable[[World], str]
    expected: dict[str, int]
    data: Callable[[World], dict[str, str]] = lambda w: {}


def statuses(member: int, organiser: int) -> dict[str, int]:
    return {"anonymous": 302, "outsider": 404, "foreign_organiser": 404, "member": member, "organiser": organiser}


def club_url(name: str) -> Callable[[World], str]:
    return lambda w: reverse(name, args=[w.club.pk])


def membership_url(name: str, target: str) -> Callable[[World], str]:
    return lambda w: reverse(name, args=[w.club.pk, getattr(w, target).pk])


def revoke_url(w: World) -> str:
    return reverse("invitation_revoke", args=[w.club.pk, w.invitation.pk])


CASES = [
    Case("club page", "get", club_url("club_detail"), statuses(200, 200)),
    Case("members page", "get", club_url("club_members"), statuses(200, 200)),
    Case("settings page", "get", club_url("club_settings"), statuses(403, 200)),
    Case(
        "settings save",
        "post",
        club_url("club_settings"),
        statuses(403, 302),
        lambda w: {"name": "Renamed", "currency": "EUR", "credit_limit_units": "25"},
    ),
    Case("invitations page", "get", club_url("club_invitations"), statuses(403, 200)),
    Case(
        "invitation create",
        "post",
        club_url("club_invitations"),
        statuses(403, 302),
        lambda w: {"email": "", "valid_for_days": "7"},
    ),
    Case("invitation revoke", "post", revoke_url, statuses(403, 302)),
    Case("invitation revoke by GET", "get", revoke_url, statuses(403, 405)),
    Case("promote", "post", membership_url("membership_promote", "plain_member"), statuses(403, 302)),
    Case("promote by GET", "get", membership_url("membership_promote", "plain_member"), statuses(403, 405)),
    Case("demote", "post", membership_url("membership_demote", "co_organiser"), statuses(403, 302)),
    Case("demote by GET", "get", membership_url("membership_demote", "co_organiser"), statuses(403, 405)),
    Case("remove", "post", membership_url("membership_remove", "plain_member"), statuses(403, 302)),
    Case("remove by GET", "get", membership_url("membership_remove", "plain_member"), statuses(403, 405)),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_club_url_permission_matrix(world, client_for, case, role):
    url = case.url(world)
    before = club_state(world.club)
    client: Client = client_for(world.users[role])
    response = getattr(client, case.method)(url, case.data(world))

    assert response.status_code == case.expected[role]
    if role == "anonymous":
        assert response["Location"].startswith(reverse("login") + "?next=")
    changed = club_state(world.club) != before
    if case.method == "post" and case.expected[role] == 302 and role != "anonymous":
        assert changed, "an allowed post should have changed the club"
    else:
        assert not changed, "a refused or read-only request changed the club"


@pytest.mark.parametrize("case", [case for case in CASES if case.method == "post"], ids=lambda case: case.name)
def test_club_posts_without_a_csrf_token_are_refused(world, case):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["organiser"], backend="django.contrib.auth.backends.ModelBackend")
    before = club_state(world.club)
    response = client.post(case.url(world), case.data(world))
    assert response.status_code == 403
    assert club_state(world.club) == before


def test_club_forms_carry_a_csrf_token(world, client_for):
    client = client_for(world.users["organiser"])
    for name in ["club_members", "club_invitations", "club_settings"]:
        html = client.get(reverse(name, args=[world.club.pk])).content.decode()
        assert html.count("<form") == html.count('name="csrfmiddlewaretoken"'), name


def test_an_unknown_club_is_404_even_for_an_organiser_elsewhere(world, client_for):
    client = client_for(world.users["organiser"])
    assert client.get(reverse("club_members", args=[999_999])).status_code == 404


# Accounts URLs outside a club: no club membership to check, so not in the matrix above.
NOT_CLUB_URLS = {
    "home",
    "login",
    "login_link_request",
    "login_link_open",
    "logout",
    "password_change",
    "password_change_done",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    "profile",
    "away_toggle",
    "club_new",
    "invitation_accept",
    "email_change",
    "email_change_confirm",
    "api_key_create",
    "api_key_revoke",
    "devices",  # a member's own device keys (tests/games/test_cut.py)
    "device_retire",
}


def test_every_accounts_club_url_is_in_the_matrix(world):
    """A new club URL of the accounts app must join CASES (and any other URL NOT_CLUB_URLS)."""
    from django.urls import resolve

    from accounts import urls

    covered = {resolve(case.url(world)).url_name for case in CASES}
    club_urls = {p.name for p in urls.urlpatterns if "club_id" in p.pattern.converters}
    assert covered == club_urls
    assert {p.name for p in urls.urlpatterns} == club_urls | NOT_CLUB_URLS
