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
from .errors import EngineError

# The encoding of scheme "merkle-sha256-v1", documented byte for byte in verify.py. That module is
# deliberately a second, separate implementation (standard library only, runnable on its own), so
# whoever checks a proof need not trust this code; tests hold the two (and the page's script) together.
SCHEME_MERKLE = "merkle-sha256-v1"
SCHEME_CUT = "merkle-sha256-cut-v1"  # the same leaves, committed ahead; dealt through the players' cuts
CUT_TAG = b"home-club/cut-v1"
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


def leaf_hash(hand_id: int, position: int, card: str, salt: str) -> bytes:
    """SHA-256(0x00 | tag | hand_id: 8 bytes big-endian | position: 1 byte | card: 2 ASCII | salt: 16 bytes)."""
    if not 0 <= hand_id < 2**64 or not 0 <= position < DECK_SIZE or card not in _CODES or not _SALT.match(salt):
        raise EngineError("Cannot commit to this deal: a hand id, position, card or salt is out of its form")
    return hashlib.sha256(
        b"\x00" + TAG + hand_id.to_bytes(8, "big") + bytes([position]) + card.encode("ascii") + bytes.fromhex(salt)
    ).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 | left | right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


__all__ = [
    "CUT_BYTES",
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
    hand_id: int, deck: Sequence[str], salts: Sequence[str], closed: Mapping[int, str] | None = None
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
    level = [
        bytes.fromhex(closed[i]) if i in closed else leaf_hash(hand_id, i, deck[i], salts[i]) for i in range(DECK_SIZE)
    ]
    level += [EMPTY_LEAF] * (2**DEPTH - DECK_SIZE)
    levels = [level]
    while len(level) > 1:
        level = [node_hash(level[k], level[k + 1]) for k in range(0, len(level), 2)]
        levels.append(level)
    return levels


def merkle_root(
    hand_id: int, deck: Sequence[str], salts: Sequence[str], closed: Mapping[int, str] | None = None
) -> str:
    """The root published at the deal, as 64 lowercase hex digits; raises EngineError on bad input."""
    return _levels(hand_id, deck, salts, closed)[-1][0].hex()


def leaf_hex(hand_id: int, position: int, card: str, salt: str) -> str:
    """The leaf of one position as 64 lowercase hex digits: what a club export keeps of a closed card."""
    return leaf_hash(hand_id, position, card, salt).hex()


def openings(
    hand_id: int,
    deck: Sequence[str],
    salts: Sequence[str],
    positions: Iterable[int],
    closed: Mapping[int, str] | None = None,
) -> list[Opening]:
    """The openings of ``positions`` (in increasing order, each once); raises EngineError on bad input,
    and for a position of ``closed`` (only its leaf is held: it cannot be opened)."""
    levels = _levels(hand_id, deck, salts, closed)
    out = []
    for i in sorted(set(positions)):
        if not 0 <= i < DECK_SIZE:
            raise EngineError(f"There is no deck position {i}")
        if closed and i in closed:
            raise EngineError(f"Deck position {i} is held as its leaf only: it cannot be opened")
        path = tuple(levels[level][(i >> level) ^ 1].hex() for level in range(DEPTH))
        out.append(Opening(position=i, card=deck[i], salt=salts[i], path=path))
    return out


def verify_opening(root: str, hand_id: int, opening: Opening) -> bool:
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
        node = leaf_hash(hand_id, opening.position, opening.card, opening.salt)
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


def _cut_stream(root: str, cuts: Sequence[str]) -> Iterable[int]:
    """The public shuffle's 32-bit words: SHA-256 in counter mode over the seed of root and cuts."""
    if (
        not isinstance(root, str)
        or not _HEX64.match(root)
        or not all(is_cut_value(c) for c in cuts)
        or len(cuts) >= 2**16
    ):
        raise EngineError("Cannot cut this deal: the root or a cut is out of its form")
    seed = hashlib.sha256(
        bytes([3])
        + CUT_TAG
        + bytes.fromhex(root)
        + struct.pack(">H", len(cuts))
        + b"".join(bytes.fromhex(c) for c in cuts)
    ).digest()
    for counter in itertools.count():
        yield from struct.unpack(
            ">8I", hashlib.sha256(bytes([4]) + CUT_TAG + seed + struct.pack(">I", counter)).digest()
        )


def cut_order(root: str, cuts: Sequence[str]) -> tuple[int, ...]:
    """The committed position of each card in the order it is dealt: a Fisher-Yates shuffle of the 52
    positions driven by ``_cut_stream``, each draw unbiased by rejection (verify.py has the bytes)."""
    words = iter(_cut_stream(root, cuts))
    order = list(range(DECK_SIZE))
    for top in reversed(range(1, DECK_SIZE)):
        span = top + 1
        fair = (1 << 32) - (1 << 32) % span  # words at or above this would favour the small remainders
        pick = next(w for w in words if w < fair) % span
        order[top], order[pick] = order[pick], order[top]
    return tuple(order)


def deck_dealt(committed: Sequence[str], root: str, cuts: Sequence[str]) -> tuple[str, ...]:
    """The order in which the ``committed`` deck (root ``root``) is dealt after ``cuts``."""
    return tuple(committed[p] for p in cut_order(root, cuts))
