"""The hand page checks the shuffle proof in a real browser (WebCrypto, a static script, no inline
script: it runs under a Content-Security-Policy without 'unsafe-inline'), and a changed salt fails."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from games import services
from games.models import Hand
from games.selectors.hands import hand_committed_positions
from tests.accounts.factories import MembershipFactory
from tests.conftest import ClubSetup
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_consumers import session_cookie
from tests.games.test_hand_proof import older_hand
from tests.games.test_piranha_game import BOARD_1, HOLES_1

pytestmark = pytest.mark.e2e

CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'"


def finished_hand() -> tuple[Hand, Any, dict[int, Any]]:
    """A Piranha hand where seats 1 and 2 show down and seat 3 drops; and a spectating member."""
    from accounts.models import Membership
    from tests.accounts.factories import ClubFactory

    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    players = {n: MembershipFactory(club=club).user for n in (1, 2, 3)}
    setup = ClubSetup(club=club, organiser=organiser, members=list(players.values()), outsider=organiser)
    table = make_table(setup.club, organiser, engine.PiranhaRules(ante=25), players=list(players.values()))
    hand = services.table_start(table_id=table.pk, user=players[1], deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    for seat, choice in ((1, "in"), (2, "in"), (3, "out")):
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=players[seat], action={"type": choice}, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_finished
    return hand, MembershipFactory(club=club).user, players


def open_page(browser: Any, server: Any, user: Any, hand: Hand, *, tamper: tuple[str, str] | None = None):
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))

    def with_csp(route: Any) -> None:
        response = route.fetch()
        body = response.text()
        if tamper is not None:
            body = body.replace(*tamper)
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        route.fulfill(response=response, body=body, headers={**headers, "content-security-policy": CSP})

    page.route(f"{server.url}/hands/{hand.pk}/", with_csp)
    page.goto(f"{server.url}/hands/{hand.pk}/")
    return context, page, problems


def verify_in_page(page: Any) -> str:
    page.click("#verify")
    page.wait_for_function(
        "() => /Verified|Mismatch|Could not|not opened/.test(document.getElementById('verify-result').textContent)"
    )
    return str(page.inner_text("#verify-result"))


def test_a_spectator_and_a_player_verify_the_openings_in_the_browser(asgi_server, browser, screenshots) -> None:
    hand, spectator, players = finished_hand()
    context, page, problems = open_page(browser, asgi_server, spectator, hand)
    assert "does not show that the shuffle itself was fair" in page.inner_text("main")
    assert verify_in_page(page) == "Verified: all 13 opened cards match the root published at the deal."
    assert page.locator("#openings .check.ok").count() == 13
    screenshots(page, "spectator-verified")
    assert problems == []  # nothing refused by the policy, no script error
    context.close()

    context, page, problems = open_page(browser, asgi_server, players[3], hand)
    assert verify_in_page(page) == "Verified: all 17 opened cards match the root published at the deal."
    assert problems == []
    context.close()

    # The policy is in force: an inline script slipped into the page does not run; the check still does.
    context, page, problems = open_page(
        browser,
        asgi_server,
        spectator,
        hand,
        tamper=("</main>", "<script>document.title = 'inline ran';</script></main>"),
    )
    assert verify_in_page(page).startswith("Verified: all 13")
    assert page.title() != "inline ran" and any("Content Security Policy" in p for p in problems)
    context.close()


def test_a_changed_salt_fails_in_the_browser(asgi_server, browser, screenshots) -> None:
    hand, spectator, _ = finished_hand()
    state = engine.state_from_json(hand.state)
    opened = sorted(hand_committed_positions(hand=hand, state=state, seat=None))
    salt = hand.salts[opened[0]]
    changed = ("0" if salt[0] != "0" else "1") + salt[1:]
    context, page, problems = open_page(browser, asgi_server, spectator, hand, tamper=(salt, changed))
    result = verify_in_page(page)
    assert result.startswith("Mismatch: 1 of 13 opened cards do not match the root"), result
    assert page.locator("#openings .check.bad").count() == 1
    screenshots(page, "tampered")
    assert problems == []
    context.close()


def test_an_older_hand_verifies_its_whole_deck_commitment(asgi_server, browser) -> None:
    hand, spectator, players = finished_hand()
    salt = "5a" * 16
    hand = older_hand(hand, salt)
    # Seat 3 dropped and saw the others shown: the whole deck is theirs to check.
    context, page, problems = open_page(browser, asgi_server, players[3], hand)
    assert verify_in_page(page) == "Verified: the deck and salt match the commitment."
    assert problems == []
    context.close()
    # A spectator never saw seat 3's cards: the deck is not opened to them.
    context, page, problems = open_page(browser, asgi_server, spectator, hand)
    assert verify_in_page(page).startswith("The deck of this older hand is not opened to you")
    assert problems == []
    context.close()
