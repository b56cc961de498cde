"""Shared fixtures: a club with an organiser and members, logged-in clients."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
from django.test import Client

from accounts.models import Club, Membership, User
from tests.accounts.factories import ClubFactory, MembershipFactory


@dataclass
class ClubSetup:
    club: Club
    organiser: User
    members: list[User]
    outsider: User

    @property
    def everyone(self) -> list[User]:
        return [self.organiser, *self.members]


@pytest.fixture
def club_setup(db: None) -> ClubSetup:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    members = [MembershipFactory(club=club).user for _ in range(3)]
    outsider = MembershipFactory().user  # a member of another club
    return ClubSetup(club=club, organiser=organiser, members=members, outsider=outsider)


@pytest.fixture
def client_for():
    """Return a function that gives a test client logged in as a user."""

    def make(user: User | None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        return client

    return make


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings) -> None:
    """Each test counts mails and requests afresh: the counters live in the shared Redis."""
    settings.RATE_LIMIT_PREFIX = f"limit-{uuid.uuid4().hex}"
