"""The cards that play at a showdown in a real browser: marked by shape (raised, outlined, ▲), named
"plays" for assistive technology, on the hand's page and the replay's last step, light and dark, with
axe still clean; seat 3's dropped hand never shown."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.test_hand_proof import finished_hand
from tests.e2e.test_table_layout import assert_accessible
from tests.games.helpers import hidden_cards_in
from tests.games.test_consumers import session_cookie
from tests.games.test_piranha_game import HOLES_1

pytestmark = pytest.mark.e2e

PLAYS = re.compile(r", plays$")


def five_per_shown_hand(page: Any) -> None:
    hands = page.locator(".shown-hands > li")
    assert hands.count() == 2
    for k in range(hands.count()):
        names = {
            page_name.split(",")[0]
            for page_name in hands.nth(k)
            .get_by_role("img", name=PLAYS)
            .evaluate_all("els => els.map(e => e.ariaLabel)")
        }
        assert len(names) == 5, names
    marked = page.locator(".shown-hands .card.plays").first
    shape = marked.evaluate("""e => ({mark: getComputedStyle(e, '::after').content,
                                     raised: getComputedStyle(e).transform, outline: getComputedStyle(e).outlineStyle})""")
    assert "▲" in shape["mark"] and shape["raised"] != "none" and shape["outline"] == "solid", shape


def test_the_cards_that_play_are_marked_and_named_on_the_hand_page_and_the_replay(
    browser: Any, asgi_server: Any, screenshots
) -> None:
    hand, spectator, _players = finished_hand()
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    context.add_cookies([{"name": "sessionid", "value": session_cookie(spectator), "url": asgi_server.url}])
    page = context.new_page()
    page.goto(f"{asgi_server.url}/hands/{hand.pk}/")
    five_per_shown_hand(page)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        screenshots(page, f"hand-page-{scheme}")
        assert_accessible(page, f"the hand page, {scheme}")
    page.emulate_media(color_scheme="light")

    page.goto(f"{asgi_server.url}/hands/{hand.pk}/replay/?step=3")
    page.wait_for_selector('[data-go="play"]:not([hidden])')
    assert page.locator(".card.plays").count() == 0  # before the showdown nothing plays yet
    page.keyboard.press("ArrowRight")  # the showdown, drawn by the script from the JSON
    page.wait_for_selector(".shown-hands")
    five_per_shown_hand(page)
    assert hidden_cards_in(page.content(), HOLES_1[3]) == set()
    screenshots(page, "replay-showdown")
    assert_accessible(page, "the replay's showdown")
    context.close()
