"""A member logs in through a real browser and sees their club."""

from __future__ import annotations

import pytest

from accounts.models import Membership
from tests.accounts.factories import PASSWORD, MembershipFactory

pytestmark = pytest.mark.e2e


def test_member_logs_in_and_sees_their_club(asgi_server, browser, screenshots):
    membership = MembershipFactory(role=Membership.Role.ORGANISER)
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    page = context.new_page()
    page.goto(asgi_server.url + "/")
    assert "/login/" in page.url
    page.fill("input[name=username]", membership.user.username)
    page.fill("input[name=password]", PASSWORD)
    screenshots(page, "login")
    page.click("button[type=submit]")
    page.wait_for_url(asgi_server.url + "/")
    assert membership.club.name in page.inner_text("main")
    screenshots(page, "home")
    context.close()
