"""The deal's per-card commitment (docs/design.md "Engine contract"): one salted SHA-256 leaf per deck
position under a Merkle root; an opening proves one card and nothing else; openings follow the
views, so a dropped or folded hand is never opened; the standalone verifier agrees."""

from __future__ import annotations

import hashlib
import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    EngineError,
    Opening,
    PilesRules,
    PiranhaRules,
    check_salts,
    leaf_hex,
    merkle_root,
    opened_positions,
    openings,
    verify_opening,
)
from engine import verify as standalone
from engine.cards import FULL_DECK
from tests.engine.helpers import visible_cards
from tests.engine.test_properties import piles_rules, piranha_rules, play

salts_st = st.lists(st.binary(min_size=16, max_size=16).map(bytes.hex), min_size=52, max_size=52)
hand_ids = st.integers(0, 2**64 - 1)
decks = st.permutations(FULL_DECK)
positions = st.integers(0, 51)


def fresh_salts() -> list[str]:
    return [secrets.token_hex(16) for _ in range(52)]


# ---- the encoding, recomputed here from its documented bytes -----------------------------------


def test_the_root_is_the_documented_tree_of_64_leaves() -> None:
    deck = list(FULL_DECK)
    salts = [f"{i:032x}" for i in range(52)]
    tag = b"home-club/deal-v1"

    def sha(data: bytes) -> bytes:
        return hashlib.sha256(data).digest()

    level = [
        sha(b"\x00" + tag + (7).to_bytes(8, "big") + bytes([i]) + deck[i].encode() + bytes.fromhex(salts[i]))
        for i in range(52)
    ]
    level += [sha(b"\x02" + tag)] * 12
    while len(level) > 1:
        level = [sha(b"\x01" + level[k] + level[k + 1]) for k in range(0, len(level), 2)]
    assert merkle_root(7, deck, salts) == level[0].hex()


def test_every_position_opens_under_the_root() -> None:
    deck, salts = list(FULL_DECK), fresh_salts()
    root = merkle_root(3, deck, salts)
    opened = openings(3, deck, salts, range(52))
    assert [o.position for o in opened] == list(range(52))
    assert all(verify_opening(root, 3, o) for o in opened)
    assert all(len(o.path) == 6 for o in opened)


def test_bad_salts_and_positions_are_refused() -> None:
    deck = list(FULL_DECK)
    with pytest.raises(EngineError):
        check_salts(["00" * 16] * 51)
    with pytest.raises(EngineError):
        merkle_root(1, deck, ["AB" * 16] * 52)  # hex must be lowercase: one spelling per salt
    with pytest.raises(EngineError):
        openings(1, deck, fresh_salts(), [52])


# ---- tampering: any changed card, salt, position or path fails --------------------------------


@settings(max_examples=150, deadline=None)
@given(hand_id=hand_ids, deck=decks, salts=salts_st, i=positions, data=st.data())
def test_any_tampered_card_salt_position_or_path_fails(hand_id, deck, salts, i, data) -> None:
    root = merkle_root(hand_id, deck, salts)
    (good,) = openings(hand_id, deck, salts, [i])
    assert verify_opening(root, hand_id, good)
    assert (
        standalone.check_export(
            {"scheme": "merkle-sha256-v1", "root": root, "hand_id": hand_id, "openings": [good.to_dict()]}
        )
        == []
    )

    other_card = data.draw(st.sampled_from([c for c in FULL_DECK if c != good.card]), label="card")
    assert not verify_opening(root, hand_id, Opening(i, other_card, good.salt, good.path))

    digit = data.draw(st.integers(0, 31), label="salt digit")
    flipped = (
        good.salt[:digit]
        + format(int(good.salt[digit], 16) ^ data.draw(st.integers(1, 15)), "x")
        + good.salt[digit + 1 :]
    )
    assert not verify_opening(root, hand_id, Opening(i, good.card, flipped, good.path))

    j = data.draw(positions.filter(lambda p: p != i), label="other position")
    assert not verify_opening(root, hand_id, Opening(j, good.card, good.salt, good.path))

    level = data.draw(st.integers(0, 5), label="path level")
    bit = data.draw(st.integers(0, 255), label="path bit")
    raw = bytearray(bytes.fromhex(good.path[level]))
    raw[bit // 8] ^= 1 << (bit % 8)
    path = good.path[:level] + (raw.hex(),) + good.path[level + 1 :]
    assert not verify_opening(root, hand_id, Opening(i, good.card, good.salt, path))
    assert not verify_opening(root, hand_id, Opening(i, good.card, good.salt, tuple(reversed(good.path))))
    assert not verify_opening(root, hand_id, Opening(i, good.card, good.salt, good.path[:5]))

    assert not verify_opening(root, hand_id ^ 1, good)  # a leaf of one hand proves nothing in another
    bad = standalone.check_export(
        {
            "scheme": "merkle-sha256-v1",
            "root": root,
            "hand_id": hand_id,
            "openings": [{**good.to_dict(), "card": other_card}],
        }
    )
    assert bad and "does not match" in bad[0]


@settings(max_examples=40, deadline=None)
@given(hand_id=hand_ids, deck=decks, salts=salts_st, data=st.data())
def test_swapping_two_opened_cards_fails(hand_id, deck, salts, data) -> None:
    i, j = data.draw(st.lists(positions, min_size=2, max_size=2, unique=True), label="two positions")
    root = merkle_root(hand_id, deck, salts)
    a, b = openings(hand_id, deck, salts, [i, j])
    assert not verify_opening(root, hand_id, Opening(a.position, b.card, a.salt, a.path))
    assert not verify_opening(root, hand_id, Opening(a.position, b.card, b.salt, b.path))


# ---- binding: different decks never share a root ---------------------------------------------


def test_different_decks_never_share_a_root_over_many_deals() -> None:
    import random

    order = random.SystemRandom()
    roots: dict[str, tuple[str, ...]] = {}
    for hand_id in range(3000):
        deck = list(FULL_DECK)
        order.shuffle(deck)
        root = merkle_root(hand_id % 5, deck, fresh_salts())
        assert roots.setdefault(root, tuple(deck)) == tuple(deck)
    assert len(roots) == 3000


@settings(max_examples=100, deadline=None)
@given(hand_id=hand_ids, a=decks, b=decks, salts=salts_st)
def test_two_decks_with_the_same_salts_have_different_roots(hand_id, a, b, salts) -> None:
    assert (merkle_root(hand_id, a, salts) == merkle_root(hand_id, b, salts)) == (list(a) == list(b))


# ---- openings by right: exactly what the views show ------------------------------------------


def check_openings(state) -> None:
    deck = state.deck
    public = {deck[i] for i in opened_positions(state, None)}
    assert public == visible_cards(state, None)
    out = {s for j, s in enumerate(state.seats) if state.status[j] in ("folded", "out")}
    shown = {h.seat for h in state.outcome.hands} if state.outcome is not None else set()
    for j, s in enumerate(state.seats):
        hole = set(state.hole[j])
        if s in out or s not in shown:
            assert not hole & public, f"seat {s}'s unshown hand is opened"
        mine = {deck[i] for i in opened_positions(state, s)}
        assert mine == public | hole
        for k, other in enumerate(state.seats):
            if other != s and other not in shown:
                assert not set(state.hole[k]) & mine


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piranha_rules)
def test_piranha_openings_never_include_a_dropped_or_folded_hand(data, rules: PiranhaRules) -> None:
    check_openings(play(data, rules))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=piles_rules)
def test_piles_openings_never_include_a_folded_hand(data, rules: PilesRules) -> None:
    check_openings(play(data, rules))


# ---- the standalone verifier's own checks ----------------------------------------------------


def test_the_verifier_flags_a_card_opened_twice_and_refuses_malformed_proofs() -> None:
    deck, salts = list(FULL_DECK), fresh_salts()
    root = merkle_root(9, deck, salts)
    (o,) = openings(9, deck, salts, [4])
    twice = standalone.check_export(
        {"scheme": "merkle-sha256-v1", "root": root, "hand_id": 9, "openings": [o.to_dict(), o.to_dict()]}
    )
    assert "position 4 is opened twice" in twice
    for broken in (
        {"scheme": "sha1"},
        {"scheme": "merkle-sha256-v1", "root": root, "hand_id": 9},
        {"scheme": "merkle-sha256-v1", "root": root, "openings": [o.to_dict()]},
        {"scheme": "merkle-sha256-v1", "root": root[:10], "hand_id": 9, "openings": [o.to_dict()]},
        {"scheme": "merkle-sha256-v1", "root": root, "hand_id": 9, "openings": [{**o.to_dict(), "position": 60}]},
    ):
        with pytest.raises(standalone.ProofError):
            standalone.check_export(broken)


def test_the_verifier_checks_the_older_whole_deck_scheme() -> None:
    from engine import deck_commitment

    deck = list(FULL_DECK)
    salt = "ab" * 16
    good = {"scheme": "deck-sha256", "deck": deck, "salt": salt, "commitment": deck_commitment(deck, salt)}
    assert standalone.check_export(good) == []
    assert standalone.check_export({**good, "deck": deck[1:] + deck[:1]}) != []


@settings(max_examples=30, deadline=None)
@given(hand_id=hand_ids, deck=decks, salts=salts_st, closed=st.sets(positions, min_size=1, max_size=52))
def test_closed_positions_held_as_leaves_keep_the_root_and_the_other_openings(hand_id, deck, salts, closed) -> None:
    """A club export keeps a closed card as its leaf only: the root is the same, every other card opens as
    before under it, and a closed position cannot be opened."""
    leaves = {i: leaf_hex(hand_id, i, deck[i], salts[i]) for i in closed}
    stand_in = ["2c"] * 52  # never read at a closed position
    held = [stand_in[i] if i in closed else deck[i] for i in range(52)]
    held_salts = ["" if i in closed else salts[i] for i in range(52)]
    root = merkle_root(hand_id, deck, salts)
    assert merkle_root(hand_id, held, held_salts, leaves) == root
    rest = [i for i in range(52) if i not in closed]
    assert openings(hand_id, held, held_salts, rest, leaves) == openings(hand_id, deck, salts, rest)
    with pytest.raises(EngineError, match="cannot be opened"):
        openings(hand_id, held, held_salts, [min(closed)], leaves)
    with pytest.raises(EngineError):
        merkle_root(hand_id, held, held_salts, {min(closed): "not a hash"})
