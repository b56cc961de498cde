"""The hand page checks the shuffle proof in a real browser (WebCrypto, a static script, no inline
script: it runs under a Content-Security-Policy without 'unsafe-inline'), and a changed salt fails. A hand
dealt through cuts signed by the members' devices verifies in the page and with `python -m engine.verify` on
the downloaded JSON; the same proof with a card relabelled or its scheme downgraded is refused by both."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
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


ROOT = Path(__file__).resolve().parent.parent.parent
PROOF_SCRIPT = re.compile(r'(<script id="hand-proof" type="application/json">)(.*?)(</script>)', re.S)


def change_proof(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    """A tamper of the page: ``change`` applied to the proof JSON the page carries."""

    def tamper(body: str) -> str:
        def swap(m: re.Match[str]) -> str:
            data = json.loads(m.group(2))
            change(data)
            return m.group(1) + json.dumps(data).replace("<", "\\u003c") + m.group(3)

        changed, count = PROOF_SCRIPT.subn(swap, body)
        assert count == 1
        return changed

    return tamper


def open_page(browser: Any, server: Any, user: Any, hand: Hand, *, tamper: Any = None):
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))

    def with_csp(route: Any) -> None:
        response = route.fetch()
        body = response.text()
        if callable(tamper):
            body = tamper(body)
        elif tamper is not None:
            body = body.replace(*tamper)
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        route.fulfill(response=response, body=body, headers={**headers, "content-security-policy": CSP})

    page.route(f"{server.url}/hands/{hand.pk}/", with_csp)
    page.goto(f"{server.url}/hands/{hand.pk}/")
    return context, page, problems


def export_verified(
    context: Any, server: Any, hand: Hand, folder: Path, change: Callable[[dict[str, Any]], None] | None = None
) -> subprocess.CompletedProcess[str]:
    """The hand's proof as the member downloads it (changed by ``change``), checked by `python -m engine.verify`."""
    response = context.request.get(f"{server.url}/hands/{hand.pk}/proof.json")
    assert response.ok, response.status
    data = response.json()
    if change is not None:
        change(data)
    path = folder / f"hand-{hand.pk}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "engine.verify", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


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


def signed_hand() -> tuple[Hand, Any, dict[int, Any]]:
    """A Piranha hand dealt through two cuts signed by seats 1 and 2's devices (keys the test holds); seats 1 and 2
    show down, seat 3 drops; and a spectating member."""
    from accounts.models import Membership
    from tests.accounts.factories import ClubFactory
    from tests.e2e.test_devices import HeldKey, register_held_key, signed_cut

    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    players = {n: MembershipFactory(club=club).user for n in (1, 2, 3)}
    keys = {n: HeldKey() for n in (1, 2)}
    for n, key in keys.items():
        register_held_key(players[n], key, label=f"Seat {n}'s browser")
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=list(players.values()))
    for n, key in keys.items():
        signed_cut(players[n], key, table, 1)
    hand = services.table_start(table_id=table.pk, user=players[1])
    for seat, choice in ((1, "in"), (2, "in"), (3, "out")):
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=players[seat], action={"type": choice}, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_finished and hand.scheme == "merkle-sha256-cut-v2" and len(hand.cuts) == 2
    return hand, MembershipFactory(club=club).user, players


def relabel_a_hole_card(data: dict[str, Any]) -> None:
    """One hole card said to be a board card (the seats' cards and the board swapped in the story)."""
    hole = next(o for o in data["openings"] if o["opened_as"] == "hole")
    hole["opened_as"], hole["seat"] = "board", None


def move_a_hole_card(data: dict[str, Any]) -> None:
    """One hole card said to be another seat's."""
    hole = next(o for o in data["openings"] if o["opened_as"] == "hole")
    others = [s["seat"] for s in data["seats"] if s["seat"] != hole["seat"]]
    hole["seat"] = others[0]


def downgrade(scheme: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["scheme"] = scheme

    return change


def test_signed_cuts_verify_in_the_page_and_with_the_standalone_checker(
    asgi_server, browser, screenshots, tmp_path
) -> None:
    hand, spectator, players = signed_hand()
    for viewer, opened in ((spectator, 13), (players[3], 17)):  # seat 3 dropped: its own cards too
        context, page, problems = open_page(browser, asgi_server, viewer, hand)
        assert verify_in_page(page) == (
            f"Verified: all {opened} opened cards match the root published before the deal, dealt through 2 cuts "
            "from 2 members' devices, each signature checked."
        )
        assert page.locator("#openings .check.ok").count() == opened
        screenshots(page, "signed-cuts-verified")
        result = export_verified(context, asgi_server, hand, tmp_path)
        assert result.returncode == 0 and result.stdout.startswith("OK"), result.stdout + result.stderr
        assert problems == []
        context.close()


@pytest.mark.parametrize(
    "change",
    [relabel_a_hole_card, move_a_hole_card, downgrade("merkle-sha256-cut-v1"), downgrade("merkle-sha256-v1")],
    ids=["hole-card-as-board", "hole-card-of-another-seat", "as-cut-v1", "as-merkle-v1"],
)
def test_a_tampered_signed_proof_is_refused_by_both_checkers(asgi_server, browser, tmp_path, change) -> None:
    hand, _, players = signed_hand()
    context, page, problems = open_page(browser, asgi_server, players[1], hand, tamper=change_proof(change))
    assert verify_in_page(page).startswith("Mismatch:"), page.inner_text("#verify-result")
    assert page.locator("#openings .check.bad").count() >= 1
    result = export_verified(context, asgi_server, hand, tmp_path, change)
    assert result.returncode != 0 and "OK" not in result.stdout, result.stdout + result.stderr
    assert problems == []
    context.close()
