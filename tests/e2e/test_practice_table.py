"""A practice table in a real browser (Debian's chromium): a member opens one of each game from the lobby,
plays a whole hand against computer players (their turns taken by a real Celery worker), asks the coach once,
and the books (ledger entries, balances, statistics) are unchanged."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

import engine
from clubhouse.models import HandResult
from games.models import Hand, Table
from games.selectors.states import hand_state
from ledger.models import Account, JournalEntry
from tests.e2e.test_an_evening_flows import page_at_least
from tests.e2e.test_live_table import DESKTOP, WAIT_MS, Player, club_with_players
from tests.games.celery_worker import start_worker

pytestmark = [pytest.mark.e2e, pytest.mark.celery]

PLAIN = ("check", "call", "in", "declare")


def _books() -> tuple[int, int, int]:
    return JournalEntry.objects.count(), Account.objects.count(), HandResult.objects.count()


@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_a_member_practises_a_whole_hand_with_the_coach_and_the_books_are_unchanged(
    asgi_server, browser, procs, tmp_path, game
) -> None:
    club, _organiser, (member, _b, _c) = club_with_players()
    procs.append(start_worker(tmp_path, PRACTICE_PAUSE_SECONDS="0.3"))
    before = _books()
    player = Player(browser, asgi_server, member, DESKTOP)
    page = player.page
    page.goto(f"{asgi_server.url}/clubs/{club.pk}/tables/")
    form = page.locator("#practice-form")
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=computers]").select_option("2")
    form.locator("select[name=strength]").select_option("beginner")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{asgi_server.url}/tables/*/")
    table = Table.objects.get(practice=True)
    expect(page.locator("#practice-bar")).to_contain_text("Practice")
    player.wait_live()
    hand = Hand.objects.get(table=table)
    mine = next(int(s) for s, u in hand.players.items() if u == member.pk)
    coached = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        hand.refresh_from_db()
        if hand.is_finished:
            break
        if mine not in engine.to_act(hand_state(hand)):
            time.sleep(0.2)
            continue
        page_at_least(player, hand)  # the hand may end meanwhile (the member's sealed decision was its last)
        hand.refresh_from_db()
        if hand.is_finished:
            break
        if not coached:
            page.click("#ask-coach")
            expect(page.locator(".messages")).to_contain_text("Coach: ", timeout=WAIT_MS)
            expect(page.locator(".messages")).to_contain_text("%")
            coached = True
            player.wait_live()
            continue
        ready = "#table-live form.actions button.act:not([disabled])"  # the member's own part is in
        page.wait_for_selector(ready, timeout=WAIT_MS)
        chosen = next(
            (b for kind in PLAIN for b in [page.locator(f"{ready}.act-{kind}")] if b.count()), page.locator(ready)
        )
        chosen.first.click()
        page.wait_for_timeout(300)
    assert hand.is_finished, procs[0].text()[-2000:]
    assert coached
    assert _books() == before
    page.goto(f"{asgi_server.url}/clubs/{club.pk}/tables/")
    expect(page.locator(".badge.practice").first).to_be_visible()
    player.context.close()
