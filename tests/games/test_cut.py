"""The cut, version 2 (docs/fairness.md): decks committed ahead, cuts signed by the members' own device keys and
bound to one deal, every cut of a list that closes in public used in the order of the cuts' values, and a proof
that binds the table. Older schemes keep their order and keep verifying."""

from __future__ import annotations

import html as html_text
import json
import secrets
import subprocess
import sys
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import verify
from games import services
from games.models import CutComplaint, CutList, DeckAhead, DeviceCut, Hand
from games.services.cuts import CutRefused, cut_take
from games.services.decks import DealWaitsForCut
from games.tasks import deal_after_cut_wait
from tests.games.cut_keys import new_device, registered
from tests.games.helpers import make_table, post_action, proof_in, race

VERIFY = Path(verify.__file__)  # runs on its own, with the standard library alone
ROOTS = st.binary(min_size=32, max_size=32).map(bytes.hex)
CUTS = st.lists(st.binary(min_size=16, max_size=16).map(bytes.hex), max_size=12)
V2 = engine.SCHEME_CUT_V2


# --- the public shuffle ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(ROOTS, CUTS, st.integers(0, 2**40), st.integers(1, 2**31 - 1))
def test_the_cut_is_a_bijection_and_both_implementations_agree(root, cuts, table_id, deal) -> None:
    order = engine.cut_order(root, cuts, scheme=V2, table_id=table_id, deal=deal)
    assert sorted(order) == list(range(52))
    assert list(order) == verify.cut_order(root, sorted(cuts), scheme=V2, table_id=table_id, deal=deal)
    assert list(engine.cut_order(root, cuts)) == verify.cut_order(root, cuts)  # version 1 as it was


def test_the_order_of_arrival_changes_nothing_but_every_cut_the_table_and_the_deal_do() -> None:
    root, a, b = secrets.token_hex(32), secrets.token_hex(16), secrets.token_hex(16)
    order = partial(engine.cut_order, scheme=V2, table_id=5, deal=9)
    assert order(root, [a, b]) == order(root, [b, a])  # by value, never by arrival (the server's word)
    assert len({order(root, c) for c in ([], [a], [b], [a, b])}) == 4
    assert order(root, [a]) != engine.cut_order(root, [a], scheme=V2, table_id=6, deal=9)
    assert order(root, [a]) != engine.cut_order(root, [a], scheme=V2, table_id=5, deal=10)


def test_a_cut_out_of_its_form_is_refused_by_both() -> None:
    root = secrets.token_hex(32)
    for cuts in (["ab"], ["G" * 32], [secrets.token_hex(16).upper()]):
        with pytest.raises(engine.EngineError):
            engine.cut_order(root, cuts, scheme=V2, table_id=1, deal=1)
        with pytest.raises(verify.ProofError):
            verify.cut_order(root, cuts, scheme=V2, table_id=1, deal=1)


def test_a_signed_cut_is_one_value_per_device_and_deal() -> None:
    device, other = new_device(0), new_device(1)
    message = engine.cut_message(scheme=V2, table_id=3, deal=4, root="ab" * 32)
    signature = device.sign(message)
    assert device.sign(message) == signature  # deterministic: the member cannot pick another
    assert engine.rsa_signature_holds(device.n, 65537, message, signature)
    assert verify.rsa_signature_holds(device.n, 65537, message, signature)
    assert not engine.rsa_signature_holds(other.n, 65537, message, signature)
    assert not engine.rsa_signature_holds(device.n, 65537, message.replace(b"\n4\n", b"\n5\n"), signature)
    assert engine.cut_of_signature(signature) != engine.cut_of_signature(device.sign(message + b"0"))


# --- the table's decks and signed cuts -------------------------------------------------------------------


@pytest.fixture
def devices(club_setup):
    """Members a and b each with a registered browser, registered before any table's deck is committed."""
    a, b, _c = club_setup.members
    return {a.pk: registered(a, 0)[0], b.pk: registered(b, 1)[0]}


@pytest.fixture
def table(club_setup, devices):
    a, b, _c = club_setup.members
    return make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])


def send(table, user, device, deal: int) -> Any:
    cut = device.cut_of(table, deal)
    return cut_take(table_id=table.pk, user=user, number=deal, device=cut["device"], signature=cut["signature"])


@pytest.mark.django_db
def test_a_table_commits_its_first_decks_under_version_2_before_anyone_can_cut(table) -> None:
    decks = list(DeckAhead.objects.filter(table=table).order_by("number"))
    assert [d.number for d in decks] == [1, 2]
    for d in decks:
        assert d.scheme == V2 and d.dealt_at is None
        assert d.root == engine.merkle_root(d.hand_id, d.deck, d.salts, scheme=V2)
        assert d.root != engine.merkle_root(d.hand_id, d.deck, d.salts)  # leaves of their own tag


@pytest.mark.django_db
def test_the_deal_uses_every_signed_cut_in_order_of_value_and_verifies(
    table, club_setup, devices, client_for, tmp_path
) -> None:
    a, b, _ = club_setup.members
    ahead = DeckAhead.objects.get(table=table, number=1)
    receipts = [send(table, u, devices[u.pk], 1) for u in (b, a)]
    assert send(table, a, devices[a.pk], 1) == receipts[1]  # sent again: the same receipt, nothing new
    assert (
        receipts[0].root == ahead.root and receipts[0].scheme == V2 and receipts[0].device == devices[b.pk].fingerprint
    )
    hand = services.table_start(table_id=table.pk, user=a)
    values = sorted(r.cut for r in receipts)
    assert hand.pk == ahead.hand_id and hand.scheme == V2 and hand.commitment == ahead.root
    assert [c["cut"] for c in hand.cuts] == values
    assert hand.cuts == CutList.objects.get(deck=ahead).cuts
    state = engine.state_from_json(hand.state)
    dealt = engine.cut_order(ahead.root, values, scheme=V2, table_id=table.pk, deal=1)
    assert list(state.deck) == [ahead.deck[p] for p in dealt]
    with pytest.raises(CutRefused, match="not coming"):
        send(table, b, devices[b.pk], 1)
    for who in (a, b):
        post_action(client_for(who), hand, "in")
        hand.refresh_from_db()
    assert hand.is_finished
    html = html_text.unescape(client_for(a).get(f"/hands/{hand.pk}/").content.decode())
    assert "Dealt through 2 cuts from 2 members' devices." in html
    proof = proof_in(html)
    assert [c["cut"] for c in proof["cuts"]] == values and {c["member"] for c in proof["cuts"]} == {
        a.shown_name,
        b.shown_name,
    }
    assert proof["table_id"] == table.pk and proof["button"] == hand.button
    assert {s["seat"] for s in proof["seats"]} == {1, 2}
    assert verify.check_export(proof) == [] and len(proof["openings"]) >= 9
    assert {o["opened_as"] for o in proof["openings"]} == {"board", "hole"}
    replay = html_text.unescape(client_for(b).get(f"/hands/{hand.pk}/replay.json").json()["steps"][0]["html"])
    assert "Dealt through 2 cuts from 2 members' devices." in replay
    mine = client_for(a).get("/account/data/download.json").json()  # a member's own data: their cuts, devices
    assert [(c["deal"], c["device"]) for c in mine["cuts"]] == [(1, devices[a.pk].fingerprint)]
    assert [d["fingerprint"] for d in mine["devices"]] == [devices[a.pk].fingerprint]
    proof_file = tmp_path / "hand.json"
    proof_file.write_text(json.dumps(proof))
    run = subprocess.run([sys.executable, str(VERIFY), str(proof_file)], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "dealt through 2 signed cut(s)" in run.stdout, run.stdout + run.stderr


@pytest.mark.django_db
def test_a_hand_nobody_cut_says_the_server_chose_its_order(table, club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand.cuts == [] and hand.scheme == V2
    table_page = html_text.unescape(client_for(b).get(f"/tables/{table.pk}/").content.decode())
    assert "Hand 1: No member's cut reached this deal: the club's server chose its order." in table_page
    for who in (a, b):
        post_action(client_for(who), hand, "in")
        hand.refresh_from_db()
    html = html_text.unescape(client_for(a).get(f"/hands/{hand.pk}/").content.decode())
    assert "No member's cut reached this deal: the club's server chose its order." in html
    assert "neither the club nor any one player" not in html
    history = html_text.unescape(client_for(b).get(f"/tables/{table.pk}/hands/").content.decode())
    assert "No member's cut reached this deal" in history
    replay = html_text.unescape(client_for(b).get(f"/hands/{hand.pk}/replay.json").json()["steps"][0]["html"])
    assert "the club's server chose its order" in replay
    proof = proof_in(html)
    assert verify.check_export(proof) == []


@pytest.mark.django_db
def test_cuts_are_refused_with_words(table, club_setup, devices) -> None:
    a, b, c = club_setup.members
    good = devices[a.pk].cut_of(table, 1)
    take = partial(cut_take, table_id=table.pk)
    with pytest.raises(CutRefused, match="seated"):
        take(user=c, number=1, device=good["device"], signature=good["signature"])
    with pytest.raises(CutRefused, match="not registered in your name"):  # a's device, sent as b
        take(user=b, number=1, device=good["device"], signature=good["signature"])
    with pytest.raises(CutRefused, match="does not verify"):  # deal 1's signature sent for deal 2
        take(user=a, number=2, device=good["device"], signature=good["signature"])
    with pytest.raises(CutRefused, match="does not verify"):
        take(user=a, number=1, device=good["device"], signature="0" * 512)
    for bad in ("0" * 511, "Z" * 512, 12, None, "A" * 512):
        with pytest.raises(CutRefused, match="512 hex"):
            take(user=a, number=1, device=good["device"], signature=bad)
    for bad in (None, "ab", good["device"].upper()):
        with pytest.raises(CutRefused, match="fingerprint"):
            take(user=a, number=1, device=bad, signature=good["signature"])
    for number in (0, 3, 10**12, True, "1", None):
        with pytest.raises(CutRefused):
            take(user=a, number=number, device=good["device"], signature=good["signature"])
    # One cut per member per deal: a second device of the same member is refused, naming the first.
    second, row = registered(a, 5, label="Phone")
    with pytest.raises(CutRefused, match="registered after deal 1's deck"):  # and it came after the root
        send(table, a, second, 1)
    send(table, a, devices[a.pk], 1)
    assert DeviceCut.objects.filter(user=a).count() == 1


@pytest.mark.django_db
def test_one_cut_per_member_per_deal_names_the_device_whose_cut_stands(club_setup, devices) -> None:
    a, b, _ = club_setup.members
    phone, _row = registered(a, 6, label="Phone")
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    send(table, a, phone, 1)
    with pytest.raises(CutRefused, match=f"from device {engine.short_fingerprint(phone.fingerprint)}"):
        send(table, a, devices[a.pk], 1)


@pytest.mark.django_db
def test_a_list_closes_when_the_hand_before_it_is_dealt_and_is_shown_before_its_deal(
    table, club_setup, devices, client_for
) -> None:
    a, b, _ = club_setup.members
    early = send(table, b, devices[b.pk], 2)
    listed = client_for(a).get(f"/tables/{table.pk}/cut/").json()
    assert listed["user"] == a.pk
    assert [(d["deal"], d["status"], d["cuts"]) for d in listed["deals"]] == [(1, "open", []), (2, "open", [])]
    assert "Open until this table's first deal" in listed["deals"][0]["closes"]
    hand = services.table_start(table_id=table.pk, user=a)
    # Deal 2's list closed at deal 1, in public; a cut now is refused and the closed list is on the table.
    with pytest.raises(CutRefused, match="closed"):
        send(table, a, devices[a.pk], 2)
    listed = client_for(a).get(f"/tables/{table.pk}/cut/").json()
    two = next(d for d in listed["deals"] if d["deal"] == 2)
    assert two["status"] == "closed" and "when the hand before it was dealt" in two["closes"]
    assert two["cuts"] == [
        {"cut": early.cut, "device": early.device, "member": b.shown_name, "signature": two["cuts"][0]["signature"]}
    ]
    assert "deck" not in json.dumps(listed) and "salt" not in json.dumps(listed)
    page = html_text.unescape(client_for(a).get(f"/tables/{table.pk}/").content.decode())
    assert early.cut in page and "It is dealt through 1 cut" in page
    # Deal 3 is open, and cut from the members' devices registered before its deck.
    send(table, a, devices[a.pk], 3)
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    second = Hand.objects.get(table=table, number=2)
    assert [c["cut"] for c in second.cuts] == [early.cut]
    history = client_for(b).get(f"/tables/{table.pk}/cuts/?since=1").json()
    assert [(d["deal"], d["dealt"], len(d["cuts"])) for d in history["deals"]] == [
        (1, True, 0),
        (2, True, 1),
        (3, False, 1),
    ]
    assert history["deals"][1]["hand_id"] == second.pk and history["deals"][1]["root"] == second.commitment
    assert history["deals"][1]["cuts"][0]["member_id"] == b.pk


@pytest.mark.django_db
def test_the_no_javascript_form_is_gone_and_the_page_says_a_cut_needs_the_browsers_key(
    table, club_setup, client_for
) -> None:
    a = club_setup.members[0]
    response = client_for(a).post(f"/tables/{table.pk}/cut/", {"deal": "1", "cut": "the cat sat on the mat"})
    assert response.status_code == 400 and response.json()["type"] == "cut.refused"
    assert not DeviceCut.objects.exists()
    page = client_for(a).get(f"/tables/{table.pk}/").content.decode()
    assert 'name="cut"' not in page and "needs JavaScript" in page


@pytest.mark.django_db
def test_a_cut_posted_as_json_gets_the_sockets_answer(table, club_setup, devices, client_for) -> None:
    a = club_setup.members[0]
    cut = devices[a.pk].cut_of(table, 1)
    client = client_for(a)
    got = client.post(f"/tables/{table.pk}/cut/", json.dumps(cut), content_type="application/json")
    assert got.status_code == 200 and got.json()["type"] == "cut.ok"
    receipt = got.json()["receipt"]
    assert set(receipt) == {"table", "deal", "scheme", "root", "device", "cut", "at", "id"}
    assert receipt["cut"] == engine.cut_of_signature(str(cut["signature"]))
    refused = client.post(f"/tables/{table.pk}/cut/", "[", content_type="application/json")
    assert refused.status_code == 400 and refused.json()["error"]


# --- devices -------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_member_registers_devices_and_is_mailed_and_sees_them(
    club_setup, client_for, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    a, b, _ = club_setup.members
    device = new_device(2)
    client = client_for(a)
    body = {"n": device.n, "e": 65537, "label": "Kitchen laptop"}
    with django_capture_on_commit_callbacks(execute=True):
        got = client.post("/profile/devices/", json.dumps(body), content_type="application/json")
    assert got.status_code == 201 and got.json()["fingerprint"] == device.fingerprint
    assert client.post("/profile/devices/", json.dumps(body), content_type="application/json").status_code == 200
    assert len(mailoutbox) == 1 and mailoutbox[0].to == [a.email]
    assert engine.short_fingerprint(device.fingerprint) in mailoutbox[0].body and "Kitchen laptop" in mailoutbox[0].body
    assert "tell your organisers" in mailoutbox[0].body
    listed = client.get("/profile/devices/").json()
    assert listed["user"] == a.pk and [d["fingerprint"] for d in listed["devices"]] == [device.fingerprint]
    assert listed["devices"][0]["n"] == device.n and listed["devices"][0]["e"] == 65537
    assert client_for(b).get("/profile/devices/").json()["devices"] == []  # a member's own only
    page = html_text.unescape(client.get("/profile/").content.decode())
    assert engine.short_fingerprint(device.fingerprint) in page and "Kitchen laptop" in page
    taken = client_for(b).post("/profile/devices/", json.dumps(body), content_type="application/json")
    assert taken.status_code == 400 and "another member" in taken.json()["error"]
    for bad in (
        {"n": device.n[:-2], "e": 65537},  # 2040 bits
        {"n": "0" + device.n[1:], "e": 65537},
        {"n": device.n, "e": 3},
        {"n": device.n.upper(), "e": 65537},
        {"n": device.n, "e": 65537, "label": "x" * 61},
    ):
        refused = client.post("/profile/devices/", json.dumps(bad), content_type="application/json")
        assert refused.status_code == 400 and refused.json()["error"], bad
    assert client.post("/profile/devices/", "nope", content_type="application/json").status_code == 400


@pytest.mark.django_db
def test_a_member_has_at_most_five_active_devices(club_setup, client_for) -> None:
    a = club_setup.members[0]
    for k in range(5):
        registered(a, k)
    sixth = new_device(7)
    got = client_for(a).post(
        "/profile/devices/",
        json.dumps({"n": sixth.n, "e": 65537, "label": "One more"}),
        content_type="application/json",
    )
    assert got.status_code == 400 and "5 devices" in got.json()["error"]


# --- complaints -----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_complaint_is_kept_and_shown_to_the_organisers_beside_the_ruling(table, club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    hand = services.table_start(table_id=table.pk, user=a)
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    evidence = {"receipt": {"deal": 1, "cut": "ab" * 16}, "shown": {"cuts": []}}
    got = client_for(b).post(
        f"/tables/{table.pk}/cut-complaints/",
        json.dumps({"deal": 1, "kind": "missing", "evidence": evidence}),
        content_type="application/json",
    )
    assert got.status_code == 201 and "organisers" in got.json()["message"]
    row = CutComplaint.objects.get(pk=got.json()["id"])
    assert row.user == b and row.kind == "missing" and row.evidence == evidence
    organiser_page = client_for(club_setup.organiser).get(f"/hands/{hand.pk}/").content.decode()
    assert "complaints about this deal" in organiser_page and "Open the whole hand by a ruling" in organiser_page
    assert "complaints about this deal" not in client_for(a).get(f"/hands/{hand.pk}/").content.decode()
    for bad in (
        {"deal": 1, "kind": "bored", "evidence": {}},
        {"deal": "1", "kind": "missing", "evidence": {}},
        {"deal": 1, "kind": "missing", "evidence": {"x": "y" * 20_000}},
    ):
        refused = client_for(b).post(
            f"/tables/{table.pk}/cut-complaints/", json.dumps(bad), content_type="application/json"
        )
        assert refused.status_code == 400, bad
    outsider = client_for(club_setup.outsider).post(
        f"/tables/{table.pk}/cut-complaints/",
        json.dumps({"deal": 1, "kind": "missing", "evidence": {}}),
        content_type="application/json",
    )
    assert outsider.status_code == 404


# --- house rule: a deal waits for a cut ------------------------------------------------------------------


@pytest.fixture
def cut_table(club_setup, devices):
    a, b, _c = club_setup.members
    rules = engine.PiranhaRules(ante=25, cut_required=True, turn_seconds=600)
    return make_table(club_setup.club, club_setup.organiser, rules, players=[a, b])


@pytest.mark.django_db
def test_a_required_cut_makes_the_deal_wait_and_a_cut_deals_it(
    cut_table, club_setup, devices, client_for, django_capture_on_commit_callbacks
) -> None:
    a, b, _ = club_setup.members
    with pytest.raises(DealWaitsForCut, match="require a cut before each deal"):
        services.table_start(table_id=cut_table.pk, user=a)
    assert not Hand.objects.filter(table=cut_table).exists()
    ahead = DeckAhead.objects.get(table=cut_table, number=1)
    assert ahead.wait_until is not None and ahead.dealt_at is None
    page = client_for(a).get(f"/tables/{cut_table.pk}/").content.decode()
    assert "waits for a cut (house rule)" in page
    with django_capture_on_commit_callbacks(execute=True):
        receipt = send(cut_table, b, devices[b.pk], 1)
    hand = Hand.objects.get(table=cut_table, number=1)
    assert [c["cut"] for c in hand.cuts] == [receipt.cut] and hand.pk == ahead.hand_id
    # Deal 2 had no cut when deal 1 was dealt: under the house rule its list stays open for its own deal.
    assert not CutList.objects.filter(deck__table=cut_table, deck__number=2).exists()
    send(cut_table, a, devices[a.pk], 2)


@pytest.mark.django_db
def test_a_required_cut_waits_one_clock_then_deals_without_one(cut_table, club_setup, client_for) -> None:
    a = club_setup.members[0]
    with pytest.raises(DealWaitsForCut):
        services.table_start(table_id=cut_table.pk, user=a)
    assert deal_after_cut_wait(cut_table.pk, 1) is False  # its clock has not run out: still waiting
    DeckAhead.objects.filter(table=cut_table, number=1).update(wait_until=timezone.now() - timedelta(seconds=1))
    assert deal_after_cut_wait(cut_table.pk, 1) is True
    assert deal_after_cut_wait(cut_table.pk, 1) is False  # twice: the second changes nothing
    hand = Hand.objects.get(table=cut_table)
    assert hand.cuts == [] and hand.scheme == V2
    assert CutList.objects.get(deck__table=cut_table, deck__number=1).closed_by == "own-deal"


@pytest.mark.django_db(transaction=True)
def test_cuts_racing_the_close_are_either_in_the_list_or_refused(club_setup) -> None:
    a, b, c = club_setup.members
    keys = {u.pk: registered(u, k)[0] for k, u in enumerate((a, b, c))}
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    signed = {u.pk: keys[u.pk].cut_of(table, 2) for u in (a, b, c)}
    calls: list[tuple[object, Any]] = [("deal", partial(services.table_start, table_id=table.pk, user=a))]
    calls += [
        (
            u.pk,
            partial(
                cut_take,
                table_id=table.pk,
                user=u,
                number=2,
                device=signed[u.pk]["device"],
                signature=signed[u.pk]["signature"],
            ),
        )
        for u in (a, b, c)
    ]
    done = race(calls)
    assert done.errors == [] and "deal" in done.went_through
    assert all("closed" in r for r in done.refused)
    recorded = sorted(DeviceCut.objects.filter(deck__table=table, deck__number=2).values_list("value", flat=True))
    assert [x["cut"] for x in CutList.objects.get(deck__table=table, deck__number=2).cuts] == recorded
    assert len(recorded) == len(done.went_through) - 1


@pytest.mark.django_db
def test_a_club_export_keeps_a_signed_cut_hands_leaves_under_its_own_tag(table, club_setup, client_for) -> None:
    import io
    import zipfile

    from clubdata.archive import club_export

    a, b, _ = club_setup.members
    hand = services.table_start(table_id=table.pk, user=a)
    for who, choice in ((a, "in"), (b, "out")):  # one in: the game is over, nothing is being played
        post_action(client_for(who), hand, choice)
    out = io.BytesIO()
    club_export(club=club_setup.club, out=out, reason="Checking the leaves of a signed-cut hand")
    rows = zipfile.ZipFile(io.BytesIO(out.getvalue())).read("data/hands.jsonl").decode().splitlines()
    row = next(r for r in map(json.loads, rows) if r["id"] == hand.pk)
    assert row["scheme"] == V2 and len(row["closed_leaves"]) > 0
    closed = {int(i): leaf for i, leaf in row["closed_leaves"].items()}
    deck = [c if c is not None else hand.deck[i] for i, c in enumerate(row["deck"])]  # stand-ins, as an import has
    salts = [s if s is not None else "0" * 32 for s in row["salts"]]
    assert engine.merkle_root(hand.pk, deck, salts, closed, scheme=V2) == hand.commitment


@pytest.mark.django_db
def test_a_signed_cut_hand_read_from_a_club_export_still_verifies(table, club_setup, devices, client_for) -> None:
    import io

    from clubdata.archive import club_export
    from clubdata.importing import club_import
    from games.selectors.proof import hand_proof_for

    a, b, _ = club_setup.members
    send(table, a, devices[a.pk], 1)
    hand = services.table_start(table_id=table.pk, user=a)
    for who, choice in ((a, "in"), (b, "out")):
        post_action(client_for(who), hand, choice)
    out = io.BytesIO()
    club_export(club=club_setup.club, out=out, reason="Moving the club")
    club = club_import(source=io.BytesIO(out.getvalue())).club
    copy = Hand.objects.get(table__club=club, number=1)
    assert copy.table_id != table.pk and copy.signed_table == table.pk and copy.scheme == V2
    assert [c["cut"] for c in copy.cuts] == [c["cut"] for c in hand.cuts]
    proof = hand_proof_for(hand=copy, user=club_setup.organiser, is_organiser=True).export()
    assert proof["table_id"] == table.pk and proof["cuts"][0]["n"] == devices[a.pk].n
    # The cuts check where they were signed: the devices' keys and the table came with the hand. (Its openings
    # name its new id here, on the same site, as every hand read back on the site that wrote it does.)
    assert verify.check_export(dict(proof, openings=[])) == []
    moved = dict(proof, openings=[], table_id=copy.table_id)
    assert any("does not verify" in p for p in verify.check_export(moved))


@pytest.mark.django_db
def test_a_member_retires_a_device_which_then_cuts_no_more_and_stays_listed(table, club_setup, devices, client_for):
    a = club_setup.members[0]
    device = devices[a.pk]
    client = client_for(a)
    assert client.post("/profile/devices/retire/", {"fingerprint": device.fingerprint}).status_code == 302
    listed = client.get("/profile/devices/").json()["devices"]
    assert [d["retired_at"] is not None for d in listed] == [True]
    with pytest.raises(CutRefused, match="retired"):
        send(table, a, device, 1)
    other = client_for(club_setup.members[1]).post("/profile/devices/retire/", {"fingerprint": device.fingerprint})
    assert other.status_code == 302 and DeviceCut.objects.count() == 0
    page = html_text.unescape(client.get("/profile/").content.decode())
    assert "retired" in page and engine.short_fingerprint(device.fingerprint) in page
