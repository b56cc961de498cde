"""The card room's closing browser test (issue 29): Ann at a 1366 px desk, Ben at a 1920 px desk and Olive on
a phone played by touch play a hand of Piles (the low variant) and a hand of Piranha through to the showdown,
one scheme each and then the other; the organiser closes the Piranha table mid-hand and goes round the club's
pages. Checked where a browser sees them: fixes 1-11, the cards that play, My tables with a sealed decision
open (it stays sealed), the hand so far (stepping back during play, then back to live), the sound, motion and
appearance switches, axe on every page visited in light and dark (with a one-shot message and without), and
the phone's cards and buttons in the viewport on its turn.

Screenshots: test-artifacts/test_an_evening_at_the_card_room/.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

import engine
from games import services
from games.models import Hand
from tests.e2e.test_cards_that_play import five_per_shown_hand
from tests.e2e.test_live_table import PHONE, WAIT_MS, Player, club_with_players
from tests.e2e.test_site_in_light_and_dark import DARK_BG, LIGHT_BG, _background
from tests.e2e.test_table_layout import BOARD, HOLES, assert_accessible, buttons_in_viewport
from tests.e2e.test_turn_notices_in_the_browser import COUNT_SOUNDS
from tests.games.async_helpers import awaited
from tests.games.helpers import fixed_deck, hidden_cards_in, make_table
from tests.games.test_consumers import session_cookie
from tests.games.test_piles_low_variant_words import HOLES as LOW_HOLES
from tests.games.test_piles_low_variant_words import ROW as LOW_ROW
from tests.games.test_piles_low_variant_words import SQUARE1 as LOW_SQUARE1
from tests.games.test_piles_low_variant_words import SQUARE2 as LOW_SQUARE2

pytestmark = pytest.mark.e2e

DESK_1366 = {"width": 1366, "height": 768}
DESK_1920 = {"width": 1920, "height": 1080}
BACKGROUND = {"light": LIGHT_BG, "dark": DARK_BG}


class Guest(Player):
    """A member's browser: a desk, or a phone played by touch (``phone=True``), in a colour scheme."""

    def __init__(
        self,
        browser: Any,
        server: Any,
        user: Any,
        viewport: dict[str, int],
        scheme: str,
        *,
        phone: bool = False,
        init: str = "",
    ) -> None:
        self.user, self.server, self.viewport, self.phone = user, server, viewport, phone
        self.context = browser.new_context(
            viewport=viewport,
            color_scheme=scheme,  # type: ignore[arg-type]
            has_touch=phone,
            is_mobile=phone,
        )
        self.context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
        if init:
            self.context.add_init_script(init)
        self.page = self.context.new_page()

    def press(self, selector: str) -> None:
        """A tap on the phone, a click at a desk."""
        if self.phone:
            self.page.tap(selector)
        else:
            self.page.click(selector)

    def act(self, value: str) -> None:
        self.press(f'#table-live form.actions button[value="{value}"]')


def both_schemes_clean(page: Any, shot: Any, name: str, back_to: str = "light", *, full_page: bool = True) -> None:
    """axe on the page as it is in light and in dark (the page's background in that scheme); a shot of each."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert _background(page) == BACKGROUND[scheme], f"{name} in {scheme}"
        assert_accessible(page, f"{name}, {scheme}")
        shot(page, f"{name}-{scheme}", full_page=full_page)
    page.emulate_media(color_scheme=back_to)


def wait_all(guests: list[Any], hand: Hand, version: int) -> None:
    """Every page shows ``hand`` at ``version`` or later (a step may bump the version more than once)."""
    for g in guests:
        g.page.wait_for_function(
            """([id, v]) => { const a = document.getElementById("table-live");
                              return a && a.dataset.handId === String(id) && Number(a.dataset.handVersion) >= v; }""",
            arg=[hand.pk, version],
            timeout=WAIT_MS,
        )


def play_in_turn(by_seat: dict[int, Any], hand: Hand, action: str, phone: Any) -> None:
    """Whoever the hand awaits plays ``action`` on their page until nobody in this round is left; on the
    phone's turn its buttons are on screen first."""
    hand.refresh_from_db()
    start = hand.state["stage"]
    while hand.state["phase"] == "betting" and hand.state["stage"] == start:
        guest = by_seat[awaited(hand)[0]]
        if guest is phone:
            buttons_in_viewport(phone.page, PHONE["height"])
        guest.act(action)
        wait_all(list(by_seat.values()), hand, hand.version + 1)
        hand.refresh_from_db()


def step_back_through_the_hand(guest: Any, shot: Any, hidden: list[str], name: str) -> None:
    """The hand so far: opened from the log, four steps back (before the last round and the check that ended
    the one before) shows the board as it stood, a card not yet up; nothing hidden from this member; back
    to live."""
    guest.press("#table-live a[data-so-far]")
    dialog = guest.page.locator("#so-far")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".replay-step")).to_have_count(1, timeout=WAIT_MS)
    last = int(dialog.locator("[data-last]").inner_text())
    expect(dialog.locator("[data-where]")).to_have_text(str(last))
    expect(dialog.locator(".board .card.back")).to_have_count(0)
    for _ in range(4):
        guest.press('#so-far [data-go="prev"]')
    expect(dialog.locator("[data-where]")).to_have_text(str(last - 4))
    assert dialog.locator(".board .card.back").count() >= 1  # the last card was not up yet
    for button in ("prev", "next", "live"):
        box = dialog.locator(f'[data-go="{button}"]').bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= guest.viewport["height"], button
    html = dialog.inner_html()
    assert hidden_cards_in(html, hidden) == set() and "Your sealed decision" not in html
    both_schemes_clean(guest.page, shot, f"{name}-hand-so-far", back_to="dark", full_page=False)
    guest.press('#so-far [data-go="live"]')
    expect(dialog).to_be_hidden()


def ann_decides_sealed(
    guests: list[Any], table: Any, hand: Hand, choice: str, viewer: Any, shot: Any, name: str, *, telling: list[str]
) -> None:
    """Ann makes her sealed decision: the others' tables show only "decided", and so does ``viewer``'s My
    tables, opened meanwhile, with none of the ``telling`` words (the sealed decision still open)."""
    hand.refresh_from_db()
    guests[0].act(choice)
    wait_all(guests, hand, hand.version + 1)
    for g in guests[1:]:
        expect(g.page.locator('#table-live [data-seat="1"] .seat-state')).to_have_text("decided")
    mine = viewer.context.new_page()
    mine.goto(f"{viewer.server.url}/tables/mine/")
    row = mine.locator(f'#my-tables-live li[data-table-id="{table.pk}"]')
    expect(row).to_contain_text("has decided")
    said = row.inner_text().lower()
    assert not [word for word in telling if re.search(rf"\b{word}\b", said)], said
    both_schemes_clean(mine, shot, name)
    mine.close()


def the_others_decide(guests: list[Any], table: Any, hand: Hand, ben: str, olive: str) -> Hand:
    """Ben decides at his desk, then Olive on the phone (its buttons on screen): the showdown; every page
    shows the next hand with the last one's result above it. Returns the next hand."""
    hand.refresh_from_db()
    guests[1].act(ben)
    wait_all(guests, hand, hand.version + 1)
    buttons_in_viewport(guests[2].page, PHONE["height"])
    guests[2].act(olive)
    for g in guests:
        expect(g.page.locator("#prev-title")).to_have_text("Last hand (1)", timeout=WAIT_MS)
    nxt = Hand.objects.get(table=table, number=2)
    wait_all(guests, nxt, 0)
    return nxt


def switch_on(guest: Any, boxes: list[str]) -> None:
    """The per-device switches on the Notifications page (sound of a card turned, motion)."""
    guest.page.goto(f"{guest.server.url}/account/notifications/")
    for box in boxes:
        guest.page.check(box)
        expect(guest.page.locator(box)).to_be_checked()


def test_an_evening_at_the_card_room(asgi_server, browser, screenshots) -> None:
    club, organiser, (ann, ben, olive) = club_with_players()
    ann_g = Guest(browser, asgi_server, ann, DESK_1366, "light", init=COUNT_SOUNDS)
    ben_g = Guest(browser, asgi_server, ben, DESK_1920, "dark", init=COUNT_SOUNDS)
    olive_g = Guest(browser, asgi_server, olive, PHONE, "dark", phone=True)
    guests = [ann_g, ben_g, olive_g]
    switch_on(ann_g, ["#notify-sound-card"])
    both_schemes_clean(ann_g.page, screenshots, "notifications")
    switch_on(ben_g, ["#notify-motion"])

    piles = _piles_to_the_showdown(club, organiser, guests, screenshots)
    piranha = _piranha_to_the_showdown(club, organiser, guests, screenshots)
    _the_organisers_round(asgi_server, browser, club, organiser, piles, piranha, ann_g, screenshots)
    for g in guests:
        g.context.close()


def _piles_to_the_showdown(club: Any, organiser: Any, guests: list[Any], shot: Any) -> Any:
    """Piles, the low variant: seven stages by the services, the last two and the declarations on the pages.
    Ann and Ben declare high and neither has a full house; Olive declares low (fixes 2 and 3)."""
    ann_g, ben_g, olive_g = guests
    table = make_table(
        club, organiser, engine.PilesRules(low_variant=True), players=[ann_g.user, ben_g.user, olive_g.user]
    )
    hand = services.table_start(
        table_id=table.pk, user=ann_g.user, deck=fixed_deck(LOW_HOLES, LOW_SQUARE1 + LOW_SQUARE2 + LOW_ROW, button=1)
    )
    by_seat = {1: ann_g, 2: ben_g, 3: olive_g}
    while hand.state["stage"] < 8:
        seat = awaited(hand)[0]
        services.hand_act(hand_id=hand.pk, user=by_seat[seat].user, action={"type": "check"}, version=hand.version)
        hand.refresh_from_db()
    for g in guests:
        g.open(table)
        g.wait_version(hand, hand.version)
    shot(olive_g.page, "phone-piles-stage-8")
    play_in_turn(by_seat, hand, "check", olive_g)  # its end turns the ninth stage's card
    # The sound and motion switches at work: a sound for Ann only, the card moves for Ben only.
    expect(ann_g.page.locator("html")).to_have_attribute("data-last-sound", "card")
    assert ann_g.page.evaluate("window.__sounds") >= 1 and ben_g.page.evaluate("window.__sounds") == 0
    assert ben_g.page.locator("#table-live .felt .board .card.dealt").count() == 1
    assert ann_g.page.locator("#table-live .felt .board .card.dealt").count() == 0
    play_in_turn(by_seat, hand, "check", olive_g)

    # All thirteen up: the helper names Ann's high that cannot qualify (fix 3).
    for g in guests:
        expect(g.page.locator("#table-live .felt .board .card.back")).to_have_count(0)
    expect(ann_g.page.locator(".my-hand .helper")).to_contain_text("Your best legal high: none that qualifies")
    buttons_in_viewport(olive_g.page, PHONE["height"])  # the declaration, on the phone's screen
    others = [c for s in (1, 2) for c in LOW_HOLES[s]]
    step_back_through_the_hand(olive_g, shot, others, "phone-piles")

    # Ann declares: the others see only "decided", on the table and on My tables (the sealed decision open).
    ann_decides_sealed(
        guests,
        table,
        hand,
        "declare:high",
        ben_g,
        shot,
        "desk-1920-my-tables-sealed-declaration",
        telling=["high", "low", "pig"],
    )

    the_others_decide(guests, table, hand, "declare:high", "declare:low")
    for g in guests:
        previous = g.page.locator("section.previous")
        expect(previous.locator(".reasons")).to_contain_text(
            "declared high, but neither has a full house or better, which a high needs in the low variant, so the low "
            "takes the whole pot."
        )  # fix 2
        expect(previous.locator(".reasons")).not_to_contain_text("Nobody claimed the high half")
        low = '.card.plays[aria-label$="plays in the low"]'
        expect(previous.locator(f".shown-hands .makes {low}")).to_have_count(5)  # Olive's low, of which
        expect(previous.locator(f".shown-hands {low}")).to_have_count(7)  # two hole cards, marked there too
    for g, name in (
        (ann_g, "desk-1366-piles-showdown"),
        (ben_g, "desk-1920-piles-showdown"),
        (olive_g, "phone-piles-showdown"),
    ):
        both_schemes_clean(g.page, shot, name, back_to="light" if g is ann_g else "dark")
    return table


def _piranha_to_the_showdown(club: Any, organiser: Any, guests: list[Any], shot: Any) -> Any:
    """Piranha, the schemes swapped: Ann in, Ben out, Olive in by touch; the sealed drop stays sealed on
    the others' tables, My tables and the hand so far until it opens; five cards play in each shown hand."""
    ann_g, ben_g, olive_g = guests
    for g, scheme in ((ann_g, "dark"), (ben_g, "light"), (olive_g, "light")):
        g.page.emulate_media(color_scheme=scheme)
    table = make_table(
        club, organiser, engine.PiranhaRules(ante=25, match_cap=50), players=[ann_g.user, ben_g.user, olive_g.user]
    )
    hand = services.table_start(table_id=table.pk, user=ann_g.user, deck=fixed_deck(HOLES, BOARD, button=1))
    for g in guests:
        g.open(table)
        g.wait_version(hand, 0)
    buttons_in_viewport(olive_g.page, PHONE["height"])  # the drop: everyone's turn

    # Fix 1: the network goes and comes back with the socket alive; the banner goes with it.
    banner = olive_g.page.locator("#live-status")
    olive_g.context.set_offline(True)
    expect(banner).to_have_text("Offline, reconnecting…", timeout=WAIT_MS)
    olive_g.context.set_offline(False)
    olive_g.wait_live()
    expect(banner).to_be_hidden(timeout=3000)

    ann_decides_sealed(
        guests, table, hand, "in", olive_g, shot, "phone-my-tables-sealed-drop", telling=["stays", "drops", "chose"]
    )
    ben_g.press("#table-live a[data-so-far]")  # the hand so far during the drop, at the 1920 desk
    dialog = ben_g.page.locator("#so-far")
    expect(dialog.locator(".replay-lines")).to_contain_text(f"{ann_g.user.shown_name} has decided.", timeout=WAIT_MS)
    assert hidden_cards_in(dialog.inner_html(), HOLES[1] + HOLES[3]) == set()
    shot(ben_g.page, "desk-1920-piranha-hand-so-far", full_page=False)
    ben_g.page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    second = the_others_decide(guests, table, hand, "out", "in")
    for g in guests:
        reasons = g.page.locator("section.previous .reasons")
        expect(reasons).to_contain_text(f"{ann_g.user.shown_name} has the best high hand")
        five_per_shown_hand(g.page)
        if g is not ben_g:  # Ben dropped: his hand is never shown to the others
            assert hidden_cards_in(g.page.locator("section.previous").inner_html(), HOLES[2]) == set()
    buttons_in_viewport(olive_g.page, PHONE["height"])
    for g, name in (
        (ann_g, "desk-1366-piranha-showdown"),
        (ben_g, "desk-1920-piranha-showdown"),
        (olive_g, "phone-piranha-showdown"),
    ):
        both_schemes_clean(g.page, shot, name)

    # Hand 2, into which Olive's match went, is played out (all drop: its pot carries to hand 3).
    while not second.is_finished:
        seat = awaited(second)[0]
        services.hand_act(hand_id=second.pk, user=guests[seat - 1].user, action={"type": "out"}, version=second.version)
        second.refresh_from_db()
    return table


def _the_organisers_round(
    server: Any, browser: Any, club: Any, organiser: Any, piles: Any, piranha: Any, ann_g: Any, shot: Any
) -> None:
    """The organiser closes Piranha mid-hand 3 (fix 5), tries to void hand 1 under the finished hand 2 (fix 7),
    invites (fixes 4 and 9), reads the ledger (fixes 6, 8 and 10) and the rules (fix 11); the Appearance
    switch; axe on each page."""
    from tests.conftest import ClubSetup
    from tests.ledger.test_money_in_table_pots import _pot_where_everyone_sits_out

    org = Guest(browser, server, organiser, DESK_1366, "light")
    org.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = org.page
    c = f"{server.url}/clubs/{club.pk}"

    page.goto(f"{server.url}/tables/{piranha.pk}/close/")
    page.fill("#close-reason", "End of the night")
    page.click("button:has-text('Close the table')")
    expect(page.locator("ul.messages")).to_contain_text("is closed")
    expect(page.locator(".closed-note")).to_contain_text(re.compile(r"End of the night\. Its pot of \$"))
    for p in (page, ann_g.page):
        expect(p.locator("#table-live .to-act-tag")).to_have_count(0, timeout=WAIT_MS)
        expect(p.locator("#table-live")).not_to_contain_text("Waiting for")
    both_schemes_clean(page, shot, "closed-table-with-message")

    page.goto(f"{c}/ledger/rulings/")
    first = Hand.objects.get(table=piranha, number=1)
    page.select_option("#void_hand", str(first.pk))
    page.fill("#void_reason", "Misdeal")
    page.click("button:has-text('Void hand')")
    error = page.locator("[role=alert]").filter(has_text="can't be voided")
    expect(error).to_contain_text("Void hand 2 first, then")  # fix 7: hand 2 has finished
    expect(error).not_to_contain_text("once it has finished")
    both_schemes_clean(page, shot, "rulings-refused-void")

    page.goto(f"{c}/invitations/")
    page.select_option("select[name=valid_for_days]", "30")
    page.click("button:has-text('Create invitation')")
    expect(page.locator("main > [role=status] > ul.messages > li.message")).to_contain_text("Invitation link created")
    expect(page.locator("select[name=valid_for_days]")).to_have_value("30")  # fix 9
    page.click("button.copy-link")
    expect(page.locator(".copy-done")).to_have_text("Copied.")
    both_schemes_clean(page, shot, "invitations-with-message")  # fix 4

    so_far = f"/hands/{Hand.objects.get(table=piles, number=2).pk}/so-far/?step=1"
    for name, path in (
        ("lobby", f"/clubs/{club.pk}/tables/"),
        ("my-tables", "/tables/mine/"),
        ("piles-table", f"/tables/{piles.pk}/"),
        ("piles-hand-so-far-page", so_far),
    ):
        page.goto(server.url + path)
        both_schemes_clean(page, shot, name)

    friday = _pot_where_everyone_sits_out(
        ClubSetup(club=club, organiser=organiser, outsider=None, members=[ann_g.user, *_two_more(club)])
    )
    page.goto(f"{c}/ledger/")
    expect(page.locator(f'a[href="/tables/{friday.pk}/"]')).to_have_text("Friday")  # fix 10
    expect(page.locator("main")).to_contain_text("Everyone there sits out")
    both_schemes_clean(page, shot, "balance-sheet")  # fix 6: dark beyond the table
    page.goto(f"{c}/ledger/chart/?member={ann_g.user.pk}")
    data = json.loads(page.locator("#ledger-chart-data").text_content() or "{}")
    labels = data["history"]["labels"]
    assert len(labels) > 3 and len(set(labels)) == len(labels), labels  # fix 8
    both_schemes_clean(page, shot, "chart")
    page.goto(f"{c}/how-to-play/piles/")
    expect(page.locator("main")).to_contain_text("the odd cent goes to the high half")  # fix 11
    both_schemes_clean(page, shot, "how-to-play-piles")

    # The Appearance switch overrides the system's scheme, on every page, until set back.
    page.click("footer button[value=dark]")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert _background(page) == DARK_BG
    page.goto(f"{c}/ledger/")
    assert _background(page) == DARK_BG
    shot(page, "switched-dark")
    page.click("footer button[value=system]")
    assert _background(page) == LIGHT_BG
    org.context.close()


def _two_more(club: Any) -> list[Any]:
    from accounts.models import Membership
    from tests.accounts.factories import MembershipFactory

    return [MembershipFactory(club=club, role=Membership.Role.MEMBER).user for _ in range(2)]
