"""A new member's account takes the time zone of the browser they signed up in."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Membership, User
from tests.accounts.factories import PASSWORD, InvitationFactory, MembershipFactory

pytestmark = pytest.mark.e2e


def _sign_up(asgi_server, browser, *, username: str, javascript: bool) -> User:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER)
    invitation = InvitationFactory(club=organiser.club, created_by=organiser.user)
    context = browser.new_context(
        timezone_id="Pacific/Auckland", java_script_enabled=javascript, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    page.goto(asgi_server.url + reverse("invitation_accept", args=[invitation.token]))
    page.fill("input[name=username]", username)
    page.fill("input[name=email]", f"{username}@example.com")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**/clubs/{organiser.club.pk}/")
    context.close()
    return User.objects.get(username=username)


def test_a_new_member_gets_the_browsers_time_zone(asgi_server, browser):
    assert _sign_up(asgi_server, browser, username="priya", javascript=True).time_zone == "Pacific/Auckland"


def test_without_javascript_the_site_zone_is_used(asgi_server, browser, settings):
    assert _sign_up(asgi_server, browser, username="noscript", javascript=False).time_zone == settings.TIME_ZONE
