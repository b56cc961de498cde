"""Impersonating a member: taking another member's name (in any case) so that the table, the chat and
the books show two "Ann"s. Display names are unique within a club, compared case-insensitively
(kernel.text.name_key); a member without a display name is shown, and compared, by username. Checked on
the profile page and on joining a club (with an existing account or a new one), with a clear message.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Membership, User
from accounts.services import invitation_create
from tests.accounts.factories import MembershipFactory, UserFactory


def profile_data(user: User, **extra: str) -> dict[str, str]:
    return {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": "UTC",
        "turn_notices": "each",
        "turn_reminder": "on",
        **extra,
    }


def set_name(user: User, name: str) -> None:
    User.objects.filter(pk=user.pk).update(display_name=name)
    user.refresh_from_db()


@pytest.mark.django_db
@pytest.mark.parametrize("taken", ["Ann", "ANN", "ann", " Ann ", "Ａｎｎ"])
def test_taking_another_members_name_on_the_profile_is_refused(club_setup, client_for, taken: str) -> None:
    ann, mallory, _ = club_setup.members
    set_name(ann, "Ann")
    response = client_for(mallory).post(reverse("profile"), profile_data(mallory, display_name=taken))
    assert response.status_code == 200
    assert f"A member of {club_setup.club.name} is already called" in response.content.decode()
    mallory.refresh_from_db()
    assert mallory.display_name != taken


@pytest.mark.django_db
def test_another_members_username_counts_as_their_name(club_setup, client_for) -> None:
    ann, mallory, _ = club_setup.members
    set_name(ann, "")  # shown by username
    response = client_for(mallory).post(reverse("profile"), profile_data(mallory, display_name=ann.username.upper()))
    assert "is already called" in response.content.decode()


@pytest.mark.django_db
def test_the_same_name_in_another_club_and_ones_own_name_are_fine(club_setup, client_for) -> None:
    ann, mallory, _ = club_setup.members
    set_name(ann, "Ann")
    stranger = MembershipFactory().user  # another club's member
    response = client_for(stranger).post(reverse("profile"), profile_data(stranger, display_name="Ann"))
    assert response.status_code == 302
    # Keeping one's own name while changing something else, or changing only its case, is fine.
    response = client_for(ann).post(reverse("profile"), profile_data(ann, display_name="ANN"))
    assert response.status_code == 302


@pytest.mark.django_db
def test_joining_a_club_under_a_members_name_is_refused(club_setup, client_for) -> None:
    ann = club_setup.members[0]
    set_name(ann, "Ann")
    joiner = UserFactory(display_name="aNN")
    invitation = invitation_create(
        club_id=club_setup.club.pk, created_by=club_setup.organiser, site_url="http://testserver/"
    )
    response = client_for(joiner).post(reverse("invitation_accept", args=[invitation.token]))
    assert response.status_code == 400
    assert f"A member of {club_setup.club.name} is already called" in response.content.decode()
    assert not Membership.objects.filter(user=joiner, club=club_setup.club).exists()
    invitation.refresh_from_db()
    assert invitation.used_at is None  # still usable once the joiner picks another name
    set_name(joiner, "Annie")
    response = client_for(joiner).post(reverse("invitation_accept", args=[invitation.token]))
    assert response.status_code == 302
    assert Membership.objects.filter(user=joiner, club=club_setup.club).exists()


@pytest.mark.django_db
def test_a_new_account_under_a_members_name_is_refused(club_setup, client) -> None:
    set_name(club_setup.members[0], "Ann")
    invitation = invitation_create(
        club_id=club_setup.club.pk, created_by=club_setup.organiser, site_url="http://testserver/"
    )
    response = client.post(
        reverse("invitation_accept", args=[invitation.token]),
        {
            "username": "newcomer",
            "display_name": "ann",
            "email": "new@example.org",
            "password1": "a long pass phrase 7",
            "password2": "a long pass phrase 7",
        },
    )
    assert response.status_code == 200
    assert "is already called" in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists()
