"""The members page: organisers promote, demote and remove; a club never loses its last organiser."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts import services
from accounts.models import Membership, User
from tests.accounts.factories import MembershipFactory
from tests.accounts.helpers import club_state, role_of

pytestmark = pytest.mark.django_db


def action(name: str, membership: Membership) -> str:
    return reverse(name, args=[membership.club_id, membership.pk])


def membership(user: User, club) -> Membership:
    return Membership.objects.get(user=user, club=club)


def test_members_page_lists_everyone_with_role_and_joined_date(club_setup, client_for):
    page = client_for(club_setup.members[0]).get(reverse("club_members", args=[club_setup.club.pk]))
    html = page.content.decode()
    for user in club_setup.everyone:
        assert user.shown_name in html
    assert "Organiser" in html and "Joined" in html
    assert club_setup.outsider.shown_name not in html


def test_members_see_the_list_read_only(club_setup, client_for):
    html = client_for(club_setup.members[0]).get(reverse("club_members", args=[club_setup.club.pk])).content.decode()
    assert "Make organiser" not in html and "/remove/" not in html and "/promote/" not in html


def test_organisers_see_the_actions(club_setup, client_for):
    html = client_for(club_setup.organiser).get(reverse("club_members", args=[club_setup.club.pk])).content.decode()
    assert html.count("Make organiser") == 3 and html.count("/remove/") == 4


def test_organiser_promotes_a_member(club_setup, client_for):
    target = membership(club_setup.members[0], club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_promote", target), follow=True)
    assert "is now an organiser" in response.content.decode()
    assert role_of(club_setup.members[0], club_setup.club) == Membership.Role.ORGANISER


def test_promoting_an_organiser_again_gets_a_message(club_setup, client_for):
    target = membership(club_setup.organiser, club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_promote", target), follow=True)
    assert "already an organiser" in response.content.decode()


def test_the_last_organiser_cannot_demote_themselves(club_setup, client_for):
    target = membership(club_setup.organiser, club_setup.club)
    before = club_state(club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_demote", target), follow=True)
    assert "at least one organiser" in response.content.decode()
    assert club_state(club_setup.club) == before


def test_an_organiser_demotes_another_organiser(club_setup, client_for):
    target = membership(club_setup.members[0], club_setup.club)
    services.membership_promote(club_id=club_setup.club.pk, membership_id=target.pk, by=club_setup.organiser)
    client_for(club_setup.organiser).post(action("membership_demote", target))
    assert role_of(club_setup.members[0], club_setup.club) == Membership.Role.MEMBER


def test_an_organiser_may_step_down_when_another_remains(club_setup, client_for):
    other = membership(club_setup.members[0], club_setup.club)
    services.membership_promote(club_id=club_setup.club.pk, membership_id=other.pk, by=club_setup.organiser)
    mine = membership(club_setup.organiser, club_setup.club)
    client_for(club_setup.organiser).post(action("membership_demote", mine))
    assert role_of(club_setup.organiser, club_setup.club) == Membership.Role.MEMBER


def test_demoting_a_plain_member_gets_a_message(club_setup, client_for):
    target = membership(club_setup.members[0], club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_demote", target), follow=True)
    assert "is not an organiser" in response.content.decode()


def test_organiser_removes_a_member_and_their_account_stays(club_setup, client_for):
    target = membership(club_setup.members[0], club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_remove", target), follow=True)
    assert "removed from the club" in response.content.decode()
    assert role_of(club_setup.members[0], club_setup.club) is None
    assert User.objects.filter(pk=club_setup.members[0].pk).exists()


def test_the_last_organiser_cannot_remove_themselves(club_setup, client_for):
    mine = membership(club_setup.organiser, club_setup.club)
    before = club_state(club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_remove", mine), follow=True)
    assert "at least one organiser" in response.content.decode()
    assert club_state(club_setup.club) == before


def test_an_organiser_may_leave_when_another_organiser_remains(club_setup, client_for):
    other = membership(club_setup.members[0], club_setup.club)
    services.membership_promote(club_id=club_setup.club.pk, membership_id=other.pk, by=club_setup.organiser)
    mine = membership(club_setup.organiser, club_setup.club)
    response = client_for(club_setup.organiser).post(action("membership_remove", mine))
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert role_of(club_setup.organiser, club_setup.club) is None


def test_an_organiser_removes_another_organiser_but_not_the_last(club_setup):
    club = club_setup.club
    other = membership(club_setup.members[0], club)
    services.membership_promote(club_id=club.pk, membership_id=other.pk, by=club_setup.organiser)
    services.membership_remove(club_id=club.pk, membership_id=other.pk, by=club_setup.organiser)
    mine = membership(club_setup.organiser, club)
    with pytest.raises(services.LastOrganiser):
        services.membership_remove(club_id=club.pk, membership_id=mine.pk, by=club_setup.organiser)


@pytest.mark.parametrize("name", ["membership_promote", "membership_demote", "membership_remove"])
def test_a_membership_of_another_club_is_404_and_unchanged(club_setup, client_for, name):
    foreign = MembershipFactory(role=Membership.Role.ORGANISER)
    MembershipFactory(club=foreign.club, role=Membership.Role.ORGANISER)  # so a demotion would be allowed there
    url = reverse(name, args=[club_setup.club.pk, foreign.pk])
    response = client_for(club_setup.organiser).post(url)
    assert response.status_code == 404
    assert Membership.objects.filter(pk=foreign.pk, role=Membership.Role.ORGANISER).exists()


def test_a_demoted_organiser_can_no_longer_act(club_setup):
    club = club_setup.club
    other = membership(club_setup.members[0], club)
    services.membership_promote(club_id=club.pk, membership_id=other.pk, by=club_setup.organiser)
    services.membership_demote(club_id=club.pk, membership_id=other.pk, by=club_setup.organiser)
    target = membership(club_setup.members[1], club)
    with pytest.raises(services.NotAllowed):
        services.membership_promote(club_id=club.pk, membership_id=target.pk, by=club_setup.members[0])
