"""The cards that play at a showdown in a real browser: marked by shape (raised, outlined, ▲), named
"plays" for assistive technology, on the hand's page and the replay's last step, light and dark, with
axe still clean; seat 3's dropped hand never shown."""

from __future__ import annotations

import re
from typing import Any

import pytest

import engine
from games import services
from games.models import Hand
from tests.accounts.factories import MembershipFactory
from tests.e2e.test_hand_proof import finished_hand
from tests.e2e.test_table_layout import assert_accessible
from tests.games.helpers import fixed_deck, hidden_cards_in, make_table
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


# ---- Piles: the high and the low told apart by shape, mark and colour ------------------------------

PILES_HOLES = {1: ["Js", "9c", "6d", "3h", "2s"], 2: ["Kc", "Kh", "Qc", "Qh", "Tc"], 3: ["4c", "6h", "7c", "8c", "5c"]}
PILES_BOARD = ["3d", "8s", "Jh", "Jc", "Ac", "4s", "9h", "Qd", "5h", "Jd", "2c", "Ks", "7d"]  # piles.txt's example

STYLE_OF = """(e) => { const s = getComputedStyle(e), m = getComputedStyle(e, '::after');
  return {outline: s.outlineStyle, colour: s.outlineColor, raised: s.transform, mark: m.content, markColour: m.color}; }"""


def finished_piles_hand() -> tuple[Hand, Any]:
    """piles.txt "One hand, both ways": seat 1 declares pig with four jacks and 5-4-3-2-A, seat 2 high, seat 3
    low; every betting round checked. Returns the hand and a spectating member."""
    from accounts.models import Membership
    from tests.accounts.factories import ClubFactory

    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    players = {n: MembershipFactory(club=club).user for n in (1, 2, 3)}
    table = make_table(club, organiser, engine.PilesRules(), players=list(players.values()))
    hand = services.table_start(table_id=table.pk, user=players[1], deck=fixed_deck(PILES_HOLES, PILES_BOARD, button=1))
    while True:
        hand.refresh_from_db()
        state = engine.state_from_json(hand.state)
        if state.phase != "betting":
            break
        seat = engine.to_act(state)[0]
        services.hand_act(hand_id=hand.pk, user=players[seat], action={"type": "check"}, version=hand.version)
    for seat, choice in ((1, "pig"), (2, "high"), (3, "low")):
        hand.refresh_from_db()
        services.hand_act(
            hand_id=hand.pk, user=players[seat], action={"type": "declare", "choice": choice}, version=hand.version
        )
    hand.refresh_from_db()
    assert hand.is_finished
    return hand, MembershipFactory(club=club).user


def test_the_cards_of_the_high_and_of_the_low_look_different_in_both_schemes_and_decks(
    browser: Any, asgi_server: Any, screenshots
) -> None:
    hand, spectator = finished_piles_hand()
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    context.add_cookies([{"name": "sessionid", "value": session_cookie(spectator), "url": asgi_server.url}])
    page = context.new_page()
    for deck in ("two", "four"):
        context.add_cookies([{"name": "deck_colours", "value": deck, "url": asgi_server.url}])
        page.goto(f"{asgi_server.url}/hands/{hand.pk}/")
        assert ("four-colour" in (page.locator("body").get_attribute("class") or "")) == (deck == "four")
        high = page.locator('.shown-hands .makes .card.plays-high[aria-label$=", plays in the high"]')
        low = page.locator('.shown-hands .makes .card.plays-low[aria-label$=", plays in the low"]')
        assert high.count() >= 5 and low.count() >= 5  # seat 1's four jacks, and 5-4-3-2-A in two hands
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            up, down = high.first.evaluate(STYLE_OF), low.first.evaluate(STYLE_OF)
            assert "▲" in up["mark"] and "▼" in down["mark"] and "▼" not in up["mark"], (up, down)
            assert up["outline"] == "solid" and down["outline"] == "dashed", (up, down)  # shape, not colour alone
            assert up["colour"] != down["colour"] and up["markColour"] != down["markColour"], (up, down)
            assert up["raised"] != down["raised"], (up, down)  # the high raised, the low lowered
            screenshots(page, f"piles-showdown-{deck}-{scheme}")
            assert_accessible(page, f"the Piles hand page, {deck}-colour deck, {scheme}")
        page.emulate_media(color_scheme="light")
    context.close()
