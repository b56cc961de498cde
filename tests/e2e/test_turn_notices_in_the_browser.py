"""Turn notices in a real browser (Debian's chromium): a table tab in the background plays the sound and shows
"Your turn at ..." when the turn comes to its member, only if they switched those on; the site installs
(manifest parsed, no installability errors, service worker controlling the whole site); the service
worker shows a pushed notice."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from playwright.sync_api import expect

import engine
from games import services
from tests.e2e.test_live_table import DESKTOP, PHONE, WAIT_MS, Player, club_with_players
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table

pytestmark = pytest.mark.e2e

# Before any page script: a tab in the background, and a record of every sound and notification.
BACKGROUND_TAB = """
Object.defineProperty(document, "visibilityState", { get: function () { return "hidden"; } });
Object.defineProperty(document, "hidden", { get: function () { return true; } });
window.__sounds = 0; window.__shown = [];
var RealAudio = window.AudioContext;
window.AudioContext = function () { window.__sounds += 1; return new RealAudio(); };
var realShow = ServiceWorkerRegistration.prototype.showNotification;
ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
  window.__shown.push(title); return realShow.call(this, title, options);
};
"""


def _switch_on(player: Player, server: Any, sound: bool, browser: bool) -> None:
    player.context.grant_permissions(["notifications"], origin=server.url)
    on = {True: "1", False: "0"}
    player.context.add_init_script(
        BACKGROUND_TAB + f"localStorage.setItem('notify.sound', '{on[sound]}');"
        f" localStorage.setItem('notify.browser', '{on[browser]}');"
    )


def _piles_for_two() -> tuple[Any, Any, Any, Any]:
    """A Piles hand of two members: the table, the hand, who acts first and who second."""
    club, organiser, (a, b, _c) = club_with_players()
    table = make_table(club, organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    first = user_at(hand, awaited(hand)[0])
    return table, hand, first, (b if first.pk == a.pk else a)


def test_a_background_table_tab_sounds_and_notifies_when_the_turn_comes(asgi_server, browser) -> None:
    table, hand, first, second = _piles_for_two()
    waiting = Player(browser, asgi_server, second, PHONE)  # switched both on
    quiet = Player(browser, asgi_server, first, DESKTOP)  # switched neither on
    _switch_on(waiting, asgi_server, sound=True, browser=True)
    _switch_on(quiet, asgi_server, sound=False, browser=False)
    for p in (waiting, quiet):
        p.open(table)
        p.wait_version(hand, 0)
        expect(p.page.locator("html")).to_have_attribute("data-sw", "registered", timeout=WAIT_MS)
    assert waiting.page.evaluate("window.__shown") == [] and waiting.page.evaluate("window.__sounds") == 0

    quiet.act("check")
    waiting.wait_version(hand, 1)
    expect(waiting.page.locator("#table-live")).to_have_attribute("data-my-turn", "1")
    expect(waiting.page.locator("html")).to_have_attribute("data-notified", "1", timeout=WAIT_MS)
    waiting.page.wait_for_function("window.__shown.length === 1", timeout=WAIT_MS)
    assert waiting.page.evaluate("window.__shown") == [f"Your turn at {table.name}"]
    assert waiting.page.evaluate("window.__sounds") == 1

    # The other member's turn comes back to them later; they chose no sound and no notification.
    waiting.act("check")
    quiet.wait_version(hand, 2)
    expect(quiet.page.locator("#table-live")).to_have_attribute("data-my-turn", "1")
    expect(quiet.page.locator("html")).to_have_attribute("data-notified", "1", timeout=WAIT_MS)
    assert quiet.page.evaluate("window.__shown") == [] and quiet.page.evaluate("window.__sounds") == 0
    for p in (waiting, quiet):
        p.context.close()


def shown_notifications(page: Any, wait_ms: float = WAIT_MS) -> list[list[str]]:
    """The worker's notifications (title, text, tag) once there is one (``wait_ms`` at most). Asked again until
    then: each ask reads them afresh and is awaited whole, so no earlier, emptier answer can be read after a later
    one."""
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        notes = page.evaluate("""navigator.serviceWorker.ready.then(function (r) { return r.getNotifications(); })
            .then(function (n) { return n.map(function (x) { return [x.title, x.body, x.tag]; }); })""")
        if notes or time.monotonic() > deadline:
            return list(notes)
        page.wait_for_timeout(100)


def test_the_site_installs_and_its_worker_shows_a_push(asgi_server, browser) -> None:
    context = browser.new_context(viewport=PHONE)
    context.grant_permissions(["notifications"], origin=asgi_server.url)
    page = context.new_page()
    page.goto(f"{asgi_server.url}/login/")
    scope = page.evaluate("navigator.serviceWorker.ready.then(function (r) { return r.scope; })")
    assert scope == f"{asgi_server.url}/"
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"].endswith("/manifest.webmanifest")
    errors = [e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]]
    assert [e for e in errors if e != "in-incognito"] == []  # Playwright's contexts are incognito ones

    # A push as the push service would hand it to the worker: shown with its title, text and link.
    registrations: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
    cdp.send("ServiceWorker.enable")

    def activated() -> list[str]:
        """The site's registrations whose worker is activated: a push reaches a worker only then, and `ready`
        resolves while it may still be activating."""
        ready = {v["registrationId"] for v in versions if v["status"] == "activated"}
        return [
            r["registrationId"]
            for r in registrations
            if r["scopeURL"] == scope and not r.get("isDeleted") and r["registrationId"] in ready
        ]

    deadline = time.monotonic() + WAIT_MS / 1000
    while not (live := activated()):
        assert time.monotonic() < deadline, f"no worker activated at {scope}: {registrations} {versions}"
        page.wait_for_timeout(50)  # the browser's events arrive while Playwright waits
    payload = {
        "title": "Your turn at Main",
        "body": "Club: the table waits for you.",
        "url": f"{asgi_server.url}/tables/1/",
        "tag": "table-1",
    }
    # The same push handed over again if none shows: in one whole run of the suite on a busy machine the browser
    # took the devtools' push and showed nothing in 20 s (the test passed alone after, three times out of three).
    # A worker that shows no push fails all three; a second showing of the same tag replaces the first.
    for _ in range(3):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": asgi_server.url, "registrationId": live[0], "data": json.dumps(payload)},
        )
        if shown := shown_notifications(page, wait_ms=WAIT_MS / 3):
            break
    assert shown == [["Your turn at Main", "Club: the table waits for you.", "table-1"]]
    context.close()


# Before any page script: a record of every sound played.
COUNT_SOUNDS = """
window.__sounds = 0;
var RealAudio = window.AudioContext;
window.AudioContext = function () { window.__sounds += 1; return new RealAudio(); };
"""


def test_a_card_turned_sounds_only_for_the_member_who_switched_it_on(asgi_server, browser) -> None:
    table, hand, first, second = _piles_for_two()
    hearing, quiet = Player(browser, asgi_server, first, DESKTOP), Player(browser, asgi_server, second, DESKTOP)
    hearing.context.add_init_script(COUNT_SOUNDS + "localStorage.setItem('notify.sound.card', '1');")
    quiet.context.add_init_script(COUNT_SOUNDS)
    for p in (hearing, quiet):
        p.open(table)
        p.wait_version(hand, 0)
    up = hearing.page.locator("#table-live .felt .board .card:not(.back)").count()
    hearing.act("check")
    quiet.wait_version(hand, 1)
    quiet.act("check")
    for p in (hearing, quiet):
        p.wait_version(hand, 2)
        expect(p.page.locator("html")).to_have_attribute("data-last-sound", "card", timeout=WAIT_MS)
    assert hearing.page.locator("#table-live .felt .board .card:not(.back)").count() > up
    assert hearing.page.evaluate("window.__sounds") == 1
    assert quiet.page.evaluate("window.__sounds") == 0
    for p in (hearing, quiet):
        p.context.close()


def test_the_sound_and_motion_switches_are_kept_per_device(asgi_server, browser) -> None:
    _club, _organiser, (a, _b, _c) = club_with_players()
    desk, other = Player(browser, asgi_server, a, DESKTOP), Player(browser, asgi_server, a, DESKTOP)
    for p in (desk, other):
        p.page.goto(f"{asgi_server.url}/account/notifications/")
    for box in ("#notify-sound-card", "#notify-sound-win", "#notify-motion"):
        desk.page.check(box)
    desk.page.reload()
    for box in ("#notify-sound-card", "#notify-sound-win", "#notify-motion"):
        expect(desk.page.locator(box)).to_be_checked()
        expect(other.page.locator(box)).not_to_be_checked()  # another browser of the same member
    expect(desk.page.locator("#notify-sound-bet")).not_to_be_checked()
    assert desk.page.evaluate("localStorage.getItem('notify.sound.card')") == "1"
    for p in (desk, other):
        p.context.close()
