"""The data pages read on a phone: the profile's API keys, the club data page, the member's data
and the account deletion page fit a 390-pixel screen without sideways scrolling."""

from __future__ import annotations

import pytest

from accounts.tokens import api_token_create

pytestmark = pytest.mark.e2e


def test_the_data_pages_fit_a_phone(asgi_server, browser, screenshots, club_setup):
    organiser = club_setup.organiser
    api_token_create(user=organiser, name="A spreadsheet with a rather long name for a key")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    asgi_server.log_in(page, organiser.username)
    for path, name in (
        ("/profile/", "profile"),
        (f"/clubs/{club_setup.club.pk}/data/", "club-data"),
        ("/account/data/", "my-data"),
        ("/account/delete/", "delete"),
    ):
        page.goto(asgi_server.url + path)
        screenshots(page, name)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (path, overflow)
    page.goto(asgi_server.url + "/profile/")
    page.fill("#api-key-name", "Phone")
    page.click("text=Make an API key")
    key = page.input_value("#api-key")
    assert key.startswith("hc_")
    screenshots(page, "key-made")
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    context.close()
