"""An organiser's account (or a stolen session) used to send invitation mails without end."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Invitation

pytestmark = pytest.mark.django_db


def test_invitation_mails_are_limited_per_organiser(
    club_setup, client_for, settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.INVITATION_MAILS_PER_ORGANISER = 4
    client = client_for(club_setup.organiser)
    url = reverse("club_invitations", args=[club_setup.club.pk])
    with django_capture_on_commit_callbacks(execute=True):
        statuses = [
            client.post(url, {"email": f"friend{n}@example.com", "valid_for_days": "7"}).status_code for n in range(6)
        ]
    assert statuses == [302] * 4 + [200] * 2
    assert len(mailoutbox) == 4 and Invitation.objects.count() == 4
    refused = client.post(url, {"email": "another@example.com", "valid_for_days": "7"}).content.decode()
    assert "many invitation emails" in refused
    # A shareable link sends no mail and is still possible.
    assert client.post(url, {"email": "", "valid_for_days": "7"}).status_code == 302
