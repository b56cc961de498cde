"""The table as three members see it (one on a phone): a hand of each game to the showdown, whose result
stays on the table with the whole board turned and why each player won or lost, until dismissed or the
member acts; on the phone the buttons are on screen on your turn; keys press the offered actions; the
banner says when the socket is down. axe-core finds no violation on the table, lobby and ledger pages.

Screenshots, light and dark, desktop and phone: test-artifacts/<test name>/.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import engine
from games import services
from games.models import Hand
from tests.e2e.test_live_table import DESKTOP, PHONE, WAIT_MS, Player, club_with_players
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ORDER as PILES_ORDER
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
HOLES = {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["4c", "5d", "Jh", "Qs"]}
BOARD = ["Kd", "Kh", "8c", "2d", "6s"]


@functools.cache
def _axe_source() -> str:
    return AXE.read_text()


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (WCAG 2.x A and AA rules and best practices)."""
    # Evaluated through the browser's debugging protocol: the site's CSP forbids an inline script tag. Once a
    # page: the light and dark passes over one page share it.
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source() + "\n;window.axe = axe; true")
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ["violations"]});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}));
    }""")
    return list(found)


def assert_accessible(page: Any, what: str) -> None:
    found = axe_violations(page)
    assert found == [], f"{what}: " + json.dumps(found, indent=1)


def both_schemes(shot: Any, page: Any, name: str) -> None:
    page.emulate_media(color_scheme="light")
    shot(page, f"{name}-light")
    page.emulate_media(color_scheme="dark")
    shot(page, f"{name}-dark")
    page.emulate_media(color_scheme="light")


def buttons_in_viewport(page: Any, height: int) -> None:
    """Every action button lies inside the screen's height. Measured in one pass in the page, so a frame
    arriving meanwhile cannot swap the area between finding a button and measuring it."""
    boxes = page.evaluate("""() => [...document.querySelectorAll("#table-live form.actions button")]
        .map(b => { const r = b.getBoundingClientRect(); return {y: r.y, height: r.height}; })""")
    assert boxes, "no action buttons"
    for box in boxes:
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, box


def test_a_piranha_showdown_stays_on_the_table_with_its_reasons(asgi_server, browser, screenshots) -> None:
    club, organiser, (a, b, c) = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(ante=25, match_cap=50), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES, BOARD, button=1))
    pa, pb, pc = (
        Player(browser, asgi_server, a, DESKTOP),
        Player(browser, asgi_server, b, PHONE),
        Player(browser, asgi_server, c, DESKTOP),
    )
    for p in (pa, pb, pc):
        p.open(table)
        p.wait_version(hand, 0)
    # Before the drop: the pot and what each loser will owe (the cap here); three up, two down.
    expect(pa.page.locator(".match-owed")).to_contain_text("pays $0.50")
    expect(pa.page.locator(".felt .board .card.back")).to_have_count(2)
    expect(pa.page.locator('.seat[data-seat="1"] .badge.dealer')).to_have_count(1)
    expect(pa.page.locator('.seat[data-seat="2"] .seat-money')).to_contain_text("balance -$0.25")
    # The phone: the buttons on screen on your turn, without scrolling.
    buttons_in_viewport(pb.page, PHONE["height"])
    both_schemes(screenshots, pb.page, "phone-your-turn")
    both_schemes(screenshots, pa.page, "desktop-dealt")
    assert_accessible(pa.page, "table")
    pa.page.emulate_media(color_scheme="dark")
    assert_accessible(pa.page, "table, dark")
    pa.page.emulate_media(color_scheme="light")

    # Keys press the offered actions (shown on the buttons), but not while typing in the chat.
    expect(pc.page.locator('#table-live button[value="out"] kbd')).to_have_text("O")
    pc.page.click("#chat-text")
    pc.page.keyboard.press("o")
    expect(pc.page.locator("#chat-text")).to_have_value("o")
    pc.page.fill("#chat-text", "")
    pc.page.locator("h1").click()
    pc.page.keyboard.press("o")
    for p in (pa, pb, pc):
        p.wait_version(hand, 1)
    pa.page.keyboard.press("i")
    for p in (pa, pb, pc):
        p.wait_version(hand, 2)
    pb.act("in")

    # The next hand is dealt beneath the result: the whole board turned, both shown hands, the reasons.
    nxt = Hand.objects.filter(table=table, number=2)
    for p in (pa, pb, pc):
        expect(p.page.locator("#prev-title")).to_have_text("Last hand (1)", timeout=WAIT_MS)
        p.wait_version(nxt.get(), 0)
        previous = p.page.locator("section.previous")
        expect(previous.locator(".board .card")).to_have_count(5)
        expect(previous.locator(".board .card.back")).to_have_count(0)
        expect(previous.locator(".shown-hands li")).to_have_count(2)
        expect(previous.locator(".reasons")).to_contain_text(f"{a.shown_name} has the best high hand")
        expect(previous.locator(".reasons")).to_contain_text(f"{b.shown_name} lost and pays the cap of $0.50")
        expect(previous).to_be_in_viewport()
    buttons_in_viewport(pb.page, PHONE["height"])
    both_schemes(screenshots, pb.page, "phone-result-and-next-hand")
    both_schemes(screenshots, pa.page, "desktop-result-and-next-hand")

    # Dismissed, the result goes (and stays gone as the table moves on); acting in the next hand also ends it.
    pa.page.click("section.previous button.dismiss")
    expect(pa.page.locator("section.previous")).to_have_count(0)
    second = nxt.get()
    pc.act("out")
    for p in (pa, pb, pc):
        p.wait_version(second, 1)
    expect(pa.page.locator("section.previous")).to_have_count(0)
    expect(pc.page.locator("section.previous")).to_have_count(0)  # c acted in hand 2
    expect(pb.page.locator("section.previous")).to_have_count(1)  # b has not yet

    # A one-shot message goes at the table's next update.
    pc.page.click("form.away-toggle button")
    pc.wait_live()
    expect(pc.page.locator("ul.messages")).to_contain_text("You are away")
    pa.act("in")
    pc.wait_version(second, 2)
    expect(pc.page.locator("ul.messages")).to_have_count(0)

    # The socket cut: the banner says so at once, and goes when the table is back.
    pb.context.set_offline(True)
    pb.page.evaluate("window.tableLive.drop()")
    expect(pb.page.locator("#live-status")).to_have_text("Offline, reconnecting…", timeout=WAIT_MS)
    both_schemes(screenshots, pb.page, "phone-offline")
    pb.context.set_offline(False)
    pb.wait_live()
    expect(pb.page.locator("#live-status")).to_be_hidden(timeout=WAIT_MS)

    # The lobby and the ledger pass axe too.
    pa.page.goto(f"{asgi_server.url}/clubs/{club.pk}/tables/")
    assert_accessible(pa.page, "lobby")
    pa.page.goto(f"{asgi_server.url}/clubs/{club.pk}/ledger/")
    assert_accessible(pa.page, "ledger")
    for p in (pa, pb, pc):
        p.context.close()


def test_a_piles_hand_played_on_a_phone_without_scrolling(asgi_server, browser, screenshots) -> None:
    club, organiser, (a, b, c) = club_with_players()
    table = make_table(club, organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(
        table_id=table.pk, user=b, deck=fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
    )
    users = {1: a, 2: b, 3: c}
    by_seat = {
        1: Player(browser, asgi_server, a, DESKTOP),
        2: Player(browser, asgi_server, b, DESKTOP),
        3: Player(browser, asgi_server, c, PHONE),
    }
    phone = by_seat[3]
    for p in by_seat.values():
        p.open(table)
        p.wait_version(hand, 0)
    version = 0
    # Eight stages played by the services; the ninth and the declarations on the pages.
    for stage in range(1, 9):
        for seat in PILES_ORDER:
            action = ("bet:25" if seat == 2 else "call:25") if stage == 1 else "check"
            kind, _, amount = action.partition(":")
            services.hand_act(
                hand_id=hand.pk,
                user=users[seat],
                action={"type": kind, **({"amount": int(amount)} if amount else {})},
                version=version,
            )
            version += 1
    hand.refresh_from_db()
    assert hand.version == version
    for p in by_seat.values():  # played off the pages: load them anew
        p.open(table)
        p.wait_version(hand, version)
    both_schemes(screenshots, phone.page, "phone-stage-9")
    both_schemes(screenshots, by_seat[1].page, "desktop-stage-9")
    assert_accessible(by_seat[1].page, "piles table")
    for seat in PILES_ORDER:
        p = by_seat[seat]
        expect(p.page.locator("#table-live form.actions button").first).to_be_visible(timeout=WAIT_MS)
        if seat == 3:
            buttons_in_viewport(phone.page, PHONE["height"])
        p.act("check")
        version += 1
        for q in by_seat.values():
            q.wait_version(hand, version)
    # All thirteen cards up: the helper says when no low is possible (seat 2 holds kings and queens).
    expect(by_seat[1].page.locator(".felt .board .card.back")).to_have_count(0)
    expect(by_seat[2].page.locator(".my-hand .helper")).to_contain_text("Your best legal low: no low possible")
    buttons_in_viewport(phone.page, PHONE["height"])
    both_schemes(screenshots, phone.page, "phone-declare")
    for seat, choice in ((1, "declare:pig"), (2, "declare:high"), (3, "declare:low")):
        by_seat[seat].act(choice)
        version += 1
        if seat != 3:
            for q in by_seat.values():
                q.wait_version(hand, version)
    nxt = Hand.objects.filter(table=table, number=2)
    for p in by_seat.values():
        expect(p.page.locator("#prev-title")).to_have_text("Last hand (1)", timeout=WAIT_MS)
        p.wait_version(nxt.get(), 0)
        previous = p.page.locator("section.previous")
        expect(previous.locator(".board .card")).to_have_count(13)
        expect(previous.locator(".board .card.back")).to_have_count(0)
        expect(previous.locator(".reasons")).to_contain_text(f"{a.shown_name} declared pig and won both halves")
        expect(previous).to_contain_text("declared pig")
    both_schemes(screenshots, phone.page, "phone-result")
    both_schemes(screenshots, by_seat[2].page, "desktop-result")
    phone.page.click("section.previous button.dismiss")
    expect(phone.page.locator("section.previous")).to_have_count(0)
    for p in by_seat.values():
        p.context.close()


WIDE = [{"width": 1366, "height": 900}, {"width": 1920, "height": 1080}]


def _box(page: Any, selector: str) -> dict[str, float]:
    """The element's box once it is on screen. A frame arriving after the wait may swap the area between the
    wait and the measure (the element found is then detached): measure the new one."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        expect(page.locator(selector)).to_be_visible(timeout=WAIT_MS)
        box = page.locator(selector).bounding_box()
        if box is not None:
            return dict(box)
        assert time.monotonic() < deadline, selector


def test_on_a_wide_screen_the_log_and_chat_sit_beside_the_felt(asgi_server, browser, screenshots) -> None:
    """At 1366 and 1920 px the hand's log and the chat are to the right of the felt, level with it; on a
    phone they stay below it. axe finds nothing in light or dark at either width."""
    club, organiser, (a, b, c) = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(ante=25, match_cap=50), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES, BOARD, button=1))
    for viewport in WIDE:
        p = Player(browser, asgi_server, a, viewport)
        p.open(table)
        p.wait_version(hand, 0)
        felt = _box(p.page, "#table-live .felt")
        for side in ("#table-live .log", "#chat"):
            box = _box(p.page, side)
            assert box["x"] >= felt["x"] + felt["width"], (viewport, side, box, felt)
            assert box["y"] < felt["y"] + felt["height"], (viewport, side, box, felt)
        assert _box(p.page, "#table-live .log")["y"] < _box(p.page, "#chat")["y"]
        both_schemes(screenshots, p.page, f"wide-{viewport['width']}")
        for scheme in ("light", "dark"):
            p.page.emulate_media(color_scheme=scheme)
            assert_accessible(p.page, f"the table at {viewport['width']} px in {scheme}")
        p.page.emulate_media(color_scheme="light")
        p.context.close()

    phone = Player(browser, asgi_server, b, PHONE)
    phone.open(table)
    phone.wait_version(hand, 0)
    felt = _box(phone.page, "#table-live .felt")
    for below in ("#table-live .log", "#chat"):
        assert _box(phone.page, below)["y"] >= felt["y"] + felt["height"], below
    phone.context.close()


def test_motion_only_when_switched_on_and_never_under_reduced_motion(asgi_server, browser) -> None:
    """A turned card moves only for a member who switched motion on for this device, and not at all when the
    device asks for reduced motion."""
    club, organiser, (a, b, c) = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(ante=25, match_cap=50), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES, BOARD, button=1))
    cases = [("1", "no-preference", "card-dealt"), ("1", "reduce", "none"), ("0", "no-preference", "none")]
    for switched, preference, animation in cases:
        p = Player(browser, asgi_server, a, DESKTOP)
        p.context.add_init_script(f"localStorage.setItem('notify.motion', '{switched}');")
        p.page.emulate_media(reduced_motion=preference)  # type: ignore[arg-type]
        p.open(table)
        p.wait_version(hand, 0)
        name = p.page.evaluate("""() => { const c = document.querySelector('#table-live .felt .board .card:not(.back)');
            c.classList.add('dealt'); return getComputedStyle(c).animationName; }""")
        assert name == animation, (switched, preference, name)
        p.context.close()
