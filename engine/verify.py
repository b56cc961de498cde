"""Check a hand's shuffle proof: ``python -m engine.verify hand.json``.

This file needs only Python's standard library and imports nothing else, so it can be copied
out of the project and run alone (``python3 verify.py hand.json``). It reads the JSON export of
a hand's page and checks every opened card against the commitment published at the deal; it
exits 0 when every opening holds, 1 when one fails, 2 when the file cannot be read.

The encoding (scheme "merkle-sha256-v1"; the hand page's script computes the same bytes):

    tag       = b"home-club/deal-v1"                                   17 bytes
    leaf_i    = SHA-256(0x00 | tag | hand_id as 8 bytes big-endian | i as 1 byte
                        | card code as 2 ASCII bytes (rank 23456789TJQKA, suit cdhs)
                        | salt as 16 bytes (published as 32 lowercase hex digits))
    empty     = SHA-256(0x02 | tag)                  the leaves of positions 52 to 63
    node      = SHA-256(0x01 | left | right)
    root      = the node over the 64 leaves of positions 0..63 (a full tree of depth 6)

Every field has a fixed length and each kind of hash its own first byte, so no leaf can be
read as a node, an empty slot or a leaf of another hand or position. An opening of position
``i`` is (card, salt, path): the path lists the 6 sibling hashes from the leaf up; at level
``k`` the sibling is on the left when bit ``k`` of ``i`` is 1.

Scheme "merkle-sha256-cut-v1" (hands dealt with the cut) commits the deck the same way, but the deck is
drawn and its root published before the deal, and the order in which the cards are dealt is that
committed deck permuted by a public function of the root and the players' cuts:

    cut_tag   = b"home-club/cut-v1"                                    16 bytes
    seed      = SHA-256(0x03 | cut_tag | root as 32 bytes | number of cuts as 2 bytes big-endian
                        | each cut as 16 bytes, in the order the site received them)
    block_j   = SHA-256(0x04 | cut_tag | seed | j as 4 bytes big-endian), j = 0, 1, 2, ...
    words     = the blocks' bytes read as 32-bit big-endian unsigned words, in order
    order     = [0, 1, ..., 51]; for i = 51 down to 1: bound = i + 1,
                limit = 2**32 - (2**32 mod bound); take the next word w, skipping every w >= limit
                (so each k is equally likely); k = w mod bound; swap order[i] and order[k]

``order[d]`` is the committed position of the card dealt ``d``-th (0 first). A hand with no cut
uses the same function with no cut (it says so: the site alone chose that deal). Each opening of
this scheme names its committed ``position`` and the ``dealt`` index it came out at, and the check
is that ``order[dealt] == position``: a card proved at its committed place is where the public
shuffle put it. Nothing of the permutation needs a closed card.

Scheme "merkle-sha256-cut-v2" (docs/fairness.md) is version 1 with these changes:

    tag       = b"home-club/deal-v2"  (so a v2 root never opens as an older scheme: no downgrade)
    cut_tag   = b"home-club/cut-v2"
    seed      = SHA-256(0x03 | cut_tag | root (32 bytes) | table id (8 bytes big-endian)
                        | deal number (4 bytes big-endian) | number of cuts (2 bytes) | each cut (16 bytes),
                        sorted by value)
    message   = "home-club/cut-v2\n<scheme>\n<table id>\n<deal number>\n<root hex>" (UTF-8)
    signature = RSASSA-PKCS1-v1_5 with SHA-256 over the message by the member's device key (n, e): checked
                here as s**e mod n == 0x00 01 FF..FF 00 | DigestInfo(SHA-256) | SHA-256(message)
    cut       = the first 16 bytes of SHA-256(signature bytes)
    device    = SHA-256("home-club/device-v1\n" + n as lowercase hex + "\n" + e), the fingerprint

and the proof names the button and the seats dealt in, and each opening says what the deal made of its
dealt index (``deal_layout``): a hole card of a seat, or the board. A card shown as something else fails.

Hands dealt before this scheme carry scheme "deck-sha256": the commitment is SHA-256 of the UTF-8
text ``" ".join(deck) + ":" + salt``. The whole deck and the salt are opened only to a viewer who
saw every hand of it, or by an organiser's ruling; to anyone else "deck" and "salt" are null.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

SCHEME_MERKLE = "merkle-sha256-v1"
SCHEME_DECK = "deck-sha256"
SCHEME_CUT = "merkle-sha256-cut-v1"
CUT_TAG = b"home-club/cut-v1"
SCHEME_CUT_V2 = "merkle-sha256-cut-v2"
CUT_TAG_V2 = b"home-club/cut-v2"
TAG_V2 = b"home-club/deal-v2"
HOLE_CARDS = {"piranha": 4, "piles": 5}  # piranha.txt 2.2, piles.txt 2.1
DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")  # SHA-256's, RFC 8017 9.2 note 1
_MODULUS = re.compile(r"^[89a-f][0-9a-f]{511}$")
_SIGNATURE = re.compile(r"^[0-9a-f]{512}$")
CUT_BYTES = 16
MAX_CUTS = 65535
TAG = b"home-club/deal-v1"
DECK_SIZE = 52
DEPTH = 6  # 2**6 = 64 leaves hold the 52 positions
_CARD = re.compile(r"^[23456789TJQKA][cdhs]$")
_SALT = re.compile(r"^[0-9a-f]{32}$")
_HASH = re.compile(r"^[0-9a-f]{64}$")


class ProofError(ValueError):
    """The proof is malformed (not merely false): a field is missing or not of its form."""


def leaf_hash(hand_id: int, position: int, card: str, salt: str, tag: bytes = TAG) -> bytes:
    """The leaf of one deck position; raises ProofError for a field out of its form."""
    if isinstance(hand_id, bool) or not isinstance(hand_id, int) or not 0 <= hand_id < 2**64:
        raise ProofError("hand_id must be a whole number from 0 to 2**64 - 1")
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < DECK_SIZE:
        raise ProofError(f"position must be a whole number from 0 to {DECK_SIZE - 1}")
    if not isinstance(card, str) or not _CARD.match(card):
        raise ProofError(f"{card!r} is not a card code like 7c or Td")
    if not isinstance(salt, str) or not _SALT.match(salt):
        raise ProofError("a salt is 32 lowercase hex digits")
    data = b"\x00" + tag + hand_id.to_bytes(8, "big") + bytes([position]) + card.encode("ascii") + bytes.fromhex(salt)
    return hashlib.sha256(data).digest()


EMPTY_LEAF = hashlib.sha256(b"\x02" + TAG).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_path(leaf: bytes, position: int, path: Sequence[str]) -> bytes:
    """The root reached from ``leaf`` at ``position`` by the sibling hashes of ``path`` (hex)."""
    if not isinstance(path, (list, tuple)) or len(path) != DEPTH:
        raise ProofError(f"a path lists exactly {DEPTH} sibling hashes")
    node = leaf
    for level, sibling_hex in enumerate(path):
        if not isinstance(sibling_hex, str) or not _HASH.match(sibling_hex):
            raise ProofError("a path hash is 64 lowercase hex digits")
        sibling = bytes.fromhex(sibling_hex)
        node = node_hash(sibling, node) if (position >> level) & 1 else node_hash(node, sibling)
    return node


def opening_holds(
    root: str, hand_id: int, position: int, card: str, salt: str, path: Sequence[str], tag: bytes = TAG
) -> bool:
    """True when (card, salt, path) opens ``position`` of the hand whose Merkle root is ``root``."""
    if not isinstance(root, str) or not _HASH.match(root):
        raise ProofError("the root is 64 lowercase hex digits")
    got = root_from_path(leaf_hash(hand_id, position, card, salt, tag), position, path)
    return hmac.compare_digest(got, bytes.fromhex(root))


def _whole(value: Any, what: str, bound: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise ProofError(f"{what} must be a whole number from 0 to {bound - 1}")
    return int(value)


def cut_seed(root: str, cuts: Sequence[str], scheme: str = SCHEME_CUT, table_id: int = 0, deal: int = 0) -> bytes:
    """SHA-256(0x03 | cut_tag | root | [table id | deal] | number of cuts | cuts): the seed of the public shuffle."""
    if not isinstance(root, str) or not _HASH.match(root):
        raise ProofError("the root is 64 lowercase hex digits")
    if not isinstance(cuts, (list, tuple)) or len(cuts) > MAX_CUTS:
        raise ProofError(f"cuts must be a list of at most {MAX_CUTS}")
    if not all(isinstance(c, str) and _SALT.match(c) for c in cuts):
        raise ProofError("a cut is 32 lowercase hex digits (128 bits)")
    v2 = scheme == SCHEME_CUT_V2
    bound = _whole(table_id, "table_id", 2**64).to_bytes(8, "big") + _whole(deal, "hand_number", 2**32).to_bytes(
        4, "big"
    )
    return hashlib.sha256(
        b"\x03"
        + (CUT_TAG_V2 if v2 else CUT_TAG)
        + bytes.fromhex(root)
        + (bound if v2 else b"")
        + len(cuts).to_bytes(2, "big")
        + b"".join(bytes.fromhex(c) for c in cuts)
    ).digest()


def _words(seed: bytes, cut_tag: bytes = CUT_TAG) -> Iterator[int]:
    """The 32-bit big-endian words of SHA-256(0x04 | cut_tag | seed | j) for j = 0, 1, 2, ..."""
    j = 0
    while True:
        block = hashlib.sha256(b"\x04" + cut_tag + seed + j.to_bytes(4, "big")).digest()
        for at in range(0, 32, 4):
            yield int.from_bytes(block[at : at + 4], "big")
        j += 1


def cut_order(root: str, cuts: Sequence[str], scheme: str = SCHEME_CUT, table_id: int = 0, deal: int = 0) -> list[int]:
    """The committed position of each card in the order dealt (Fisher-Yates, unbiased by rejection). The cuts
    are taken as listed: version 2 lists them sorted (``check_export`` refuses them otherwise)."""
    seed = cut_seed(root, cuts, scheme, table_id, deal)
    words = _words(seed, CUT_TAG_V2 if scheme == SCHEME_CUT_V2 else CUT_TAG)
    order = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        w = next(words)
        while w >= limit:
            w = next(words)
        k = w % bound
        order[i], order[k] = order[k], order[i]
    return order


def device_fingerprint(n_hex: str, e: int) -> str:
    """SHA-256 of "home-club/device-v1\\n" + n + "\\n" + e, as 64 lowercase hex digits."""
    return hashlib.sha256(("home-club/device-v1\n" + n_hex + "\n" + str(e)).encode("utf-8")).hexdigest()


def cut_message(scheme: str, table_id: int, deal: int, root: str) -> bytes:
    """The bytes a device signed to cut a deal."""
    return "\n".join(["home-club/cut-v2", scheme, str(table_id), str(deal), root]).encode("utf-8")


def rsa_signature_holds(n_hex: str, e: int, message: bytes, signature_hex: str) -> bool:
    """RSASSA-PKCS1-v1_5 verification with SHA-256 (RFC 8017 8.2.2), by modular exponentiation alone."""
    if not isinstance(n_hex, str) or not _MODULUS.match(n_hex) or e != 65537:
        return False
    if not isinstance(signature_hex, str) or not _SIGNATURE.match(signature_hex):
        return False
    n, s = int(n_hex, 16), int(signature_hex, 16)
    if s >= n:
        return False
    digest = DIGEST_INFO + hashlib.sha256(message).digest()
    expected = b"\x00\x01" + b"\xff" * (256 - 3 - len(digest)) + b"\x00" + digest
    return hmac.compare_digest(pow(s, e, n).to_bytes(256, "big"), expected)


def deal_layout(seats: Sequence[int], button: int, hole_cards: int, dealt: int) -> tuple[str, int | None]:
    """What the card dealt ``dealt``-th becomes: ("hole", seat) or ("board", None). Hole cards go one at a time
    clockwise (seat numbers rising, wrapping) from the first seat after the button, ``hole_cards`` rounds."""
    ring = sorted(seats)
    if button in ring:
        start = (ring.index(button) + 1) % len(ring)
    else:
        above = [k for k, seat in enumerate(ring) if seat > button]
        start = above[0] if above else 0
    order = [ring[(start + k) % len(ring)] for k in range(len(ring))]
    if 0 <= dealt < hole_cards * len(order):
        return "hole", order[dealt % len(order)]
    return "board", None


def deck_commitment_holds(deck: Sequence[str], salt: str, commitment: str) -> bool:
    """The scheme of older hands: SHA-256 of the deck codes joined by spaces, ':', the salt."""
    if not isinstance(deck, (list, tuple)) or not all(isinstance(c, str) for c in deck):
        raise ProofError("deck must be a list of card codes")
    if not isinstance(salt, str) or not isinstance(commitment, str):
        raise ProofError("salt and commitment must be text")
    text = " ".join(deck) + ":" + salt
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hmac.compare_digest(digest, commitment.strip().lower())


def _field(data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise ProofError(f"{key!r} is missing")
    return data[key]


def check_export(data: Mapping[str, Any]) -> list[str]:
    """Every problem found in a hand's export, as sentences; an empty list means the proof holds.

    Raises ProofError when the export is malformed.
    """
    if not isinstance(data, Mapping):
        raise ProofError("the export must be a JSON object")
    scheme = data.get("scheme")
    if scheme == SCHEME_DECK:
        deck = data.get("deck")
        if deck is None:  # the whole deck is opened only to who saw every hand of it, or by a ruling
            return []
        problems = []
        if not deck_commitment_holds(deck or [], data.get("salt", ""), data.get("commitment", "")):
            problems.append("the deck and salt do not match the commitment")
        if sorted(deck or []) != sorted(set(deck or [])) or len(deck or []) != DECK_SIZE:
            problems.append("the deck does not hold 52 different cards")
        return problems
    if scheme == SCHEME_CUT_V2:
        return _check_v2(data)
    if scheme not in (SCHEME_MERKLE, SCHEME_CUT):
        raise ProofError(f"unknown scheme {scheme!r}")
    order = cut_order(_field(data, "root"), _cut_values(_field(data, "cuts"))) if scheme == SCHEME_CUT else None
    openings = data.get("openings")
    if not isinstance(openings, list):
        raise ProofError("openings must be a list")
    root, hand_id = _field(data, "root"), _field(data, "hand_id")
    problems = []
    positions: set[int] = set()
    cards: set[str] = set()
    for item in openings:
        if not isinstance(item, Mapping):
            raise ProofError("each opening must be a JSON object")
        position, card = _field(item, "position"), _field(item, "card")
        if not opening_holds(root, hand_id, position, card, _field(item, "salt"), _field(item, "path")):
            problems.append(f"position {position} ({card}) does not match the root")
        dealt = _field(item, "dealt") if order is not None else None
        if order is not None and (isinstance(dealt, bool) or not isinstance(dealt, int) or not 0 <= dealt < DECK_SIZE):
            raise ProofError("an opening's dealt index is a whole number from 0 to 51")
        if order is not None and isinstance(dealt, int) and order[dealt] != position:
            problems.append(f"position {position} ({card}) was not dealt at {item['dealt']} by the cut")
        problems += _opened_once(position, card, positions, cards)
    return problems


def _check_v2(data: Mapping[str, Any]) -> list[str]:
    """The checks of scheme "merkle-sha256-cut-v2": the devices' signatures, the cuts' values and order, the
    dealt order, every opening under the v2 tag, and what the deal's layout made of each opened card."""
    root, hand_id = _field(data, "root"), _field(data, "hand_id")
    table_id = _whole(_field(data, "table_id"), "table_id", 2**64)
    deal = _whole(_field(data, "hand_number"), "hand_number", 2**32)
    button = _whole(_field(data, "button"), "button", 2**16)
    game = _field(data, "game")
    if game not in HOLE_CARDS:
        raise ProofError(f"unknown game {game!r}")
    seats_field = _field(data, "seats")
    if not isinstance(seats_field, list) or not seats_field or not all(isinstance(x, Mapping) for x in seats_field):
        raise ProofError("seats must be a list of objects {seat, member}")
    seats = [_whole(_field(x, "seat"), "a seat", 2**16) for x in seats_field]
    if len(set(seats)) != len(seats):
        raise ProofError("a seat is listed twice")
    cuts = _field(data, "cuts")
    if not isinstance(cuts, list) or not all(isinstance(c, Mapping) for c in cuts):
        raise ProofError("cuts must be a list of objects")
    problems: list[str] = []
    message = cut_message(SCHEME_CUT_V2, table_id, deal, root)
    values = []
    for c in cuts:
        value, device, n, e, signature = (_field(c, k) for k in ("cut", "device", "n", "e", "signature"))
        values.append(value)
        who = f"the cut {value} of {c.get('member', 'a member')}"
        if not isinstance(n, str) or not isinstance(e, int) or device != device_fingerprint(n, e):
            problems.append(f"{who}: its device's fingerprint is not that of its key (n, e)")
        elif not rsa_signature_holds(n, e, message, signature):
            problems.append(f"{who}: its signature does not verify over this table, deal and root")
        elif hashlib.sha256(bytes.fromhex(signature)).hexdigest()[: 2 * CUT_BYTES] != value:
            problems.append(f"{who}: it is not the SHA-256 of its signature")
    if values != sorted(values) or len(set(values)) != len(values):
        problems.append("the cuts are not listed once each in the order of their values")
    order = cut_order(root, sorted(values), SCHEME_CUT_V2, table_id, deal)
    openings = data.get("openings")
    if not isinstance(openings, list):
        raise ProofError("openings must be a list")
    positions: set[int] = set()
    cards: set[str] = set()
    for item in openings:
        if not isinstance(item, Mapping):
            raise ProofError("each opening must be a JSON object")
        position, card = _field(item, "position"), _field(item, "card")
        if not opening_holds(root, hand_id, position, card, _field(item, "salt"), _field(item, "path"), TAG_V2):
            problems.append(f"position {position} ({card}) does not match the root")
        dealt = _whole(_field(item, "dealt"), "an opening's dealt index", DECK_SIZE)
        if order[dealt] != position:
            problems.append(f"position {position} ({card}) was not dealt at {dealt} by the cuts")
        made, seat = deal_layout(seats, button, HOLE_CARDS[game], dealt)
        if (_field(item, "opened_as"), item.get("seat")) != (made, seat):
            shown = f"a hole card of seat {item.get('seat')}" if item.get("opened_as") == "hole" else "the board"
            was = f"a hole card of seat {seat}" if made == "hole" else "the board"
            problems.append(f"position {position} ({card}) is shown as {shown}, but the deal made it {was}")
        problems += _opened_once(position, card, positions, cards)
    return problems


def _opened_once(position: int, card: str, positions: set[int], cards: set[str]) -> list[str]:
    """Each position and each card may be opened once; records this opening in ``positions`` and ``cards``."""
    problems = []
    if position in positions:
        problems.append(f"position {position} is opened twice")
    if card in cards:
        problems.append(f"card {card} is opened at two positions")
    positions.add(position)
    cards.add(card)
    return problems


def _cut_values(cuts: Any) -> list[str]:
    """The cuts' values, in order, from the export's list of {cut, by, at}."""
    if not isinstance(cuts, list) or not all(isinstance(c, Mapping) for c in cuts):
        raise ProofError("cuts must be a list of objects")
    return [_field(c, "cut") for c in cuts]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m engine.verify hand.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            data = json.load(f)
        problems = check_export(data)
    except (OSError, ValueError) as exc:  # ProofError and json's errors are ValueErrors
        print(f"cannot check {args[0]}: {exc}", file=sys.stderr)
        return 2
    if data["scheme"] == SCHEME_DECK and data.get("deck") is None:
        what = "nothing: the whole deck of this older hand is not opened to you"
    elif data["scheme"] == SCHEME_DECK:
        what = "the whole deck (older scheme: one commitment of the deck order)"
    else:
        what = f"{len(data['openings'])} opened card(s) against root {data['root']}"
    if data["scheme"] == SCHEME_CUT:
        cuts = len(data["cuts"])
        what += f", dealt through {cuts} cut(s)" if cuts else ", dealt WITHOUT a cut (the site alone chose the deal)"
        what += "; unsigned cuts of the older scheme, in the order the site received them"
    if data["scheme"] == SCHEME_CUT_V2:
        cuts = len(data["cuts"])
        devices = len({c["device"] for c in data["cuts"]})
        what += (
            f", dealt through {cuts} signed cut(s) from {devices} device(s) ({', '.join(sorted({str(c.get('member')) for c in data['cuts']}))}); "
            "check that each device is one its member knows"
            if cuts
            else ", dealt WITHOUT a cut: no member's cut reached this deal, the club's server chose its order"
        )
    if problems:
        for p in problems:
            print(f"FAIL: {p}")
        return 1
    print(f"OK: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
