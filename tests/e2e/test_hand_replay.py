"""The hand replay in a real browser: the steps come from the JSON and are drawn without reloading;
the arrow keys step, space plays and pauses, the address follows the step, and the spectator's page
never shows the hand that dropped (seat 3's cards) at any step."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.test_hand_proof import finished_hand
from tests.games.helpers import hidden_cards_in
from tests.games.test_consumers import session_cookie
from tests.games.test_piranha_game import HOLES_1

pytestmark = pytest.mark.e2e


def test_a_member_steps_through_a_hand_with_the_keys_and_play(browser: Any, asgi_server: Any, screenshots) -> None:
    hand, spectator, _players = finished_hand()
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    context.add_cookies([{"name": "sessionid", "value": session_cookie(spectator), "url": asgi_server.url}])
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(m.text) if m.type == "error" and not m.text.startswith("Failed to load resource") else None
        ),
    )
    page.on(
        "response",
        lambda r: (
            problems.append(f"{r.status} {r.url}") if r.status >= 400 and not r.url.endswith("/favicon.ico") else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.goto(f"{asgi_server.url}/hands/{hand.pk}/replay/")
    page.wait_for_selector('[data-go="play"]:not([hidden])')  # the steps are loaded
    where = page.locator("[data-where]")
    last = int(page.get_attribute("#replay", "data-last") or 0)
    assert last == 3 + 1  # the deal, three drops, the showdown and payouts
    seen_titles = [page.inner_text("#step-title")]
    for expected in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        expect(where).to_have_text(str(expected))
        seen_titles.append(page.inner_text("#step-title"))
        assert page.url.endswith(f"?step={expected}")
        assert hidden_cards_in(page.content(), HOLES_1[3]) == set(), expected
    assert seen_titles[0] == "The deal" and seen_titles[-1] == "Showdown and payouts"
    assert page.get_attribute('[data-go="next"]', "aria-disabled") == "true"
    screenshots(page, "last-step")
    page.keyboard.press("ArrowLeft")
    expect(where).to_have_text("3")
    # Play from the start: it walks to the end by itself and stops there; pause stops it.
    page.goto(f"{asgi_server.url}/hands/{hand.pk}/replay/?step=0")
    page.wait_for_selector('[data-go="play"]:not([hidden])')
    page.click('[data-go="play"]')
    assert page.get_attribute('[data-go="play"]', "aria-pressed") == "true"
    expect(where).to_have_text("2", timeout=8000)
    page.keyboard.press(" ")  # pause
    assert page.get_attribute('[data-go="play"]', "aria-pressed") == "false"
    stopped = page.inner_text("[data-where]")
    page.wait_for_timeout(2000)
    assert page.inner_text("[data-where]") == stopped
    assert len(loads) == 2 and problems == []
    context.close()
