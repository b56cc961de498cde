"""The deal against its operator (docs/fairness.md "Threat model"): each attack on the cut replayed through the real
stack, with the web's own database role (these tests connect as it, as the site does) and the server's code in
hand, and shown prevented or detected.

``browser_check`` is the check a member's browser makes on every visit (docs/fairness.md "Protocol" 9, in
static/js/cut.js): its receipts against the history the site serves, and the member's devices against the ones
the browser knew. The browser tests run the script itself; here the same rule reads the same JSON.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

import engine
from engine import verify
from games import services
from games.models import CutComplaint, CutList, DeckAhead, DeviceCut, Hand
from games.services.cuts import CutRefused, cut_take
from tests.games.cut_keys import Device, fresh_device, new_device, registered
from tests.games.helpers import make_table, post_action, proof_in

pytestmark = pytest.mark.django_db
V2 = engine.SCHEME_CUT_V2


def browser_check(client, table_id: int, receipts: list[dict[str, Any]], known: set[str]) -> list[dict[str, Any]]:
    """What a member's browser says after reading the site's history and their devices list: one complaint
    (kind and evidence) per problem, as static/js/cut.js sends them."""
    user = client.get("/profile/devices/").json()["user"]
    since = min(r["deal"] for r in receipts) if receipts else 1
    history = {d["deal"]: d for d in client.get(f"/tables/{table_id}/cuts/?since={since}").json()["deals"]}
    found = []
    for r in receipts:
        shown = history.get(r["deal"])
        if shown is None:
            continue  # not closed yet
        if (shown["root"], shown["scheme"]) != (r["root"], r["scheme"]):
            found.append({"deal": r["deal"], "kind": "other-root", "evidence": {"receipt": r, "shown": shown}})
        elif r["cut"] not in [c["cut"] for c in shown["cuts"]]:
            found.append({"deal": r["deal"], "kind": "missing", "evidence": {"receipt": r, "shown": shown}})
    for deal in history.values():
        for c in deal["cuts"]:
            if c["member_id"] == user and c["device"] not in known:
                found.append({"deal": deal["deal"], "kind": "unknown-device", "evidence": {"cut": c}})
    return found


def raw(sql: str, params: list[Any]) -> None:
    """One statement as the web's database role, in a savepoint (the attacker's own SQL, past the services)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def signed_row(device: Device, table, deal: int) -> tuple[str, str]:
    cut = device.cut_of(table, deal)
    return str(cut["signature"]), engine.cut_of_signature(str(cut["signature"]))


@pytest.fixture
def setup(club_setup):
    """Members a and b with a registered browser each; a table of the two; deal 1 dealt, so deal 2's list is
    closed and deal 3's open."""
    a, b, _ = club_setup.members
    keys = {a.pk: registered(a, 0)[0], b.pk: registered(b, 1)[0]}
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    return a, b, keys, table, hand


def send(table, user, device, deal: int):
    cut = device.cut_of(table, deal)
    return cut_take(table_id=table.pk, user=user, number=deal, device=cut["device"], signature=cut["signature"])


# --- a cut invented in a member's name ---------------------------------------------------------------------


def test_a_cut_invented_in_a_members_name_is_refused_without_their_devices_signature(setup) -> None:
    """Prevented (PostgreSQL): the web's role writes a cut row in a's name on a's own device, with a signature it
    made up, or a's real signature of another deal; the database verifies the RSA signature and refuses both."""
    a, b, keys, table, _hand = setup
    deck = DeckAhead.objects.get(table=table, number=3)
    device_id = a.device_keys.get().pk
    insert = (
        'INSERT INTO "games_devicecut" ("deck_id", "user_id", "device_id", "signature", "value", "received_at") '
        "VALUES (%s, %s, %s, %s, %s, now())"
    )
    invented = secrets.token_hex(256)
    with pytest.raises(IntegrityError, match="signature does not verify"):
        raw(insert, [deck.pk, a.pk, device_id, invented, engine.cut_of_signature(invented)])
    other_deal, _ = signed_row(keys[a.pk], table, 2)  # a real signature of a's, of another deal
    with pytest.raises(IntegrityError, match="signature does not verify"):
        raw(insert, [deck.pk, a.pk, device_id, other_deal, engine.cut_of_signature(other_deal)])
    real, value = signed_row(keys[a.pk], table, 3)
    with pytest.raises(IntegrityError, match="SHA-256 of its signature"):  # a's signature, a chosen value
        raw(insert, [deck.pk, a.pk, device_id, real, "0" * 32])
    with pytest.raises(IntegrityError, match="own active devices"):  # b's device written as a's cut
        raw(insert, [deck.pk, a.pk, b.device_keys.get().pk, real, value])
    with pytest.raises(CutRefused, match="does not verify"):  # and through the site's own code
        cut_take(table_id=table.pk, user=a, number=3, device=keys[a.pk].fingerprint, signature=invented)
    assert not DeviceCut.objects.filter(deck=deck).exists()


def test_a_device_the_server_registers_in_a_members_name_is_mailed_listed_and_its_cut_flagged(
    setup, client_for, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    """Detected (by the member's mail and browsers): the operator registers a key of its own in a's name and
    cuts with it. Through the site's code a is mailed; by the web's role in SQL no mail goes, but the device is
    dated by the database (it cannot cut the decks already committed), listed in a's devices, and its cut
    in a's name is flagged by a's browser, which knew only its own device."""
    a, b, keys, table, hand = setup
    with django_capture_on_commit_callbacks(execute=True):
        forged, _row = registered(a, 7, label="Laptop")  # the server's own key, under a label a uses
    assert len(mailoutbox) == 1 and engine.short_fingerprint(forged.fingerprint) in mailoutbox[0].body
    # In SQL, with a date of its choosing: PostgreSQL dates it now, so it does not predate the open deal.
    sneaky = new_device(8)
    raw(
        'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
        "VALUES (%s, %s, 65537, %s, 'Phone', '2001-01-01')",
        [a.pk, sneaky.n, sneaky.fingerprint],
    )
    assert a.device_keys.get(fingerprint=sneaky.fingerprint).registered_at.year > 2001
    with pytest.raises(CutRefused, match="registered after deal 3's deck"):
        send(table, a, sneaky, 3)
    # The forged device was registered before deal 4's deck: its cut is accepted, and seen.
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    hand2 = Hand.objects.get(table=table, number=2)
    send(table, a, forged, 4)
    listed = [d["fingerprint"] for d in client_for(a).get("/profile/devices/").json()["devices"]]
    assert forged.fingerprint in listed and sneaky.fingerprint in listed
    for who in (a, b):
        post_action(client_for(who), hand2, "in")
    flagged = browser_check(client_for(a), table.pk, [], known={keys[a.pk].fingerprint})
    assert [(f["deal"], f["kind"], f["evidence"]["cut"]["device"]) for f in flagged] == [
        (4, "unknown-device", forged.fingerprint)
    ]
    got = client_for(a).post(
        f"/tables/{table.pk}/cut-complaints/", json.dumps(flagged[0]), content_type="application/json"
    )
    assert got.status_code == 201
    # a's honest browser, cutting deal 4 too, is refused with the forged device named.
    with pytest.raises(CutRefused, match=f"already, from device {engine.short_fingerprint(forged.fingerprint)}"):
        send(table, a, keys[a.pk], 4)


def test_one_member_with_a_second_device_cannot_add_a_second_cut(setup) -> None:
    """Prevented: one cut per member per deal, so a member (or the operator with their key) cannot choose
    among subsets of their devices' cuts."""
    a, _b, keys, table, _hand = setup
    send(table, a, keys[a.pk], 3)
    second = new_device(9)
    raw(
        'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
        "VALUES (%s, %s, 65537, %s, 'Tablet', now())",
        [a.pk, second.n, second.fingerprint],
    )
    with pytest.raises(CutRefused, match="already"):
        send(table, a, second, 3)
    assert DeviceCut.objects.filter(user=a, deck__number=3).count() == 1


# --- a grind after reading the deck and an honest cut -------------------------------------------------------


def test_a_grind_after_reading_the_deck_and_an_honest_cut_has_nothing_to_try(setup) -> None:
    """Prevented: the operator reads deal 3's deck and b's honest cut, then looks for a cut in a's name that
    deals A♠ A♥ to a seat. a's device gives exactly one value (a deterministic signature it cannot make); every
    key it makes now is dated after the deck, so PostgreSQL refuses its cut; the deck cannot be changed."""
    a, b, keys, table, _hand = setup
    with connection.cursor() as cursor:  # the web's role reads the deck and its salts: it is in its tables
        cursor.execute(
            'SELECT "id", "deck", "root" FROM "games_deckahead" WHERE "table_id" = %s AND "number" = 3', [table.pk]
        )
        deck_id, deck, root = cursor.fetchone()
    deck = json.loads(deck) if isinstance(deck, str) else deck
    honest = send(table, b, keys[b.pk], 3)
    one, _ = signed_row(keys[a.pk], table, 3)
    assert signed_row(keys[a.pk], table, 3)[0] == one  # a's device has one cut for this deal, not a choice
    tried = 0
    for _ in range(3):  # each try: a fresh key in a's name, signed, written as the web's role
        forged = fresh_device()
        raw(
            'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
            "VALUES (%s, %s, 65537, %s, 'x', now())",
            [a.pk, forged.n, forged.fingerprint],
        )
        signature, value = signed_row(forged, table, 3)
        cuts = sorted([honest.cut, value])
        dealt = [deck[p] for p in engine.cut_order(root, cuts, scheme=V2, table_id=table.pk, deal=3)]
        assert len(dealt) == 52  # the operator knows what this cut would deal...
        with pytest.raises(IntegrityError, match="registered after the deck"):  # ...and cannot use it
            raw(
                'INSERT INTO "games_devicecut" ("deck_id", "user_id", "device_id", "signature", "value", '
                '"received_at") VALUES (%s, %s, (SELECT id FROM accounts_devicekey WHERE fingerprint = %s), %s, %s, now())',
                [deck_id, a.pk, forged.fingerprint, signature, value],
            )
        tried += 1
    assert tried == 3 and list(DeviceCut.objects.filter(deck_id=deck_id).values_list("value", flat=True)) == [
        honest.cut
    ]
    swapped = [deck[1], deck[0], *deck[2:]]
    with pytest.raises(IntegrityError, match="never changes"):
        raw('UPDATE "games_deckahead" SET "deck" = %s::jsonb WHERE "id" = %s', [json.dumps(swapped), deck_id])


# --- a reorder, a dropped cut, a refused cut ------------------------------------------------------------


def test_a_reorder_of_the_cuts_changes_nothing_and_is_refused(setup, client_for) -> None:
    """Prevented: the order is by value. The closed list is written by PostgreSQL sorted, whatever the web's
    role sends; a hand whose cuts are in another order is refused; a proof listing them so fails."""
    a, b, keys, table, hand = setup
    cuts = [send(table, u, keys[u.pk], 3).cut for u in (a, b)]
    deck = DeckAhead.objects.get(table=table, number=3)
    backwards = [{"cut": c, "device": "", "member_id": 0, "signature": ""} for c in sorted(cuts, reverse=True)]
    raw(
        'INSERT INTO "games_cutlist" ("deck_id", "closed_at", "closed_by", "cuts") VALUES (%s, now(), %s, %s::jsonb)',
        [deck.pk, "previous-deal", json.dumps(backwards)],
    )
    assert [c["cut"] for c in CutList.objects.get(deck=deck).cuts] == sorted(cuts)
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    hand2 = Hand.objects.get(table=table, number=2)
    for who in (a, b):
        post_action(client_for(who), hand2, "in")
    hand3 = Hand.objects.get(table=table, number=3)
    assert [c["cut"] for c in hand3.cuts] == sorted(cuts)
    for who in (a, b):
        post_action(client_for(who), hand3, "in")
    proof = proof_in(client_for(a).get(f"/hands/{hand3.pk}/").content.decode())
    assert verify.check_export(proof) == []
    reordered = dict(proof, cuts=list(reversed(proof["cuts"])))
    assert "the cuts are not listed once each in the order of their values" in verify.check_export(reordered)


def test_a_dropped_acknowledged_cut_is_refused_or_seen_by_its_members_browser(setup, club_setup, client_for) -> None:
    """Prevented for the web's role: a received cut cannot be deleted, and a hand dealt without it is refused.
    Detected by the member's browser: a server that acknowledges a cut and never keeps it (the receipt came from
    its code) serves a closed list without it; the browser says so and complains, and the organisers see it."""
    a, b, keys, table, hand = setup
    kept = send(table, a, keys[a.pk], 3)
    with pytest.raises(IntegrityError, match="kept as received"):
        raw('DELETE FROM "games_devicecut" WHERE "value" = %s', [kept.cut])
    # b's receipt, as a server that drops the cut would hand it out (its signature is real, never stored).
    signature, value = signed_row(keys[b.pk], table, 3)
    deck = DeckAhead.objects.get(table=table, number=3)
    dropped = {
        "table": table.pk,
        "deal": 3,
        "scheme": V2,
        "root": deck.root,
        "device": keys[b.pk].fingerprint,
        "cut": value,
        "at": "2026-01-01T00:00:00+00:00",
        "id": 0,
    }
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    hand2 = Hand.objects.get(table=table, number=2)  # deal 3's list closed now, without b's cut
    found = browser_check(client_for(b), table.pk, [dropped], known={keys[b.pk].fingerprint})
    assert [(f["deal"], f["kind"]) for f in found] == [(3, "missing")]
    assert (
        client_for(b)
        .post(f"/tables/{table.pk}/cut-complaints/", json.dumps(found[0]), content_type="application/json")
        .status_code
        == 201
    )
    for who in (a, b):
        post_action(client_for(who), hand2, "in")
    hand3 = Hand.objects.get(table=table, number=3)
    for who in (a, b):
        post_action(client_for(who), hand3, "in")
    page = client_for(club_setup.organiser).get(f"/hands/{hand3.pk}/")
    assert "complaints about this deal" in page.content.decode() and value in page.content.decode()
    assert CutComplaint.objects.get().kind == "missing"


def test_a_refused_cut_answers_with_its_reason(setup, client_for) -> None:
    """Detected (by the member, at once): a refusal is an answer in words, never silence; the browser shows it and
    can file it. The site refuses only by rules every member reads (docs/fairness.md)."""
    a, _b, keys, table, _hand = setup
    cut = keys[a.pk].cut_of(table, 2)  # deal 2's list closed when deal 1 was dealt
    got = client_for(a).post(f"/tables/{table.pk}/cut/", json.dumps(cut), content_type="application/json")
    assert got.status_code == 400
    assert got.json() == {"type": "cut.refused", "deal": 2, "error": got.json()["error"]}
    assert "closed when the hand before it was dealt" in got.json()["error"]
    complaint = {"deal": 2, "kind": "refused", "evidence": {"answer": got.json()}}
    assert (
        client_for(a)
        .post(f"/tables/{table.pk}/cut-complaints/", json.dumps(complaint), content_type="application/json")
        .status_code
        == 201
    )


# --- a deal from another deck, a downgrade, a relabelled card -------------------------------------------


def test_a_deal_from_another_deck_or_scheme_is_refused_and_a_receipt_shows_it(setup, client_for) -> None:
    """Prevented for the web's role: a hand of the cut's scheme not dealt from its deal's deck and closed list,
    or a deal that was cut dealt under the older no-cut scheme (the server's order), is refused by PostgreSQL.
    Detected by the receipt: the history serves each dealt hand's own root and scheme, which a browser compares."""
    a, b, keys, table, hand = setup
    receipt = send(table, a, keys[a.pk], 3).to_dict()
    deck3 = DeckAhead.objects.get(table=table, number=3)
    fields = [f for f in Hand._meta.concrete_fields if f.column != "id"]
    row = {f.column: getattr(hand, f.attname) for f in fields}
    row.update(number=3, deck=deck3.deck, salts=deck3.salts, commitment=deck3.root, scheme=V2, cuts=[])
    other = list(engine.shuffled_deck())
    salts = [secrets.token_hex(16) for _ in range(52)]
    attempts = {
        "is not dealt from the deck committed": {
            "deck": other,
            "salts": salts,
            "commitment": engine.merkle_root(deck3.hand_id, other, salts, scheme=V2),
        },
        "closed list": {},  # its own deck, but not through its list (none is closed: deal 3's list is open)
        "was cut": {"scheme": engine.SCHEME_MERKLE},  # the older scheme: the server's own order
    }
    for words, change in attempts.items():
        values = {**row, **change}
        placeholders = ", ".join("%s::jsonb" if isinstance(v, (list, dict)) else "%s" for v in values.values())
        params = [json.dumps(v) if isinstance(v, (list, dict)) else v for v in values.values()]
        columns = ", ".join(f'"{c}"' for c in values)
        with pytest.raises(IntegrityError, match=words):
            raw(f'INSERT INTO "games_hand" ("id", {columns}) VALUES (%s, {placeholders})', [deck3.hand_id, *params])  # noqa: S608 - the model's own columns
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    hand2 = Hand.objects.get(table=table, number=2)
    for who in (a, b):
        post_action(client_for(who), hand2, "in")
    # A receipt checks the hand its deal became: same root and scheme, its cut in the list.
    assert browser_check(client_for(a), table.pk, [receipt], known={keys[a.pk].fingerprint}) == []
    lying = dict(receipt, root=secrets.token_hex(32))  # as if the site had dealt deal 3 from another deck
    assert [f["kind"] for f in browser_check(client_for(a), table.pk, [lying], known={keys[a.pk].fingerprint})] == [
        "other-root"
    ]


def test_a_scheme_downgrade_and_a_relabelled_card_fail_the_verifier(setup, client_for, tmp_path) -> None:
    """Prevented (the verifiers refuse): a signed-cut hand relabelled as an older scheme does not open under
    their leaves; a board card shown as a hole card, or a hole card given to another seat, fails the layout."""
    a, b, keys, table, hand = setup
    for who in (a, b):
        post_action(client_for(who), hand, "in")
    proof = proof_in(client_for(a).get(f"/hands/{hand.pk}/").content.decode())
    assert proof["scheme"] == V2 and verify.check_export(proof) == []
    for older in (engine.SCHEME_CUT, engine.SCHEME_MERKLE):
        downgraded = dict(proof, scheme=older, cuts=[])
        assert any("does not match the root" in p for p in verify.check_export(downgraded)), older
    board = next(o for o in proof["openings"] if o["opened_as"] == "board")
    hole = next(o for o in proof["openings"] if o["opened_as"] == "hole")
    for changed in (
        dict(board, opened_as="hole", seat=1),
        dict(hole, opened_as="board", seat=None),
        dict(hole, seat=2 if hole["seat"] == 1 else 1),
    ):
        relabelled = dict(proof, openings=[changed if o is board or o is hole else o for o in proof["openings"]])
        assert any("but the deal made it" in p for p in verify.check_export(relabelled))
    moved = dict(proof, button=2 if proof["button"] == 1 else 1)  # the same cards under another button
    assert any("but the deal made it" in p for p in verify.check_export(moved))
    with pytest.raises(IntegrityError):  # and the stored hand keeps its scheme
        raw('UPDATE "games_hand" SET "scheme" = %s WHERE "id" = %s', [engine.SCHEME_CUT, hand.pk])
