"""The deal's commitment, one salted leaf per deck position (docs/design.md "Engine contract").

At the deal every deck position ``i`` gets its own random salt ``r_i`` (drawn by the caller from
the operating system's CSPRNG and passed in: this module draws nothing), a leaf
``H(hand_id | i | card_i | r_i)``, and the hand publishes the Merkle root of the 52 leaves. Any
one card can then be opened (card, salt, path) without showing any other: the board and the
hands shown at a showdown to all, a player's own hole cards to that player, and the rest only
through an organiser's ruling. The byte encoding is documented in ``verify.py``, the checker that
runs with the standard library alone, away from this project.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import FULL_DECK
from .common import clockwise_from_button
from .errors import EngineError

# The encoding of scheme "merkle-sha256-v1", documented byte for byte in verify.py. That module is
# deliberately a second, separate implementation (standard library only, runnable on its own), so
# whoever checks a proof need not trust this code; tests hold the two (and the page's script) together.
SCHEME_MERKLE = "merkle-sha256-v1"
SCHEME_CUT = "merkle-sha256-cut-v1"  # the same leaves, committed ahead; dealt through the players' cuts
CUT_TAG = b"home-club/cut-v1"
# docs/fairness.md: leaves of their own tag (a v2 root never opens as an older scheme), cuts signed by the
# members' device keys, bound to the table and the deal, and ordered by value.
SCHEME_CUT_V2 = "merkle-sha256-cut-v2"
CUT_TAG_V2 = b"home-club/cut-v2"
TAG_V2 = b"home-club/deal-v2"
SCHEMES_CUT = frozenset({SCHEME_CUT, SCHEME_CUT_V2})
DEVICE_TAG = "home-club/device-v1"
RSA_BITS = 2048
RSA_E = 65537
# The DER prefix of a SHA-256 DigestInfo (RFC 8017 9.2, note 1).
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
_SIGNATURE = re.compile(r"^[0-9a-f]{512}$")
_MODULUS = re.compile(r"^[89a-f][0-9a-f]{511}$")  # exactly 2048 bits, no leading zero
CUT_BYTES = 16  # 128 bits a cut
_CUT = re.compile(r"^[0-9a-f]{32}$")
SCHEME_DECK = "deck-sha256"  # older hands: one SHA-256 of the whole deck order and one salt
TAG = b"home-club/deal-v1"
DECK_SIZE = 52
DEPTH = 6  # 64 leaves: the 52 positions, then empty slots
EMPTY_LEAF = hashlib.sha256(b"\x02" + TAG).digest()
_CODES = frozenset(FULL_DECK)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
SALT_BYTES = 16  # 128 bits a position
_SALT = re.compile(r"^[0-9a-f]{32}$")
SALT_OF_CLOSED = "0" * 32  # stands for the salt of a closed position in the salts' check only


def _empty_leaf(tag: bytes) -> bytes:
    """SHA-256(0x02 | tag): the leaf of each slot past the 52 positions."""
    return hashlib.sha256(b"\x02" + tag).digest()


def leaf_tag(scheme: str) -> bytes:
    """The leaves' tag of ``scheme``: version 2 has its own, every older Merkle scheme shares version 1's."""
    return TAG_V2 if scheme == SCHEME_CUT_V2 else TAG


def leaf_hash(hand_id: int, position: int, card: str, salt: str, tag: bytes = TAG) -> bytes:
    """SHA-256(0x00 | tag | hand_id: 8 bytes big-endian | position: 1 byte | card: 2 ASCII | salt: 16 bytes)."""
    if not 0 <= hand_id < 2**64 or not 0 <= position < DECK_SIZE or card not in _CODES or not _SALT.match(salt):
        raise EngineError("Cannot commit to this deal: a hand id, position, card or salt is out of its form")
    return hashlib.sha256(
        b"\x00" + tag + hand_id.to_bytes(8, "big") + bytes([position]) + card.encode("ascii") + bytes.fromhex(salt)
    ).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 | left | right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


__all__ = [
    "CUT_BYTES",
    "SCHEMES_CUT",
    "SCHEME_CUT_V2",
    "cut_message",
    "cut_of_signature",
    "deal_layout",
    "device_fingerprint",
    "is_device_modulus",
    "leaf_tag",
    "rsa_signature_holds",
    "short_fingerprint",
    "DECK_SIZE",
    "SALT_BYTES",
    "SCHEME_CUT",
    "SCHEME_DECK",
    "SCHEME_MERKLE",
    "cut_order",
    "deck_dealt",
    "is_cut_value",
    "Opening",
    "check_salts",
    "leaf_hex",
    "merkle_root",
    "openings",
    "positions_shown",
    "verify_opening",
]


@dataclass(frozen=True, slots=True)
class Opening:
    """What proves one deck position: its card, its salt and the 6 sibling hashes up to the root."""

    position: int
    card: str
    salt: str
    path: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "card": self.card, "salt": self.salt, "path": list(self.path)}


def check_salts(salts: Sequence[str]) -> tuple[str, ...]:
    """The 52 salts as a tuple; raises EngineError unless each is 32 lowercase hex digits (128 bits)."""
    out = tuple(salts)
    if len(out) != DECK_SIZE or not all(isinstance(s, str) and _SALT.match(s) for s in out):
        raise EngineError("A deal needs 52 salts of 32 lowercase hex digits each")
    return out


def _levels(
    hand_id: int,
    deck: Sequence[str],
    salts: Sequence[str],
    closed: Mapping[int, str] | None = None,
    scheme: str = SCHEME_MERKLE,
) -> list[list[bytes]]:
    """Every level of the tree, leaves first (64 of them: 52 positions, then empty slots).

    ``closed``: position -> its leaf hash (64 hex digits), for positions whose card and salt are not
    held (a hand read from a club export, which holds only the leaves of cards never opened to all)."""
    closed = closed or {}
    if len(deck) != DECK_SIZE or len(salts) != DECK_SIZE:
        raise EngineError("A deck must hold 52 cards and 52 salts")
    if not all(0 <= i < DECK_SIZE and isinstance(h, str) and _HEX64.match(h) for i, h in closed.items()):
        raise EngineError("A closed position's leaf is 64 lowercase hex digits")
    check_salts([SALT_OF_CLOSED if i in closed else s for i, s in enumerate(salts)])
    tag = leaf_tag(scheme)
    level = [
        bytes.fromhex(closed[i]) if i in closed else leaf_hash(hand_id, i, deck[i], salts[i], tag)
        for i in range(DECK_SIZE)
    ]
    level += [_empty_leaf(tag)] * (2**DEPTH - DECK_SIZE)
    levels = [level]
    while len(level) > 1:
        level = [node_hash(level[k], level[k + 1]) for k in range(0, len(level), 2)]
        levels.append(level)
    return levels


def merkle_root(
    hand_id: int,
    deck: Sequence[str],
    salts: Sequence[str],
    closed: Mapping[int, str] | None = None,
    scheme: str = SCHEME_MERKLE,
) -> str:
    """The root published at the deal, as 64 lowercase hex digits; raises EngineError on bad input."""
    return _levels(hand_id, deck, salts, closed, scheme)[-1][0].hex()


def leaf_hex(hand_id: int, position: int, card: str, salt: str, scheme: str = SCHEME_MERKLE) -> str:
    """The leaf of one position as 64 lowercase hex digits: what a club export keeps of a closed card."""
    return leaf_hash(hand_id, position, card, salt, leaf_tag(scheme)).hex()


def openings(
    hand_id: int,
    deck: Sequence[str],
    salts: Sequence[str],
    positions: Iterable[int],
    closed: Mapping[int, str] | None = None,
    scheme: str = SCHEME_MERKLE,
) -> list[Opening]:
    """The openings of ``positions`` (in increasing order, each once); raises EngineError on bad input,
    and for a position of ``closed`` (only its leaf is held: it cannot be opened)."""
    levels = _levels(hand_id, deck, salts, closed, scheme)
    out = []
    for i in sorted(set(positions)):
        if not 0 <= i < DECK_SIZE:
            raise EngineError(f"There is no deck position {i}")
        if closed and i in closed:
            raise EngineError(f"Deck position {i} is held as its leaf only: it cannot be opened")
        path = tuple(levels[level][(i >> level) ^ 1].hex() for level in range(DEPTH))
        out.append(Opening(position=i, card=deck[i], salt=salts[i], path=path))
    return out


def verify_opening(root: str, hand_id: int, opening: Opening, scheme: str = SCHEME_MERKLE) -> bool:
    """True when ``opening`` proves its card at its position under ``root``; False for a false or
    malformed opening."""
    path = opening.path
    if (
        len(path) != DEPTH
        or not all(isinstance(h, str) and _HEX64.match(h) for h in path)
        or not isinstance(root, str)
        or not _HEX64.match(root)
    ):
        return False
    try:
        node = leaf_hash(hand_id, opening.position, opening.card, opening.salt, leaf_tag(scheme))
    except EngineError:
        return False
    for level, sibling in enumerate(bytes.fromhex(h) for h in path):
        node = node_hash(sibling, node) if (opening.position >> level) & 1 else node_hash(node, sibling)
    return hmac.compare_digest(node, bytes.fromhex(root))


def positions_shown(deck: Sequence[str], shown: Iterable[str | None]) -> tuple[int, ...]:
    """The deck positions of the cards ``shown`` (None: a card face down, skipped).

    Openings follow the views: a card is opened to someone exactly when their view of the finished
    hand shows it (``engine.opened_positions`` passes the view's board and seats' cards), so the
    engine's rule of who sees what (``view``) is also the rule of who may check what.
    """
    where = {c: i for i, c in enumerate(deck)}
    seen = {c for c in shown if c is not None}
    try:
        return tuple(sorted(where[c] for c in seen))
    except KeyError as exc:
        raise EngineError(f"The view shows a card that is not in the deck: {exc}") from exc


def is_cut_value(value: object) -> bool:
    """Whether ``value`` has a cut's form: 32 lowercase hex digits (128 bits)."""
    return isinstance(value, str) and _CUT.match(value) is not None


def _cut_stream(root: str, cuts: Sequence[str], scheme: str, table_id: int, deal: int) -> Iterable[int]:
    """The public shuffle's 32-bit words: SHA-256 in counter mode over the seed of root and cuts (version 2
    also binds the table and the deal)."""
    if (
        not isinstance(root, str)
        or not _HEX64.match(root)
        or not all(is_cut_value(c) for c in cuts)
        or len(cuts) >= 2**16
        or not 0 <= table_id < 2**64
        or not 0 <= deal < 2**32
    ):
        raise EngineError("Cannot cut this deal: the root or a cut is out of its form")
    tag = CUT_TAG_V2 if scheme == SCHEME_CUT_V2 else CUT_TAG
    bound = struct.pack(">QI", table_id, deal) if scheme == SCHEME_CUT_V2 else b""
    seed = hashlib.sha256(
        bytes([3])
        + tag
        + bytes.fromhex(root)
        + bound
        + struct.pack(">H", len(cuts))
        + b"".join(bytes.fromhex(c) for c in cuts)
    ).digest()
    for counter in itertools.count():
        yield from struct.unpack(">8I", hashlib.sha256(bytes([4]) + tag + seed + struct.pack(">I", counter)).digest())


def cut_order(
    root: str, cuts: Sequence[str], *, scheme: str = SCHEME_CUT, table_id: int = 0, deal: int = 0
) -> tuple[int, ...]:
    """The committed position of each card in the order it is dealt: a Fisher-Yates shuffle of the 52
    positions driven by ``_cut_stream``, each draw unbiased by rejection (verify.py has the bytes).

    Scheme "merkle-sha256-cut-v2" takes the cuts sorted by value (never by arrival, which is the server's
    word) and binds ``table_id`` and ``deal``; version 1 took them as received."""
    ordered = sorted(cuts) if scheme == SCHEME_CUT_V2 else list(cuts)
    words = iter(_cut_stream(root, ordered, scheme, table_id, deal))
    order = list(range(DECK_SIZE))
    for top in reversed(range(1, DECK_SIZE)):
        span = top + 1
        fair = (1 << 32) - (1 << 32) % span  # words at or above this would favour the small remainders
        pick = next(w for w in words if w < fair) % span
        order[top], order[pick] = order[pick], order[top]
    return tuple(order)


def deck_dealt(
    committed: Sequence[str],
    root: str,
    cuts: Sequence[str],
    *,
    scheme: str = SCHEME_CUT,
    table_id: int = 0,
    deal: int = 0,
) -> tuple[str, ...]:
    """The order in which the ``committed`` deck (root ``root``) is dealt after ``cuts``."""
    return tuple(committed[p] for p in cut_order(root, cuts, scheme=scheme, table_id=table_id, deal=deal))


# ---- the members' device keys and their signed cuts (docs/fairness.md "Protocol" 1-4) ----------------


def is_device_modulus(n_hex: object) -> bool:
    """Whether ``n_hex`` is an RSA modulus of exactly 2048 bits, written as lowercase hex without leading zeros."""
    return isinstance(n_hex, str) and _MODULUS.match(n_hex) is not None and int(n_hex, 16) % 2 == 1


def device_fingerprint(n_hex: str, e: int) -> str:
    """SHA-256 of "home-club/device-v1\n" + n + "\n" + e, as 64 lowercase hex digits."""
    return hashlib.sha256(f"{DEVICE_TAG}\n{n_hex}\n{e}".encode()).hexdigest()


def short_fingerprint(fingerprint: str) -> str:
    """The first 16 hex digits in four groups of four, as shown to people ("a1b2 c3d4 e5f6 0718")."""
    return " ".join(fingerprint[k : k + 4] for k in range(0, 16, 4))


def cut_message(*, scheme: str, table_id: int, deal: int, root: str) -> bytes:
    """The bytes a device signs to cut one deal: its scheme, table, deal number and root, one per line."""
    return "\n".join(["home-club/cut-v2", scheme, str(table_id), str(deal), root]).encode()


def rsa_signature_holds(n_hex: str, e: int, message: bytes, signature_hex: str) -> bool:
    """RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 8.2.2): ``signature_hex`` (512 lowercase hex digits) signs
    ``message`` under the public key (n, e). Modular exponentiation and the fixed encoding, nothing else."""
    if not is_device_modulus(n_hex) or e != RSA_E:
        return False
    if not isinstance(signature_hex, str) or not _SIGNATURE.match(signature_hex):
        return False
    n, s = int(n_hex, 16), int(signature_hex, 16)
    if s >= n:
        return False
    size = RSA_BITS // 8
    digest = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    expected = b"\x00\x01" + b"\xff" * (size - 3 - len(digest)) + b"\x00" + digest
    return hmac.compare_digest(pow(s, e, n).to_bytes(size, "big"), expected)


def cut_of_signature(signature_hex: str) -> str:
    """A signed cut's value: the first 16 bytes of SHA-256 of the signature's bytes, as 32 lowercase hex."""
    return hashlib.sha256(bytes.fromhex(signature_hex)).hexdigest()[: 2 * CUT_BYTES]


def deal_layout(*, seats: Sequence[int], button: int, hole_cards: int, dealt: int) -> tuple[str, int | None]:
    """What the card dealt ``dealt``-th (0 first) becomes: ("hole", seat number) or ("board", None).

    piranha.txt 2.2, piles.txt 2.1: hole cards one at a time clockwise from the first seat after the
    button, ``hole_cards`` rounds; every card after them goes to the board."""
    ring = sorted(seats)
    order = [ring[k] for k in clockwise_from_button(ring, button)]
    if 0 <= dealt < hole_cards * len(order):
        return "hole", order[dealt % len(order)]
    return "board", None
