"""An invitation mailed to one address, forwarded or leaked, used by someone else."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Membership, User
from tests.accounts.factories import InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def invitation(club_setup):
    return InvitationFactory(club=club_setup.club, created_by=club_setup.organiser, email="Friend@Example.com")


def test_another_account_cannot_use_an_invitation_by_email(invitation, client_for):
    stranger = UserFactory(email="stranger@example.com")
    client = client_for(stranger)
    path = reverse("invitation_accept", args=[invitation.token])
    page = client.get(path)
    assert page.status_code == 403 and "works only for the account with that address" in page.content.decode()
    assert client.post(path).status_code == 403
    assert not Membership.objects.filter(user=stranger, club=invitation.club).exists()
    invitation.refresh_from_db()
    assert invitation.used_at is None


def test_the_invited_address_may_use_it_whatever_its_case(invitation, client_for):
    friend = UserFactory(email="friend@example.com")
    assert client_for(friend).post(reverse("invitation_accept", args=[invitation.token])).status_code == 302
    assert Membership.objects.filter(user=friend, club=invitation.club).exists()


def test_a_new_account_from_an_invitation_by_email_gets_that_address(invitation, client):
    response = client.post(
        reverse("invitation_accept", args=[invitation.token]),
        {
            "username": "newbie",
            "display_name": "",
            "email": "attacker@example.com",
            "password1": "a long and fresh passphrase",
            "password2": "a long and fresh passphrase",
        },
    )
    assert response.status_code == 302
    assert User.objects.get(username="newbie").email.lower() == "friend@example.com"


def test_a_shareable_link_says_it_works_for_anyone(club_setup, client):
    link = InvitationFactory(club=club_setup.club, created_by=club_setup.organiser)
    page = client.get(reverse("invitation_accept", args=[link.token])).content.decode()
    assert "works once, for anyone who has it" in page
