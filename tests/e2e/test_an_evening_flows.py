"""An evening that flows, in real browsers (Debian's chromium): a practice table plays hand after hand in one page;
a member keeps two money tables and a practice table open at once (a page each, and the lobby), a Piranha game
ends and is dealt again at the same table with everyone still seated, a Piles hand under the low variant shows its
words and the low's marks, and the header's count and My tables follow the sockets throughout, each checked
against a fresh load; no ledger screen shows practice."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

import engine
from games import services
from games.live.frames import RATE_COUNT
from games.models import Hand, Table
from games.selectors.states import hand_state
from tests.e2e.test_live_table import DESKTOP, WAIT_MS, Player, club_with_players
from tests.games.celery_worker import start_worker
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_piles_low_variant_words import HOLES as LOW_HOLES
from tests.games.test_piles_low_variant_words import ROW, SQUARE1, SQUARE2

pytestmark = [pytest.mark.e2e, pytest.mark.celery]

PLAIN = ("check", "call", "in", "declare")
LOW_BOARD = SQUARE1 + SQUARE2 + ROW  # nobody can make the full house a high needs; Cat's low is 4-3-2-2-A


class Tab(Player):
    """Another tab of a member's browser (the same context: their session, their sockets' cap)."""

    def __init__(self, host: Player) -> None:
        self.user, self.context, self.server = host.user, host.context, host.server
        self.page = host.context.new_page()


def _open_practice(player: Player, club: Any, game: str) -> Table:
    page = player.page
    page.goto(f"{player.server.url}/clubs/{club.pk}/tables/")
    form = page.locator("#practice-form")
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=computers]").select_option("2")
    form.locator("select[name=strength]").select_option("beginner")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{player.server.url}/tables/*/")
    table = Table.objects.filter(practice=True, created_by=player.user).latest("pk")
    player.wait_live()
    page.evaluate("window.__sameDocument = true")  # gone if the page ever reloads
    page.evaluate(WATCH_ERRORS)
    return table


def _current(table: Table) -> Hand:
    hand = Hand.objects.filter(table=table).order_by("-number").first()
    assert hand is not None
    return hand


def _my_seat(hand: Hand, user: Any) -> int | None:
    return next((int(s) for s, u in hand.players.items() if int(u) == user.pk), None)


def page_at_least(player: Player, hand: Hand) -> None:
    """Wait until the page shows ``hand`` at its version or later, or a later hand (hand ids grow)."""
    player.page.wait_for_function(
        """([hand, version]) => {
            const area = document.querySelector("#table-live");
            const shown = area === null ? 0 : Number(area.dataset.handId);
            return shown > hand || (shown === hand && Number(area.dataset.handVersion) >= version);
        }""",
        arg=[hand.pk, hand.version],
        timeout=WAIT_MS,
    )


def _acted(table: Table, before: Hand, user: Any) -> bool:
    """The member's move made at ``before`` is applied: the hand ended, or their turn then is over (a turn of
    theirs awaited now began after it)."""
    now = _current(table)
    if now.pk != before.pk or now.is_finished:
        return True
    seat = _my_seat(now, user)
    began = now.turn_began(seat) if seat is not None else None
    return seat not in engine.to_act(hand_state(now)) or (began is not None and began > before.version)


# Every refusal the page shows (#live-error), kept: one cleared by a later answer still counts.
WATCH_ERRORS = """() => {
    window.__liveErrors = [];
    const el = document.getElementById("live-error");
    new MutationObserver(() => { if (el.textContent) window.__liveErrors.push(el.textContent); })
        .observe(el, {childList: true, characterData: true, subtree: true});
}"""


def _taken(player: Player, table: Table, hand: Hand) -> None:
    """The member's click at ``hand`` was applied, the first time: a click the page refused (its words in
    #live-error, such as a form of an earlier hand) fails here, as it fails the member."""
    page = player.page
    deadline = time.monotonic() + 30
    while not _acted(table, hand, player.user):
        assert not page.evaluate("window.__liveErrors"), f"refused at hand {hand.number}"
        assert time.monotonic() < deadline, f"the member's move at hand {hand.number} was not applied"
        time.sleep(0.1)
    refused = page.evaluate("window.__liveErrors")
    assert not refused, f"the page refused the member's click at hand {hand.number}: {refused}"


def _play_practice_hand(player: Player, table: Table) -> Hand:
    """The member plays the hand in play at ``table`` to its end in their page (plain choices), the computers'
    turns taken by the worker; returns the next hand, which the same page shows without a reload."""
    page, hand = player.page, _current(table)
    number = hand.number
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        hand = _current(table)
        if hand.number > number:
            break
        state = hand_state(hand)
        if hand.is_finished or _my_seat(hand, player.user) not in engine.to_act(state):
            time.sleep(0.2)
            continue
        page_at_least(player, hand)
        if _current(table).pk != hand.pk:
            continue  # the hand ended meanwhile (the member's own sealed decision was its last)
        ready = "#table-live form.actions button.act:not([disabled])"  # the member's own part is in
        page.wait_for_selector(ready, timeout=WAIT_MS)
        chosen = next(
            (b for kind in PLAIN for b in [page.locator(f"{ready}.act-{kind}")] if b.count()), page.locator(ready)
        )
        chosen.first.click()
        _taken(player, table, hand)
    assert hand.number > number, f"hand {number} was not followed by another"
    player.wait_version_from(hand, 0)  # the next hand's area, pushed to the page that stayed open
    assert player.not_reloaded()
    return hand


def test_a_practice_table_plays_three_hands_in_one_page(asgi_server, browser, procs, tmp_path) -> None:
    club, _organiser, (member, _b, _c) = club_with_players()
    procs.append(start_worker(tmp_path, PRACTICE_PAUSE_SECONDS="0.3"))
    player = Player(browser, asgi_server, member, DESKTOP)
    table = _open_practice(player, club, "piles")
    for _ in range(3):
        hand = _play_practice_hand(player, table)
    assert hand.number == 4 and player.not_reloaded(), procs[0].text()[-2000:]
    player.context.close()


# ---- the numbers a page shows live, and those of a fresh load ----


def _fresh(context: Any, url: str) -> tuple[str, list[tuple[int, bool]]]:
    """The header's count and My tables' rows (table id, awaiting me) as a fresh load renders them."""
    html = context.request.get(url + "/tables/mine/").text()
    return _count(html), _rows(html)


def _count(html: str) -> str:
    found = re.search(r'id="tables-waiting">(\d+) waiting<', html)
    return found[1] if found else "0"


def _rows(html: str) -> list[tuple[int, bool]]:
    block = html.split('id="my-tables-live"', 1)[1].split("</section>", 1)[0]
    return [(int(t), "my-turn" in c) for c, t in re.findall(r'<li class="([^"]*)" data-table-id="(\d+)"', block)]


def _live(page: Any) -> tuple[str, list[tuple[int, bool]] | None]:
    html = page.content()
    return _count(html), (_rows(html) if 'id="my-tables-live"' in html else None)


def _numbers_right(player: Player, pages: list[Any]) -> None:
    """Every open page of the member shows the header's count (and My tables, where it is) that a fresh load
    shows, with no reload; waits for the sockets' re-fetches (a loaded machine makes them later)."""
    url = player.server.url
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        fresh = _fresh(player.context, url)
        live = [_live(p) for p in pages]
        wrong = [
            (p.url, got)
            for p, got in zip(pages, live, strict=True)
            if got[0] != fresh[0] or got[1] not in (None, fresh[1])
        ]
        if not wrong:
            return
        assert time.monotonic() < deadline, f"fresh {fresh}, live {wrong}"
        time.sleep(0.2)


def _act(player: Player, table: Table, kind: str) -> None:
    hand = _current(table)
    page_at_least(player, hand)
    player.page.click(f"#table-live form.actions button.act-{kind}:not([disabled])")
    _taken(player, table, hand)


def test_an_evening_with_two_money_tables_and_a_practice_table(asgi_server, browser, procs, tmp_path) -> None:
    club, organiser, (ann, ben, cat) = club_with_players()
    procs.append(start_worker(tmp_path, PRACTICE_PAUSE_SECONDS="0.3"))
    piranha = make_table(club, organiser, engine.PiranhaRules(), players=[ann, ben])
    piles = make_table(club, organiser, engine.PilesRules(), players=[ann, cat])
    services.table_start(table_id=piranha.pk, user=ann)
    services.table_start(table_id=piles.pk, user=ann)

    host = Player(browser, asgi_server, ann, DESKTOP)  # Ann's browser: the lobby and a tab per table
    lobby = host.page
    practice = Tab(host)
    table_practice = _open_practice(practice, club, "piles")
    tabs = {}
    for table in (piranha, piles):
        tab = Tab(host)
        tab.open(table)
        tab.page.evaluate(WATCH_ERRORS)
        tabs[table.pk] = tab
    lobby.goto(f"{asgi_server.url}/clubs/{club.pk}/tables/")
    expect(lobby.locator("body")).to_have_attribute("data-lobby-live", "open", timeout=WAIT_MS)
    pages = [lobby, practice.page, *(t.page for t in tabs.values())]
    _numbers_right(host, pages)

    # Piranha: Ann stays in, Ben drops out in his own browser: one in takes the pot and the game is over.
    guest = Player(browser, asgi_server, ben, DESKTOP)
    guest.open(piranha)
    guest.page.evaluate(WATCH_ERRORS)
    _act(tabs[piranha.pk], piranha, "in")
    _numbers_right(host, pages)
    _act(guest, piranha, "out")
    piranha.refresh_from_db()
    assert piranha.status == Table.Status.FINISHED
    _numbers_right(host, pages)
    expect(lobby.locator(f'#my-tables-live li[data-table-id="{piranha.pk}"]')).to_contain_text("the game is over")

    # Dealt again at the same table: both still seated and dealt in; Ben's page follows without a reload.
    first = _current(piranha)
    tab = tabs[piranha.pk]
    tab.page.click("#table-live button.deal-new-game")
    tab.wait_live()
    again = _current(piranha)
    assert again.number == first.number + 1 and sorted(again.players.values()) == sorted([ann.pk, ben.pk])
    guest.wait_version_from(again, 0)
    assert guest.not_reloaded()
    _numbers_right(host, pages)

    # Piles: a turn each, Ann's in her tab; practice: a whole hand, the next one pushed to its page.
    for _ in range(2):
        hand = _current(piles)
        seat = engine.to_act(hand_state(hand))[0]
        if hand.players[str(seat)] == ann.pk:
            _act(
                tabs[piles.pk],
                piles,
                next(k for k in PLAIN if tabs[piles.pk].page.locator(f"#table-live button.act-{k}").count()),
            )
        else:
            action = next(a for a in engine.legal_actions(hand_state(hand), seat) if a.type in PLAIN)
            services.hand_act(hand_id=hand.pk, user=cat, action=action, version=hand.version)
        _numbers_right(host, pages)
    _play_practice_hand(practice, table_practice)
    _numbers_right(host, pages)

    # A Piles hand under the low variant (piles.txt 5.1), in a tab of its own (the practice tab closed, for the
    # member's socket cap): the hand helper's words once no full house can be made, and after the declarations
    # the result's reason and the low's cards marked as the low's (▼, dashed), none as the high's.
    practice.page.close()
    pages.remove(practice.page)
    low = make_table(club, organiser, engine.PilesRules(low_variant=True), players=[ann, ben, cat])
    users = {1: ann, 2: ben, 3: cat}
    hand = services.table_start(table_id=low.pk, user=ann, deck=fixed_deck(LOW_HOLES, LOW_BOARD, button=1))
    tab = Tab(host)
    tab.open(low)
    tab.page.evaluate(WATCH_ERRORS)
    pages.append(tab.page)
    helper = tab.page.locator("#table-live p.helper")
    while engine.state_from_json(_current(low).state).phase == "betting":
        hand = _current(low)
        state = hand_state(hand)
        if state.stage == 4:
            page_at_least(tab, hand)
            expect(helper).to_contain_text("Your best legal high: no high possible.", timeout=WAIT_MS)
        seat = engine.to_act(state)[0]
        services.hand_act(hand_id=hand.pk, user=users[seat], action={"type": "check"}, version=hand.version)
    _numbers_right(host, pages)
    _act(tab, low, "declare[value='declare:high']")
    for seat, choice in ((2, "high"), (3, "low")):
        hand = _current(low)
        services.hand_act(
            hand_id=hand.pk, user=users[seat], action={"type": "declare", "choice": choice}, version=hand.version
        )
    played = Hand.objects.get(table=low, number=1)
    assert played.is_finished
    expect(tab.page.locator("#table-live")).to_contain_text(
        f"{ann.shown_name} and {ben.shown_name} declared high, but neither has a full house or better, "
        "which a high needs in the low variant, so the low takes the whole pot.",
        timeout=WAIT_MS,
    )
    assert tab.not_reloaded()
    _numbers_right(host, pages)
    tab.page.goto(f"{asgi_server.url}/hands/{played.pk}/")
    lows = tab.page.locator('.shown-hands .makes .card.plays-low[aria-label$=", plays in the low"]')
    assert lows.count() >= 5 and tab.page.locator(".shown-hands .card.plays-high").count() == 0
    mark = lows.first.evaluate("(e) => [getComputedStyle(e, '::after').content, getComputedStyle(e).outlineStyle]")
    assert "▼" in mark[0] and mark[1] == "dashed", mark

    # No ledger screen shows practice: the organiser's journal, statements and rulings, and Ann's statement.
    boss = Player(browser, asgi_server, organiser, DESKTOP)
    for path in ("ledger/journal/", f"ledger/members/{ann.pk}/", "ledger/rulings/", "ledger/"):
        boss.page.goto(f"{asgi_server.url}/clubs/{club.pk}/{path}")
        assert "Practice" not in boss.page.locator("main").inner_text(), path
    lobby.goto(f"{asgi_server.url}/clubs/{club.pk}/ledger/statement/")
    assert "Practice" not in lobby.locator("main").inner_text()
    for player in (host, guest, boss):
        player.context.close()


COUNT_SENT = r"""(function () {
  window.__sent = [];
  var Native = window.WebSocket;
  function Counted(url, protocols) {
    var ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    if (String(url).indexOf("/ws/tables/") === -1) return ws;
    var send = ws.send.bind(ws);
    ws.send = function (data) { window.__sent.push([JSON.parse(data).type, Date.now()]); return send(data); };
    return ws;
  }
  Counted.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Counted[k] = Native[k]; });
  window.WebSocket = Counted;
})();"""


def test_a_refusal_for_too_many_messages_is_not_answered_until_the_socket_closes(asgi_server, browser) -> None:
    # Each refusal asked for a sync, which was refused in turn, until the server closed the socket (4429).
    club, organiser, (ann, ben, _c) = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(), players=[ann, ben])
    services.table_start(table_id=table.pk, user=ann)
    player = Player(browser, asgi_server, ann, DESKTOP)
    player.context.add_init_script(COUNT_SENT)
    player.open(table)
    page = player.page
    page.evaluate(f"for (let i = 0; i <= {RATE_COUNT}; i++) window.tableLive.send({{type: 'sync'}})")  # one over
    expect(page.locator("#live-error")).to_have_text("Too many messages: slow down.", timeout=WAIT_MS)
    page.wait_for_timeout(2000)  # what the page sends in answer has been sent
    sent = page.evaluate("window.__sent.filter((m) => m[0] !== 'ping').length")
    assert sent <= RATE_COUNT + 3, f"{sent} messages: the refusals were answered again and again"
    expect(page.locator("#table-root")).to_have_attribute("data-live", "open")
    assert player.not_reloaded()
    player.context.close()


RECORD_ACTIONS = r"""(function () {
  window.__actions = [];
  window.__frames = 0;
  var Native = window.WebSocket;
  function Recorded(url, protocols) {
    var ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    var send = ws.send.bind(ws);
    ws.send = function (data) {
      var m = JSON.parse(data);
      if (m.type === "action") window.__actions.push([m.hand, m.action]);
      return send(data);
    };
    ws.addEventListener("message", function (e) { if (JSON.parse(e.data).type === "table.public") window.__frames++; });
    return ws;
  }
  Recorded.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Recorded[k] = Native[k]; });
  window.WebSocket = Recorded;
})();"""

# A form of another hand than the one shown (an earlier hand's id put in), clicked in the same task.
CLICK_ANOTHER_HAND = """(id) => {
    const form = document.querySelector("#table-live form.actions");
    form.elements.hand.value = id;
    form.querySelector("button.act-in").click();
}"""


def test_a_form_of_another_hand_than_the_one_shown_is_never_sent(asgi_server, browser) -> None:
    # A click sent the form of an earlier hand, and the member was told "That hand is not being played at this
    # table." Now a form acts only on the hand the page shows: one that does not is not sent, the page renders
    # afresh, and the member's next click acts on the hand shown.
    club, organiser, (ann, ben, _c) = club_with_players()
    table = make_table(club, organiser, engine.PiranhaRules(), players=[ann, ben])
    hand = services.table_start(table_id=table.pk, user=ann)
    player = Player(browser, asgi_server, ann, DESKTOP)
    player.context.add_init_script(RECORD_ACTIONS)
    player.open(table)
    page = player.page
    page.evaluate(WATCH_ERRORS)
    page.wait_for_function("() => window.__frames > 0", timeout=WAIT_MS)  # the socket's own render is in
    page.evaluate(CLICK_ANOTHER_HAND, hand.pk - 1)
    expect(page.locator("#table-live form.actions input[name=hand]")).to_have_value(str(hand.pk), timeout=WAIT_MS)
    page.click("#table-live form.actions button.act-in:not([disabled])")
    _taken(player, table, hand)
    assert page.evaluate("window.__actions") == [[hand.pk, "in"]]
    assert player.not_reloaded()
    player.context.close()
