"""engine/verify.py keeps every scheme apart (docs/fairness.md): a hand verifies under the scheme it was dealt
with and no other; older hands ("merkle-sha256-cut-v1", "merkle-sha256-v1", "deck-sha256") verify as before;
a version-2 proof is refused when a device's key, signature or cut, the cuts' order, or a card's place is false."""

from __future__ import annotations

import secrets
from typing import Any

import engine
from engine import verify
from tests.games.cut_keys import new_device

HAND_ID, TABLE_ID, DEAL = 4242, 17, 9


def _deck() -> tuple[list[str], list[str]]:
    return list(engine.shuffled_deck()), [secrets.token_hex(16) for _ in range(52)]


def _openings(deck, salts, scheme, order, positions) -> list[dict[str, Any]]:
    return [
        {**o.to_dict(), "dealt": list(order).index(o.position)}
        for o in engine.openings(HAND_ID, deck, salts, positions, scheme=scheme)
    ]


def test_a_cut_v1_hand_verifies_as_before_and_a_changed_card_fails() -> None:
    deck, salts = _deck()
    root = engine.merkle_root(HAND_ID, deck, salts)
    cuts = [secrets.token_hex(16), secrets.token_hex(16)]
    order = engine.cut_order(root, cuts)
    export = {
        "scheme": engine.SCHEME_CUT,
        "hand_id": HAND_ID,
        "root": root,
        "cuts": [{"cut": c, "by": "A", "at": ""} for c in cuts],
        "openings": _openings(deck, salts, engine.SCHEME_CUT, order, [0, 1, 5]),
    }
    assert verify.check_export(export) == []
    export["openings"][0]["card"] = next(c for c in deck if c not in {o["card"] for o in export["openings"]})
    assert verify.check_export(export) != []


def test_a_merkle_v1_and_a_whole_deck_hand_verify_as_before() -> None:
    deck, salts = _deck()
    root = engine.merkle_root(HAND_ID, deck, salts)
    merkle = {
        "scheme": engine.SCHEME_MERKLE,
        "hand_id": HAND_ID,
        "root": root,
        "openings": [o.to_dict() for o in engine.openings(HAND_ID, deck, salts, [3, 7])],
    }
    assert verify.check_export(merkle) == []
    salt = secrets.token_hex(16)
    whole = {"scheme": engine.SCHEME_DECK, "deck": deck, "salt": salt, "commitment": engine.deck_commitment(deck, salt)}
    assert verify.check_export(whole) == []


def _v2(players: int = 3, button: int = 2) -> dict[str, Any]:
    deck, salts = _deck()
    root = engine.merkle_root(HAND_ID, deck, salts, scheme=engine.SCHEME_CUT_V2)
    message = engine.cut_message(scheme=engine.SCHEME_CUT_V2, table_id=TABLE_ID, deal=DEAL, root=root)
    cuts = []
    for k in range(2):
        device = new_device(k)
        signature = device.sign(message)
        cuts.append(
            {
                "cut": engine.cut_of_signature(signature),
                "device": device.fingerprint,
                "n": device.n,
                "e": 65537,
                "signature": signature,
                "member": f"M{k}",
            }
        )
    cuts.sort(key=lambda c: c["cut"])
    order = engine.cut_order(root, [c["cut"] for c in cuts], scheme=engine.SCHEME_CUT_V2, table_id=TABLE_ID, deal=DEAL)
    seats = list(range(1, players + 1))
    openings = []
    for dealt in (0, 1, 4 * players, 4 * players + 1):  # two hole cards, two board cards (piranha: 4 each)
        made, seat = engine.deal_layout(seats=seats, button=button, hole_cards=4, dealt=dealt)
        (o,) = engine.openings(HAND_ID, deck, salts, [order[dealt]], scheme=engine.SCHEME_CUT_V2)
        openings.append({**o.to_dict(), "dealt": dealt, "opened_as": made, "seat": seat})
    return {
        "scheme": engine.SCHEME_CUT_V2,
        "hand_id": HAND_ID,
        "table_id": TABLE_ID,
        "hand_number": DEAL,
        "game": "piranha",
        "root": root,
        "button": button,
        "seats": [{"seat": s, "member": f"M{s}"} for s in seats],
        "cuts": cuts,
        "openings": openings,
    }


def test_a_v2_proof_verifies_and_each_false_part_is_named() -> None:
    proof = _v2()
    assert verify.check_export(proof) == []
    assert proof["openings"][0]["seat"] == 3 and proof["openings"][1]["seat"] == 1  # after the button, clockwise
    other = new_device(5)
    forged_key = dict(proof, cuts=[dict(proof["cuts"][0], n=other.n), proof["cuts"][1]])
    assert any("fingerprint" in p for p in verify.check_export(forged_key))
    moved_table = dict(proof, table_id=TABLE_ID + 1)  # a proof of another table's deal
    assert any("does not verify" in p for p in verify.check_export(moved_table))
    chosen = dict(proof, cuts=[dict(proof["cuts"][0], cut="0" * 32), proof["cuts"][1]])
    assert any("not the SHA-256 of its signature" in p for p in verify.check_export(chosen))
    dropped = dict(proof, cuts=proof["cuts"][:1])  # one cut left out: another order
    assert any("was not dealt at" in p for p in verify.check_export(dropped))
    for older in (engine.SCHEME_CUT, engine.SCHEME_MERKLE):
        assert any("does not match the root" in p for p in verify.check_export(dict(proof, scheme=older)))


def test_the_engine_and_the_verifier_agree_on_the_deal_layout() -> None:
    for seats in ([1, 2], [2, 5, 7], [1, 3, 4, 6, 9]):
        for button in (*seats, 0, 8):
            for dealt in range(52):
                assert engine.deal_layout(seats=seats, button=button, hole_cards=5, dealt=dealt) == verify.deal_layout(
                    seats, button, 5, dealt
                )


def test_the_deal_layout_is_what_each_game_deals() -> None:
    for rules, hole in ((engine.PiranhaRules(), 4), (engine.PilesRules(), 5)):
        deck = list(engine.shuffled_deck())
        seats, button = [2, 4, 5], 4
        state, _ = engine.new_hand(rules, seats=seats, button=button, deck=deck)
        holder = {c: s for j, s in enumerate(state.seats) for c in state.hole[j]}
        for dealt, card in enumerate(deck):
            made, seat = verify.deal_layout(seats, button, hole, dealt)
            assert (made, seat) == (("hole", holder[card]) if card in holder else ("board", None))
