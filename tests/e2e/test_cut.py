"""The cut in real browsers: the page's script shuffles exactly as the engine and the verifier do; two
seated members' browsers cut the coming deals over the socket and keep the receipts; each verifies the hand
dealt through their cuts; and when the server leaves a member's acknowledged cut out, that member's page
says so."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

import engine
from accounts.models import Membership
from engine import verify
from games import services
from games.models import DealCut, Hand
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.e2e.test_hand_proof import verify_in_page
from tests.games.celery_worker import wait_until
from tests.games.helpers import make_table
from tests.games.test_consumers import session_cookie

pytestmark = pytest.mark.e2e


RECEIPTS = "() => Object.keys(window.homeClubCut.stored())"  # the cut receipts a browser keeps


def member_page(browser: Any, server: Any, user: Any, path: str, context: Any = None) -> tuple[Any, Any, list[str]]:
    """A page of ``user``'s own browser (``context``: the same browser again, its local storage kept)."""
    if context is None:
        context = browser.new_context()
        context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(server.url + path)
    return context, page, problems


def play_out(hand: Hand, players: list[Any]) -> Hand:
    for user in players:
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_finished
    return hand


def test_the_page_script_shuffles_as_the_engine_and_the_verifier(asgi_server, browser) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a = MembershipFactory(club=club).user
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a])
    context, page, problems = member_page(browser, asgi_server, a, f"/tables/{table.pk}/")
    vectors = [("00" * 32, []), ("ff" * 32, ["00" * 16]), ("ab" * 32, ["ff" * 16, "01" * 16])]
    vectors += [(secrets.token_hex(32), [secrets.token_hex(16) for _ in range(n % 5)]) for n in range(20)]
    for root, cuts in vectors:
        got = page.evaluate("([r, c]) => window.homeClubCut.cutOrder(r, c)", [root, cuts])
        assert got == list(engine.cut_order(root, cuts)) == verify.cut_order(root, cuts)
    assert problems == []
    context.close()


def test_two_members_cut_verify_and_a_withheld_cut_is_reported(asgi_server, browser, screenshots) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a, b = (MembershipFactory(club=club).user for _ in range(2))
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a, b])
    pages = {u.pk: member_page(browser, asgi_server, u, f"/tables/{table.pk}/") for u in (a, b)}
    # Both browsers cut deals 1 and 2 (their roots were published when the table opened).
    wait_until(lambda: DealCut.objects.filter(deck__table=table).count() == 4, 30, "not every deal was cut", 0.2)
    for user in (a, b):  # the receipts are kept with the cuts in each browser
        page = pages[user.pk][1]
        wait_until(lambda page=page: len(page.evaluate(RECEIPTS)) == 2, 30, "a browser kept no receipt", 0.2)
    # The test hook: the server withholds b's cut of deal 2, though b's browser holds its receipt.
    DealCut.objects.filter(deck__table=table, deck__number=2, user=b).delete()

    first = play_out(services.table_start(table_id=table.pk, user=a), [a, b])
    assert [c["by"] for c in first.cuts] in ([a.pk, b.pk], [b.pk, a.pk])
    for user in (a, b):
        _, page, problems = member_page(browser, asgi_server, user, f"/hands/{first.pk}/", pages[user.pk][0])
        assert verify_in_page(page).startswith("Verified: all")
        assert page.inner_text("#cut-check") == "Your cut was used in this deal."
        assert problems == []
        page.close()

    second = Hand.objects.filter(table=table, number=2).first() or services.table_start(table_id=table.pk, user=a)
    second = play_out(second, [a, b]) if not second.is_finished else second
    assert [c["by"] for c in second.cuts] == [a.pk]
    _, page, problems = member_page(browser, asgi_server, b, f"/hands/{second.pk}/", pages[b.pk][0])
    alarm = page.inner_text("#cut-check")
    assert alarm.startswith("Warning: the site acknowledged your cut") and "dealt without it" in alarm
    assert page.locator("#cut-check.cut-alarm").is_visible()
    assert verify_in_page(page).startswith("Verified: all")  # the deal itself still checks: the cut was left out
    screenshots(page, "cut-left-out")
    _, page, _ = member_page(browser, asgi_server, a, f"/hands/{second.pk}/", pages[a.pk][0])
    assert page.inner_text("#cut-check") == "Your cut was used in this deal."
    for context, _page, problems in pages.values():
        assert problems == []
        context.close()
