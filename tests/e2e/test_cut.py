"""The cut in real browsers (docs/fairness.md "Protocol"): the page's script shuffles exactly as the engine
and the verifier do; two seated members' browsers sign the coming deals with their own device keys over the
socket and keep the receipts; the table's list of coming deals follows the socket and shows each closed list,
this browser's cut marked, before its deal; both cuts deal the hand, which verifies in the page and with
`python -m engine.verify`; a refused cut is shown with the site's reason; and a cut forged in a member's name
from a device registered behind their back is flagged on that member's page, whose one click sends the
complaint."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

import engine
from accounts.models import Membership, User
from engine import verify
from games import services
from games.models import CutComplaint, DeviceCut, Hand, Table
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.e2e.test_devices import (
    HeldKey,
    member_context,
    register_held_key,
    register_this_browser,
    signed_cut,
    watched,
)
from tests.e2e.test_hand_proof import export_verified, verify_in_page
from tests.games.celery_worker import wait_until
from tests.games.helpers import make_table

pytestmark = pytest.mark.e2e

RECEIPTS = "() => Object.keys(window.homeClubCut.stored())"  # the (table, deal) of each receipt a browser keeps


def play_out(hand: Hand, players: list[Any]) -> Hand:
    for user in players:
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_finished
    return hand


def next_hand(table: Table, number: int, user: User) -> Hand:
    """Hand ``number`` of ``table``: dealt by the table going on, or started by ``user``."""
    return Hand.objects.filter(table=table, number=number).first() or services.table_start(table_id=table.pk, user=user)


def receipts_of(page: Any, table: Table) -> set[int]:
    return {int(k.split(":")[1]) for k in page.evaluate(RECEIPTS) if k.split(":")[0] == str(table.pk)}


def test_the_page_script_shuffles_as_the_engine_and_the_verifier(asgi_server, browser) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a = MembershipFactory(club=club).user
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a])
    context = member_context(browser, asgi_server, a)
    page, problems = watched(context, asgi_server, f"/tables/{table.pk}/")
    vectors = [("00" * 32, []), ("ff" * 32, ["00" * 16]), ("ab" * 32, ["ff" * 16, "01" * 16])]
    vectors += [(secrets.token_hex(32), [secrets.token_hex(16) for _ in range(n % 5)]) for n in range(20)]
    for root, cuts in vectors:
        got = page.evaluate("([r, c]) => window.homeClubCut.cutOrder(r, c)", [root, cuts])
        assert got == list(engine.cut_order(root, cuts)) == verify.cut_order(root, cuts)
    assert problems == []
    context.close()


def test_two_members_cut_from_their_own_devices_and_both_cuts_deal(asgi_server, browser, screenshots, tmp_path) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a, b = (MembershipFactory(club=club).user for _ in range(2))
    contexts = {u.pk: member_context(browser, asgi_server, u) for u in (a, b)}
    devices = {u.pk: register_this_browser(contexts[u.pk], asgi_server) for u in (a, b)}
    # The table's decks are committed after both devices were registered, so both may cut its first deals.
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a, b])
    pages = {u.pk: watched(contexts[u.pk], asgi_server, f"/tables/{table.pk}/") for u in (a, b)}
    wait_until(lambda: DeviceCut.objects.filter(deck__table=table).count() == 4, 60, "not every deal was cut", 0.2)
    for user in (a, b):
        page = pages[user.pk][0]
        wait_until(lambda page=page: receipts_of(page, table) == {1, 2}, 30, "a browser kept no receipt", 0.2)
    cuts = {
        (c.user_id, c.deck.number): c
        for c in DeviceCut.objects.filter(deck__table=table).select_related("device", "deck")
    }
    for user in (a, b):  # each member's cuts come from their own browser's device
        assert {cuts[(user.pk, d)].device.fingerprint for d in (1, 2)} == {devices[user.pk]}

    first = services.table_start(table_id=table.pk, user=a)
    # Both cuts deal it, in the order of their values.
    used = sorted(cuts[(u.pk, 1)].value for u in (a, b))
    assert first.scheme == "merkle-sha256-cut-v2" and [c["cut"] for c in first.cuts] == used
    assert {c["device"] for c in first.cuts} == set(devices.values())

    # The list follows the socket: deal 1 leaves it, deal 2's list is closed and shown before its deal,
    # with this browser's own cut marked.
    page = pages[a.pk][0]
    page.wait_for_selector('#cut-deals li[data-deal="2"][data-status="closed"] .cut-list')
    page.wait_for_function("() => !document.querySelector('#cut-deals li[data-deal=\"1\"]')")
    closed = page.locator('#cut-deals li[data-deal="2"] .cut-list li')
    assert closed.count() == 2
    mine = page.locator('#cut-deals li[data-deal="2"] .cut-list li.mine')
    assert mine.count() == 1 and mine.get_attribute("data-cut") == cuts[(a.pk, 2)].value
    assert engine.short_fingerprint(devices[a.pk]) in mine.inner_text() and a.shown_name in mine.inner_text()
    assert page.locator("#cut-deals select").count() == 0  # no form offers a deal, dealt or not
    screenshots(page, "closed-list")

    first = play_out(first, [a, b])
    for user in (a, b):
        page, problems = watched(contexts[user.pk], asgi_server, f"/hands/{first.pk}/")
        assert verify_in_page(page).startswith("Verified: all"), page.inner_text("#verify-result")
        assert "dealt through 2 cuts from 2 members' devices" in page.inner_text("#verify-result")
        page.wait_for_function(
            "() => /Your cut was used/.test(document.getElementById('cut-check')?.textContent || '')"
        )
        assert page.locator("#cut-alarms .cut-alarm").count() == 0
        assert problems == []
        page.close()
    assert export_verified(contexts[a.pk], asgi_server, first, tmp_path).returncode == 0
    for _page, problems in pages.values():
        assert problems == []
    for context in contexts.values():
        context.close()


def test_a_refused_cut_is_shown_with_the_sites_reason(asgi_server, browser, screenshots) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a, b = (MembershipFactory(club=club).user for _ in range(2))
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a, b])
    # a's browser makes its key on the table page, after the table's first decks were committed: the site
    # refuses its cuts of them, and says why.
    context = member_context(browser, asgi_server, a)
    page, problems = watched(context, asgi_server, f"/tables/{table.pk}/")
    row = page.locator('#cut-deals li[data-deal="1"]')
    state = row.locator('.cut-state[data-state="refused"]')
    state.wait_for()
    words = state.inner_text()
    assert words.startswith("your cut was refused: ") and len(words) > len("your cut was refused: ") + 10
    assert DeviceCut.objects.filter(deck__table=table).count() == 0
    screenshots(page, "refused")
    # Should the member think the refusal wrong, one click tells the organisers, with the site's words.
    row.locator("button.cut-complain").click()
    page.wait_for_function(
        "() => /^Sent: /.test(document.querySelector('#cut-deals li[data-deal=\"1\"] .cut-complaint-result').textContent)"
    )
    complaint = CutComplaint.objects.get(table=table, deal=1, user=a)
    assert complaint.kind == "refused"
    assert words.removeprefix("your cut was refused: ") in json.dumps(complaint.evidence, ensure_ascii=False)
    # The next deck is committed after the device: the same browser cuts it, and the list follows.
    services.table_start(table_id=table.pk, user=b)
    wait_until(lambda: receipts_of(page, table) == {3}, 60, "the deal after the refused ones was not cut", 0.2)
    page.wait_for_function("() => !document.querySelector('#cut-deals li[data-deal=\"1\"]')")
    assert problems == []
    context.close()


def test_a_cut_forged_in_a_members_name_is_flagged_and_sent_in_one_click(asgi_server, browser, screenshots) -> None:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a, victim = (MembershipFactory(club=club).user for _ in range(2))
    contexts = {u.pk: member_context(browser, asgi_server, u) for u in (a, victim)}
    for user in (a, victim):
        register_this_browser(contexts[user.pk], asgi_server)
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a, victim])
    pages = {u.pk: watched(contexts[u.pk], asgi_server, f"/tables/{table.pk}/") for u in (a, victim)}
    wait_until(lambda: DeviceCut.objects.filter(deck__table=table).count() == 4, 60, "not every deal was cut", 0.2)
    wait_until(lambda: receipts_of(pages[victim.pk][0], table) == {1, 2}, 30, "no receipt kept", 0.2)
    pages[victim.pk][0].close()  # the victim leaves the table

    # The operator registers a key of its own in the victim's name and cuts the next deal with it: a valid
    # signature, a cut the operator could grind for.
    forged = HeldKey()
    register_held_key(victim, forged, label="Chromium on Linux")
    first = services.table_start(table_id=table.pk, user=a)  # deal 3's deck is committed now
    signed_cut(victim, forged, table, 3)
    wait_until(lambda: 3 in receipts_of(pages[a.pk][0], table), 60, "the other member did not cut deal 3", 0.2)
    play_out(first, [a, victim])
    second = next_hand(table, 2, a)
    play_out(second, [a, victim])
    third = next_hand(table, 3, a)
    assert forged.fingerprint in {c["device"] for c in third.cuts}

    # The victim's next visit to the table says so, with the evidence.
    page, problems = watched(contexts[victim.pk], asgi_server, f"/tables/{table.pk}/")
    alarm = page.locator('#cut-alarms .cut-alarm[data-kind="unknown-device"]')
    alarm.wait_for()
    words = alarm.inner_text()
    assert "A cut of deal 3 was made in your name from a device this browser does not know" in words
    assert engine.short_fingerprint(forged.fingerprint) in words
    assert page.locator("#device-alarm").is_visible()  # the device itself is said too
    screenshots(page, "forged-cut")
    alarm.locator("button.cut-complain").click()
    page.wait_for_function(
        "() => /^Sent: /.test(document.querySelector('#cut-alarms [data-kind=\"unknown-device\"] .cut-complaint-result').textContent)"
    )
    complaint = CutComplaint.objects.get(table=table, deal=3, user=victim)
    assert complaint.kind == "unknown-device" and forged.fingerprint in str(complaint.evidence)
    # The complaint is remembered: the next visit says it was sent instead of offering it again.
    page.reload()
    alarm = page.locator('#cut-alarms .cut-alarm[data-kind="unknown-device"]')
    alarm.wait_for()
    assert alarm.locator("button.cut-complain").count() == 0 and "You told the organisers" in alarm.inner_text()
    assert CutComplaint.objects.filter(table=table, user=victim).count() == 1
    # The other member's browser, which knows its own devices, sees nothing wrong.
    third = play_out(third, [a, victim])
    other, _ = watched(contexts[a.pk], asgi_server, f"/hands/{third.pk}/")
    other.wait_for_function("() => /Your cut was used/.test(document.getElementById('cut-check')?.textContent || '')")
    assert other.locator("#cut-alarms .cut-alarm").count() == 0
    assert problems == []
    for context in contexts.values():
        context.close()


# Change a receipt this browser keeps: {deal: {field: value}}.
CHANGE_RECEIPTS = """([table, changes]) => {
  const all = JSON.parse(localStorage.getItem("home-club-cuts-v2"));
  for (const [deal, fields] of Object.entries(changes)) Object.assign(all[table + ":" + deal], fields);
  localStorage.setItem("home-club-cuts-v2", JSON.stringify(all));
}"""


def test_a_deal_that_does_not_match_its_receipt_is_flagged_on_the_hand_page_and_the_history(
    asgi_server, browser, screenshots
) -> None:
    """What the site shows of a deal is checked against the receipt this browser kept when it cut it. The
    database refuses to drop a cut or deal another deck once a deal is cut, so here the receipts are changed
    instead: the same disagreement, seen from the browser."""
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    a, b = (MembershipFactory(club=club).user for _ in range(2))
    context = member_context(browser, asgi_server, a)
    register_this_browser(context, asgi_server)
    table = make_table(club, organiser, engine.PiranhaRules(ante=25), players=[a, b])
    page, problems = watched(context, asgi_server, f"/tables/{table.pk}/")
    wait_until(lambda: receipts_of(page, table) == {1, 2}, 60, "the browser did not cut", 0.2)
    first = play_out(services.table_start(table_id=table.pk, user=a), [a, b])  # deal 2's list closes too
    page.close()

    other_root = "ab" * 32
    page, problems = watched(context, asgi_server, f"/hands/{first.pk}/")
    page.wait_for_function("() => /Your cut was used/.test(document.getElementById('cut-check')?.textContent || '')")
    page.evaluate(CHANGE_RECEIPTS, [table.pk, {"1": {"root": other_root}, "2": {"cut": "cd" * 16}}])
    page.reload()
    wrong = page.locator('#cut-alarms .cut-alarm[data-kind="other-root"]')
    wrong.wait_for()
    assert "was not dealt from the deal you cut" in wrong.inner_text() and other_root in wrong.inner_text()
    screenshots(page, "other-root")

    page.goto(f"{asgi_server.url}/tables/{table.pk}/hands/")
    page.locator('#cut-alarms .cut-alarm[data-kind="other-root"]').wait_for()
    missing = page.locator('#cut-alarms .cut-alarm[data-kind="missing"]')
    missing.wait_for()
    words = missing.inner_text()  # deal 2 may be dealt already (the game goes on) or only its list closed
    assert f"your cut {'cd' * 16} of deal 2" in words
    assert "the deal was dealt without it" in words or "its closed list leaves it out" in words
    missing.locator("button.cut-complain").click()
    page.wait_for_function(
        "() => /^Sent: /.test(document.querySelector('#cut-alarms [data-kind=\"missing\"] .cut-complaint-result').textContent)"
    )
    assert CutComplaint.objects.get(table=table, deal=2, user=a).kind == "missing"
    screenshots(page, "missing-on-history")
    assert problems == []
    context.close()
