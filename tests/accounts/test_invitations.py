"""Invitation life cycle: create, share or email, accept (new or existing account), and every way it is refused."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import services
from accounts.models import Invitation, Membership, User
from tests.accounts.factories import PASSWORD, InvitationFactory, MembershipFactory, UserFactory
from tests.accounts.helpers import club_state, role_of

pytestmark = pytest.mark.django_db

NEW_ACCOUNT = {
    "username": "newbie",
    "display_name": "New Bie",
    "email": "newbie@example.com",
    "password1": "a long and fresh passphrase",
    "password2": "a long and fresh passphrase",
}


def invite_path(invitation: Invitation) -> str:
    return reverse("invitation_accept", args=[invitation.token])


@pytest.fixture
def invitation(club_setup) -> Invitation:
    return InvitationFactory(club=club_setup.club, created_by=club_setup.organiser)


# --- creating ------------------------------------------------------------------------------------------


def test_organiser_creates_a_shareable_link_valid_for_seven_days_by_default(club_setup, client_for):
    client = client_for(club_setup.organiser)
    before = timezone.now()
    response = client.post(reverse("club_invitations", args=[club_setup.club.pk]), {"email": "", "valid_for_days": "7"})
    assert response.status_code == 302
    invitation = Invitation.objects.get(club=club_setup.club)
    assert len(invitation.token) >= 43 and invitation.email == ""
    assert timedelta(days=7) <= invitation.expires_at - before < timedelta(days=7, minutes=1)

    page = client.get(reverse("club_invitations", args=[club_setup.club.pk])).content.decode()
    assert f"http://testserver/invite/{invitation.token}/" in page


def test_the_invitation_form_offers_seven_days_by_default(club_setup, client_for):
    response = client_for(club_setup.organiser).get(reverse("club_invitations", args=[club_setup.club.pk]))
    assert response.context["form"]["valid_for_days"].value() == "7"


def test_the_form_keeps_the_expiry_chosen_last_and_each_link_has_a_copy_button(club_setup, client_for):
    client = client_for(club_setup.organiser)
    url = reverse("club_invitations", args=[club_setup.club.pk])
    assert client.post(url, {"email": "", "valid_for_days": "30"}).status_code == 302
    response = client.get(url)
    assert response.context["form"]["valid_for_days"].value() == "30"
    page = response.content.decode()
    assert '<option value="30" selected>' in page
    invitation = Invitation.objects.get(club=club_setup.club)
    assert f'data-copy="invite-link-{invitation.pk}"' in page and "js/copy-link.js" in page
    # Another organiser (another session) still starts from the default.
    other = MembershipFactory(club=club_setup.club, role=Membership.Role.ORGANISER).user
    assert client_for(other).get(url).context["form"]["valid_for_days"].value() == "7"


def test_an_email_invitation_is_mailed_with_a_working_link(
    club_setup, client_for, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(club_setup.organiser).post(
            reverse("club_invitations", args=[club_setup.club.pk]),
            {"email": "Friend@Example.com", "valid_for_days": "3"},
        )
    assert response.status_code == 302
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["Friend@Example.com"] and club_setup.club.name in mail.subject
    link = re.search(r"http://testserver(/invite/[\w-]+/)", mail.body)
    assert link is not None
    page = client_for(None).get(link.group(1))
    assert page.status_code == 200 and "Create account and join" in page.content.decode()
    assert page.context["form"]["email"].value() == "Friend@Example.com"


@pytest.mark.parametrize("email", ["not-an-email", "a@", "@example.com", "two@@example.com"])
def test_a_malformed_email_is_refused_when_inviting(club_setup, client_for, mailoutbox, email):
    response = client_for(club_setup.organiser).post(
        reverse("club_invitations", args=[club_setup.club.pk]),
        {"email": email, "valid_for_days": "7"},
    )
    assert response.status_code == 200
    assert "valid email address" in response.content.decode()
    assert not Invitation.objects.exists() and mailoutbox == []


def test_inviting_the_address_of_a_member_is_refused(club_setup, client_for):
    member_email = club_setup.members[0].email.upper()
    response = client_for(club_setup.organiser).post(
        reverse("club_invitations", args=[club_setup.club.pk]),
        {"email": member_email, "valid_for_days": "7"},
    )
    assert "already belongs to a member" in response.content.decode()
    assert not Invitation.objects.exists()


def test_a_second_pending_invitation_to_one_address_is_refused(club_setup):
    kwargs = {"club_id": club_setup.club.pk, "created_by": club_setup.organiser, "site_url": "http://x/"}
    services.invitation_create(email="pal@example.com", **kwargs)
    with pytest.raises(services.InvalidInput, match="already has a pending invitation"):
        services.invitation_create(email="PAL@example.com", **kwargs)


def test_an_out_of_range_validity_is_refused(club_setup, client_for):
    response = client_for(club_setup.organiser).post(
        reverse("club_invitations", args=[club_setup.club.pk]),
        {"email": "", "valid_for_days": "365"},
    )
    assert response.status_code == 200 and not Invitation.objects.exists()
    with pytest.raises(services.InvalidInput):
        services.invitation_create(
            club_id=club_setup.club.pk,
            created_by=club_setup.organiser,
            valid_for=timedelta(days=31),
            site_url="http://x/",
        )


def test_a_member_cannot_create_an_invitation_through_the_service(club_setup):
    with pytest.raises(services.NotAllowed):
        services.invitation_create(club_id=club_setup.club.pk, created_by=club_setup.members[0], site_url="http://x/")


def test_tokens_are_unique_and_unguessable(club_setup):
    tokens = {
        services.invitation_create(
            club_id=club_setup.club.pk, created_by=club_setup.organiser, site_url="http://x/"
        ).token
        for _ in range(20)
    }
    assert len(tokens) == 20 and all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)


# --- accepting -----------------------------------------------------------------------------------------


def test_a_new_person_creates_an_account_and_joins(invitation, client, club_setup):
    page = client.get(invite_path(invitation))
    assert page.status_code == 200
    assert f"{reverse('login')}?next={invite_path(invitation)}" in page.content.decode()

    response = client.post(invite_path(invitation), NEW_ACCOUNT, follow=True)
    user = User.objects.get(username="newbie")
    assert response.redirect_chain[-1][0] == reverse("club_detail", args=[club_setup.club.pk])
    assert response.context["user"] == user  # logged in
    assert user.display_name == "New Bie" and user.check_password(NEW_ACCOUNT["password1"])
    assert role_of(user, club_setup.club) == Membership.Role.MEMBER
    invitation.refresh_from_db()
    assert invitation.used_by == user and invitation.used_at is not None


def test_a_logged_in_user_joins_with_one_post_and_a_get_changes_nothing(invitation, client_for, club_setup):
    user = UserFactory()
    client = client_for(user)
    page = client.get(invite_path(invitation))
    assert page.status_code == 200 and "Join as" in page.content.decode()
    assert role_of(user, club_setup.club) is None

    response = client.post(invite_path(invitation))
    assert response.status_code == 302 and response["Location"] == reverse("club_detail", args=[club_setup.club.pk])
    assert role_of(user, club_setup.club) == Membership.Role.MEMBER


def test_an_existing_user_can_log_in_first_and_then_join(invitation, client, club_setup):
    user = UserFactory()
    response = client.post(
        f"{reverse('login')}?next={invite_path(invitation)}",
        {"username": user.username, "password": PASSWORD, "next": invite_path(invitation)},
    )
    assert response.status_code == 302 and response["Location"] == invite_path(invitation)
    client.post(invite_path(invitation))
    assert role_of(user, club_setup.club) == Membership.Role.MEMBER


def test_an_invitation_joins_only_its_own_club(invitation, client_for, club_setup):
    other_club = MembershipFactory(role=Membership.Role.ORGANISER).club
    user = UserFactory()
    client_for(user).post(invite_path(invitation))
    assert role_of(user, club_setup.club) == Membership.Role.MEMBER
    assert role_of(user, other_club) is None


def test_an_existing_member_gets_a_friendly_message_and_the_invitation_stays_unused(invitation, client_for, club_setup):
    client = client_for(club_setup.members[0])
    before = club_state(club_setup.club)
    for method in (client.get, client.post):
        response = method(invite_path(invitation))
        assert response.status_code == 200
        assert "already a member" in response.content.decode()
    assert club_state(club_setup.club) == before


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_expired_invitation_is_gone_and_changes_nothing(club_setup, client_for, method):
    invitation = InvitationFactory(club=club_setup.club, expires_at=timezone.now() - timedelta(seconds=1))
    user = UserFactory()
    before = club_state(club_setup.club)
    response = getattr(client_for(user), method)(invite_path(invitation))
    assert response.status_code == 410 and "expired" in response.content.decode()
    assert club_state(club_setup.club) == before


def test_an_invitation_works_once(invitation, client_for, club_setup):
    first, second = UserFactory(), UserFactory()
    client_for(first).post(invite_path(invitation))
    before = club_state(club_setup.club)
    response = client_for(second).post(invite_path(invitation))
    assert response.status_code == 410 and "already been used" in response.content.decode()
    assert club_state(club_setup.club) == before and role_of(second, club_setup.club) is None


def test_a_used_invitation_cannot_make_a_second_account(invitation, client_for, client):
    client_for(UserFactory()).post(invite_path(invitation))
    response = client.post(invite_path(invitation), NEW_ACCOUNT)
    assert response.status_code == 410
    assert not User.objects.filter(username="newbie").exists()


def test_a_revoked_invitation_is_gone(invitation, client_for, club_setup):
    client_for(club_setup.organiser).post(reverse("invitation_revoke", args=[club_setup.club.pk, invitation.pk]))
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    page = client_for(club_setup.organiser).get(reverse("club_invitations", args=[club_setup.club.pk]))
    assert invitation.token not in page.content.decode()  # no longer listed as pending

    user = UserFactory()
    response = client_for(user).post(invite_path(invitation))
    assert response.status_code == 410 and "withdrawn" in response.content.decode()
    assert role_of(user, club_setup.club) is None


def test_revoking_a_used_invitation_is_refused_with_a_message(invitation, client_for, club_setup):
    client_for(UserFactory()).post(invite_path(invitation))
    response = client_for(club_setup.organiser).post(
        reverse("invitation_revoke", args=[club_setup.club.pk, invitation.pk]), follow=True
    )
    assert "already been used" in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


def test_an_organiser_cannot_revoke_another_clubs_invitation_through_their_own_club(invitation, client_for):
    other = MembershipFactory(role=Membership.Role.ORGANISER)
    response = client_for(other.user).post(reverse("invitation_revoke", args=[other.club.pk, invitation.pk]))
    assert response.status_code == 404
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


@pytest.mark.parametrize(
    "token",
    [
        "A" * 43,  # well formed, unknown
        "short",
        "x" * 200,
        "bad token!",
        "%00",
        "'; drop table--",
    ],
)
def test_an_unknown_or_malformed_token_is_404_with_a_message(client_for, token):
    for user in (None, UserFactory()):
        client = client_for(user)
        for method in (client.get, client.post):
            response = method(f"/invite/{token}/")
            assert response.status_code == 404
            if "invite/" in response.request["PATH_INFO"]:
                assert "not valid" in response.content.decode()


def test_a_token_that_differs_only_in_case_is_unknown(invitation, client_for):
    response = client_for(UserFactory()).get(f"/invite/{invitation.token.swapcase()}/")
    assert response.status_code == 404


# --- the new-account form ------------------------------------------------------------------------------


@pytest.mark.parametrize("email", ["newbie@EXAMPLE.com", "NEWBIE@example.com"])
def test_a_duplicate_email_is_refused_case_insensitively(invitation, client, club_setup, email):
    UserFactory(email="newbie@example.com")
    before = club_state(club_setup.club)
    response = client.post(invite_path(invitation), {**NEW_ACCOUNT, "username": "other", "email": email})
    assert response.status_code == 200
    assert "belongs to another account" in response.content.decode()
    assert club_state(club_setup.club) == before


def test_a_taken_username_is_refused(invitation, client, club_setup):
    UserFactory(username="NewBie")
    before = club_state(club_setup.club)
    response = client.post(invite_path(invitation), NEW_ACCOUNT)
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert club_state(club_setup.club) == before


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("email", "not-an-email", "valid email address"),
        ("email", "", "This field is required"),
        ("password2", "something else entirely", "didn’t match"),
    ],
)
def test_bad_signup_input_gets_a_message_and_creates_nothing(invitation, client, club_setup, field, value, message):
    before = club_state(club_setup.club)
    response = client.post(invite_path(invitation), {**NEW_ACCOUNT, field: value})
    assert response.status_code == 200 and message in response.content.decode()
    assert club_state(club_setup.club) == before


def test_a_weak_password_is_refused(invitation, client, club_setup):
    before = club_state(club_setup.club)
    response = client.post(invite_path(invitation), {**NEW_ACCOUNT, "password1": "123", "password2": "123"})
    assert response.status_code == 200 and "too short" in response.content.decode()
    assert club_state(club_setup.club) == before


def test_the_service_refuses_a_duplicate_email_even_if_the_form_missed_it(invitation, club_setup):
    UserFactory(email="dup@example.com")
    with pytest.raises(services.InvalidInput, match="belongs to another account"):
        services.invitation_accept_new_account(
            token=invitation.token,
            username="fresh",
            display_name="",
            email="DUP@example.com",
            password="a long passphrase",
        )
    assert not User.objects.filter(username="fresh").exists()
    invitation.refresh_from_db()
    assert invitation.used_at is None


@pytest.mark.parametrize(
    "posted, kept",
    [
        ("Europe/Paris", "Europe/Paris"),  # what the browser said (static/js/time-zone.js)
        ("Mars/Olympus_Mons", "UTC"),  # not a zone we know: the site's
        ("", "UTC"),  # no script ran
    ],
)
def test_a_new_account_takes_the_posted_time_zone_when_it_is_a_real_one(invitation, client, posted, kept):
    response = client.post(invite_path(invitation), {**NEW_ACCOUNT, "time_zone": posted})
    assert response.status_code == 302
    assert User.objects.get(username="newbie").time_zone == kept


def test_the_profile_offers_and_checks_the_zone_list(client_for, club_setup):
    member = club_setup.members[0]
    client = client_for(member)
    page = client.get(reverse("profile")).content.decode()
    assert '<option value="Pacific/Auckland">' in page
    response = client.post(
        reverse("profile"), {"display_name": "", "time_zone": "Nowhere/Else", "turn_notices": "each"}
    )
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    member.refresh_from_db()
    assert member.time_zone == "UTC"
