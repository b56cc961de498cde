"""The clubhouse pages fit a phone: nothing wider than the screen but the tables that scroll in
their own box; the how-to-play page puts the house rules under the rules, the cards wrap."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clubhouse.services import season_open
from games.demo.simulate import simulation_run

pytestmark = pytest.mark.e2e


def test_clubhouse_pages_fit_a_phone(asgi_server, browser, screenshots, club_setup):
    ann = club_setup.members[0]
    club = club_setup.club
    simulation_run(club=club, players=club_setup.everyone, hands=3, seed=4)
    season = season_open(club=club, user=club_setup.organiser, name="Spring")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    asgi_server.log_in(page, ann.username)
    pages = {
        "results": reverse("clubhouse:results", args=[club.pk]),
        "member": reverse("clubhouse:member_results", args=[club.pk, ann.pk]),
        "season": reverse("clubhouse:season", args=[club.pk, season.pk]),
        "summary": reverse("clubhouse:summary", args=[club.pk]),
        "piles": reverse("clubhouse:how_to_play", args=[club.pk, "piles"]),
    }
    for name, url in pages.items():
        page.goto(asgi_server.url + url)
        screenshots(page, name)
        # the page itself never scrolls sideways (wide tables scroll inside .table-scroll)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
    page.goto(asgi_server.url + pages["piles"])
    plain = page.locator(".rules-plain").bounding_box()
    house = page.locator(".rules-house").bounding_box()
    assert plain and house and house["y"] > plain["y"] + plain["height"] - 1  # stacked, not side by side
    context.close()
