"""The whole site in light and dark: the club's pages take the system's scheme (prefers-color-scheme) or the
footer's Appearance switch, from one set of colours (static/css/site.css), and axe-core finds no violation
on any of them in either scheme, a page showing a one-shot message included. The invitation link's Copy
button copies it.

Screenshots, light and dark: test-artifacts/<test name>/.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

import engine
from games import services
from tests.e2e.test_live_table import DESKTOP, PHONE, club_with_players, session_cookie
from tests.e2e.test_table_layout import HOLES, assert_accessible
from tests.games.helpers import fixed_deck, make_table

pytestmark = pytest.mark.e2e

LIGHT_BG, DARK_BG = "rgb(247, 247, 245)", "rgb(21, 24, 28)"


def _open(browser: Any, server: Any, user: Any, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
    return context


def _background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def _both_schemes_pass_axe(page: Any, shot: Any, name: str) -> None:
    """axe on the page as it is, in the light scheme and in the dark one; a screenshot of each."""
    for scheme, background in (("light", LIGHT_BG), ("dark", DARK_BG)):
        page.emulate_media(color_scheme=scheme)
        assert _background(page) == background, f"{name} in {scheme}"
        assert_accessible(page, f"{name}, {scheme}")
        shot(page, f"{name}-{scheme}")
    page.emulate_media(color_scheme="light")


def _club_with_a_table_and_money() -> tuple[Any, Any, list[Any], Any]:
    """A club whose Piranha table has a hand in play (antes in its pot): lobby, ledger and pots have rows."""
    club, organiser, players = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=players)
    services.table_start(
        table_id=table.pk, user=players[0], deck=fixed_deck(HOLES, ["Kd", "Kh", "8c", "2d", "6s"], button=1)
    )
    return club, organiser, players, table


def test_every_club_page_passes_axe_in_light_and_dark(asgi_server, browser, screenshots) -> None:
    club, organiser, players, table = _club_with_a_table_and_money()
    base = asgi_server.url
    c = f"/clubs/{club.pk}"
    pages = {
        "home": "/",
        "club": f"{c}/",
        "lobby": f"{c}/tables/",
        "table": f"/tables/{table.pk}/",
        "balance-sheet": f"{c}/ledger/",
        "settle-up": f"{c}/ledger/settle/",
        "chart": f"{c}/ledger/chart/",
        "statement": f"{c}/ledger/statement/",
        "journal": f"{c}/ledger/journal/",
        "rulings": f"{c}/ledger/rulings/",
        "how-to-play": f"{c}/how-to-play/piles/",
        "results": f"{c}/results/",
        "rules": f"{c}/rules/",
        "members": f"{c}/members/",
        "invitations": f"{c}/invitations/",
        "profile": "/profile/",
        "hands-played": f"/tables/{table.pk}/hands/",
        "close-table": f"/tables/{table.pk}/close/",
        "notifications": "/account/notifications/",
    }
    for viewport_name, viewport in (("desk", DESKTOP), ("phone", PHONE)):
        context = _open(browser, asgi_server, organiser, viewport)
        page = context.new_page()
        for name, path in pages.items():
            page.goto(base + path)
            _both_schemes_pass_axe(page, screenshots, f"{viewport_name}-{name}")
        context.close()
    logged_out = browser.new_context(viewport=PHONE).new_page()
    logged_out.goto(base + "/login/")
    _both_schemes_pass_axe(logged_out, screenshots, "phone-login")
    logged_out.context.close()


def test_a_page_with_a_message_passes_axe_and_the_link_copies(asgi_server, browser, screenshots) -> None:
    club, organiser, _players, _table = _club_with_a_table_and_money()
    context = _open(browser, asgi_server, organiser, DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=asgi_server.url)
    page = context.new_page()
    page.goto(f"{asgi_server.url}/clubs/{club.pk}/invitations/")
    page.select_option("select[name=valid_for_days]", "30")
    page.click("button:has-text('Create invitation')")
    # The one-shot message, in a status region that is not the list itself (axe: listitem).
    message = page.locator("main > [role=status] > ul.messages > li.message")
    expect(message).to_contain_text("Invitation link created")
    expect(page.locator("select[name=valid_for_days]")).to_have_value("30")  # the expiry chosen last
    _both_schemes_pass_axe(page, screenshots, "invitations-with-message")
    copy = page.locator("button.copy-link")
    expect(copy).to_be_visible()
    copy.click()
    expect(page.locator(".copy-done")).to_have_text("Copied.")
    link = page.locator("input.invite-link").input_value()
    assert page.evaluate("navigator.clipboard.readText()") == link
    context.close()


def test_the_appearance_switch_overrides_the_system(asgi_server, browser, screenshots) -> None:
    club, organiser, _players, _table = _club_with_a_table_and_money()
    context = _open(browser, asgi_server, organiser, DESKTOP)
    page = context.new_page()
    page.emulate_media(color_scheme="light")
    page.goto(f"{asgi_server.url}/clubs/{club.pk}/ledger/")
    assert _background(page) == LIGHT_BG
    page.click("footer button[value=dark]")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.url.endswith(f"/clubs/{club.pk}/ledger/")  # back on the page the switch was on
    assert _background(page) == DARK_BG
    expect(page.locator("footer button[value=dark]")).to_have_attribute("aria-pressed", "true")
    assert_accessible(page, "balance sheet, dark by the switch")
    screenshots(page, "switched-dark")
    page.goto(f"{asgi_server.url}/clubs/{club.pk}/tables/")  # the choice holds on every page
    assert _background(page) == DARK_BG
    page.emulate_media(color_scheme="dark")
    page.click("footer button[value=light]")
    assert _background(page) == LIGHT_BG  # light although the system is dark
    page.click("footer button[value=system]")
    expect(page.locator("html")).not_to_have_attribute("data-theme", "light")
    assert _background(page) == DARK_BG
    context.close()
