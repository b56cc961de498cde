"""Device keys in real browsers (docs/fairness.md "Protocol" 1-4): the key a browser makes cannot be
exported, its fingerprint, signature and cut are the ones the engine computes, the profile page registers it
and shows it, and a device registered in the member's name behind this browser's back is said loudly on the
member's next page until it is acknowledged."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from playwright.sync_api import expect

import engine
from accounts.models import DeviceKey, Membership, User
from engine import verify
from games.models import DeckAhead, DeviceCut, Table
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.games.helpers import make_table
from tests.games.test_consumers import session_cookie

pytestmark = pytest.mark.e2e

SCHEME = "merkle-sha256-cut-v2"


class HeldKey:
    """A device key the test holds: what an operator (or a member's other browser) signs with."""

    def __init__(self) -> None:
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.n = format(self.private.public_key().public_numbers().n, "x")
        self.fingerprint = engine.device_fingerprint(self.n, 65537)

    def sign(self, message: bytes) -> str:
        return self.private.sign(message, padding.PKCS1v15(), hashes.SHA256()).hex()


def register_held_key(user: User, key: HeldKey, label: str = "Registered by the server") -> DeviceKey:
    """A device in ``user``'s name written straight into the database, as the site's operator could."""
    return DeviceKey.objects.create(user=user, n=key.n, e=65537, fingerprint=key.fingerprint, label=label)


def signed_cut(user: User, key: HeldKey, table: Table, deal: int) -> DeviceCut:
    """A valid cut of ``deal`` in ``user``'s name, signed by ``key``, written straight into the database."""
    deck = DeckAhead.objects.get(table=table, number=deal)
    signature = key.sign(engine.cut_message(scheme=deck.scheme, table_id=table.pk, deal=deal, root=deck.root))
    return DeviceCut.objects.create(
        deck=deck,
        user=user,
        device=DeviceKey.objects.get(fingerprint=key.fingerprint),
        signature=signature,
        value=engine.cut_of_signature(signature),
    )


def member_context(browser: Any, server: Any, user: User) -> Any:
    """A browser of ``user``'s own (its storage kept across its pages), logged in."""
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": session_cookie(user), "url": server.url}])
    return context


def watched(context: Any, server: Any, path: str) -> tuple[Any, list[str]]:
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(server.url + path)
    return page, problems


def register_this_browser(context: Any, server: Any) -> str:
    """Register the browser's key from the profile page's "This browser" section; its full fingerprint."""
    page, problems = watched(context, server, "/profile/")
    page.click("#this-browser button.this-browser-register")
    # A 2048-bit key is made in the browser: seconds on a loaded two-core machine, so more than the usual wait.
    try:
        page.wait_for_function(
            "() => /registered as one of your devices/.test(document.querySelector('#this-browser .this-browser-state').textContent)",
            timeout=90_000,
        )
    except Exception as exc:
        said = page.locator("#this-browser .this-browser-state").inner_text()
        raise AssertionError(f"this browser was not registered; the page says: {said!r}; problems: {problems}") from exc
    fingerprint = str(page.get_attribute("#this-browser", "data-fingerprint"))
    assert problems == []
    page.close()
    return fingerprint


# The key as the browser keeps it: from IndexedDB, its private half tried for export.
READ_KEY = """async (user) => {
  const db = await new Promise((ok, no) => { const r = indexedDB.open("home-club"); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
  const rec = await new Promise((ok) => { const r = db.transaction("device-keys").objectStore("device-keys").get(String(user)); r.onsuccess = () => ok(r.result); });
  let exported = "no";
  try { await crypto.subtle.exportKey("jwk", rec.privateKey); exported = "yes"; } catch (e) { exported = "refused"; }
  return { n: rec.n, e: rec.e, fingerprint: rec.fingerprint, extractable: rec.privateKey.extractable, exported: exported,
           algorithm: rec.privateKey.algorithm.name, bits: rec.privateKey.algorithm.modulusLength };
}"""


def test_the_browser_key_signs_as_the_engine_checks(asgi_server, browser) -> None:
    club = ClubFactory()
    member = MembershipFactory(club=club).user
    context = member_context(browser, asgi_server, member)
    fingerprint = register_this_browser(context, asgi_server)
    page, problems = watched(context, asgi_server, "/profile/")
    kept = page.evaluate(READ_KEY, member.pk)
    assert kept["extractable"] is False and kept["exported"] == "refused"
    assert (kept["algorithm"], kept["bits"], kept["e"]) == ("RSASSA-PKCS1-v1_5", 2048, 65537)
    assert kept["fingerprint"] == fingerprint == engine.device_fingerprint(kept["n"], 65537)
    assert engine.is_device_modulus(kept["n"])
    assert DeviceKey.objects.get(user=member).fingerprint == fingerprint
    # The page shows it in short, in four groups of four, and marks it in the site's list of the member's devices:
    # its script fills both once it has read the key back, so the checks wait for it.
    expect(page.locator("#this-browser")).to_contain_text(engine.short_fingerprint(fingerprint), timeout=20_000)
    mine = page.locator(f'#device-list li[data-fingerprint="{fingerprint}"]')
    expect(mine.locator(".this-browser-tag")).to_have_text("(this browser)", timeout=20_000)
    assert engine.short_fingerprint(fingerprint) in mine.inner_text()

    # Signing on a table's page, which carries the cut's script (the member only watches this table).
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    table = make_table(club, organiser, engine.PiranhaRules(ante=25))
    page.goto(f"{asgi_server.url}/tables/{table.pk}/")
    for _ in range(3):
        table_id, deal, root = secrets.randbelow(10**6) + 1, secrets.randbelow(500) + 1, secrets.token_hex(32)
        signed = page.evaluate(
            """async ([user, t, d, r]) => {
                 const rec = await window.homeClubDevice.current(user);
                 const signature = await window.homeClubDevice.sign(rec, window.homeClubCut.cutMessage("merkle-sha256-cut-v2", t, d, r));
                 return { signature, cut: await window.homeClubCut.cutValue(signature) };
               }""",
            [member.pk, table_id, deal, root],
        )
        message = engine.cut_message(scheme=SCHEME, table_id=table_id, deal=deal, root=root)
        assert engine.rsa_signature_holds(kept["n"], 65537, message, signed["signature"])
        assert signed["cut"] == engine.cut_of_signature(signed["signature"])

    # The public shuffle of version 2 (root, table, deal and the cuts in the order of their values).
    for count in (0, 1, 2, 5):
        root, table_id, deal = secrets.token_hex(32), secrets.randbelow(2**40), secrets.randbelow(2**31)
        cuts = sorted(secrets.token_hex(16) for _ in range(count))
        got = page.evaluate("([r, t, d, c]) => window.homeClubCut.cutOrderV2(r, t, d, c)", [root, table_id, deal, cuts])
        assert got == list(engine.cut_order(root, cuts, scheme=SCHEME, table_id=table_id, deal=deal))
        assert got == list(verify.cut_order(root, cuts, scheme=SCHEME, table_id=table_id, deal=deal))
    assert problems == []
    context.close()


def test_a_device_registered_behind_the_browsers_back_is_said_until_acknowledged(
    asgi_server, browser, screenshots
) -> None:
    club = ClubFactory()
    member = MembershipFactory(club=club).user
    context = member_context(browser, asgi_server, member)
    own = register_this_browser(context, asgi_server)
    page, problems = watched(context, asgi_server, "/profile/")
    assert page.locator("#device-alarm").count() == 0

    forged = HeldKey()
    register_held_key(member, forged, label="Not the member's")
    page.reload()
    alarm = page.locator("#device-alarm")
    alarm.wait_for()
    words = alarm.inner_text()
    assert "A new device was registered in your name" in words and "tell your organisers" in words
    assert engine.short_fingerprint(forged.fingerprint) in words and engine.short_fingerprint(own) not in words
    screenshots(page, "new-device")
    page.click("#device-alarm button.device-ack")
    page.wait_for_function("() => /Acknowledged/.test(document.getElementById('device-alarm').textContent)")
    page.reload()
    page.wait_for_function(
        "() => /registered as one of your devices/.test(document.querySelector('#this-browser .this-browser-state').textContent)"
    )
    assert page.locator("#device-alarm").count() == 0

    # Another browser of the same member knew neither: its first look takes what is listed as known.
    other = member_context(browser, asgi_server, member)
    page2, problems2 = watched(other, asgi_server, "/profile/")
    page2.wait_for_function(
        "() => !/needs JavaScript/.test(document.querySelector('#this-browser .this-browser-state').textContent)"
    )
    assert page2.locator("#device-alarm").count() == 0
    assert problems == [] and problems2 == []
    context.close()
    other.close()
