"""My tables in a real browser (Debian's chromium): a member opens the page, sees a table waiting for
someone else, and when that seat acts the block is re-fetched over the lobby socket and shows the table
waiting for them, their own clock counting down; axe-core finds no violation, light and dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import engine
from games import services
from tests.e2e.test_live_table import DESKTOP, WAIT_MS, Player, club_with_players
from tests.e2e.test_table_layout import assert_accessible
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table

pytestmark = pytest.mark.e2e


def test_my_tables_shows_the_table_waiting_live_and_is_accessible(asgi_server, browser, screenshots) -> None:
    club, organiser, (a, b, _c) = club_with_players()
    table = make_table(club, organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    first = user_at(hand, awaited(hand)[0])
    second = b if first.pk == a.pk else a
    player = Player(browser, asgi_server, second, DESKTOP)
    page = player.page
    page.goto(f"{asgi_server.url}/tables/mine/")
    row = page.locator(f'#my-tables-live li[data-table-id="{table.pk}"]')
    expect(row).to_contain_text(f"Waiting for {first.shown_name}")
    expect(row.locator(".badge.turn")).to_have_count(0)
    expect(page.locator("body")).to_have_attribute("data-lobby-live", "open", timeout=WAIT_MS)

    services.hand_act(hand_id=hand.pk, user=first, action={"type": "check"}, version=hand.version)
    row = page.locator(f'#my-tables-live li[data-table-id="{table.pk}"]')
    expect(row.locator(".badge.turn")).to_have_text("Your turn", timeout=WAIT_MS)
    expect(row).to_contain_text(f"Waiting for {second.shown_name}")
    expect(row.locator(".countdown")).to_contain_text("(in ", timeout=WAIT_MS)  # static/js/clock.js
    # The header's count follows the same socket, with no reload, and says what a fresh load says.
    expect(page.locator("#tables-waiting")).to_have_text("1 waiting", timeout=WAIT_MS)
    page.reload()
    expect(page.locator("#tables-waiting")).to_have_text("1 waiting")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        screenshots(page, f"my-tables-{scheme}")
        assert_accessible(page, f"My tables ({scheme})")
    player.context.close()
