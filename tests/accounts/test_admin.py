"""The admin pages for members, clubs, memberships and invitations open for staff."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.accounts.factories import InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["user", "club", "membership", "invitation"])
def test_admin_changelist_and_change_page_open(club_setup, client_for, model):
    admin = UserFactory(is_staff=True, is_superuser=True)
    invitation = InvitationFactory(club=club_setup.club, created_by=club_setup.organiser)
    obj = {
        "user": club_setup.members[0],
        "club": club_setup.club,
        "membership": club_setup.club.memberships.first(),
        "invitation": invitation,
    }[model]
    client = client_for(admin)
    assert client.get(reverse(f"admin:accounts_{model}_changelist")).status_code == 200
    assert client.get(reverse(f"admin:accounts_{model}_change", args=[obj.pk])).status_code == 200


def test_members_cannot_open_the_admin(club_setup, client_for):
    response = client_for(club_setup.organiser).get(reverse("admin:accounts_club_changelist"))
    assert response.status_code == 302
