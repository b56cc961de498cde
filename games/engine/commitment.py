"""The deal's commitment, one salted leaf per deck position (DESIGN.md "Engine contract").

At the deal every deck position ``i`` gets its own random salt ``r_i`` (drawn by the caller from
the operating system's CSPRNG and passed in: this module draws nothing), a leaf
``H(hand_id | i | card_i | r_i)``, and the hand publishes the Merkle root of the 52 leaves. Any
one card can then be opened (card, salt, path) without showing any other: the board and the
hands shown at a showdown to all, a player's own hole cards to that player, and the rest only
through an organiser's ruling. The byte encoding is defined once, in ``verify.py`` (standard
library only, so the proof can be checked away from this project).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import EngineError
from .verify import (
    DECK_SIZE,
    DEPTH,
    EMPTY_LEAF,
    SCHEME_DECK,
    SCHEME_MERKLE,
    ProofError,
    leaf_hash,
    node_hash,
    opening_holds,
)

SALT_BYTES = 16
_SALT = re.compile(r"^[0-9a-f]{32}$")

__all__ = ["DECK_SIZE", "SALT_BYTES", "SCHEME_DECK", "SCHEME_MERKLE", "Opening", "check_salts", "merkle_root",
           "openings", "positions_shown", "verify_opening"]


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


def _levels(hand_id: int, deck: Sequence[str], salts: Sequence[str]) -> list[list[bytes]]:
    """Every level of the tree, leaves first (64 of them: 52 positions, then empty slots)."""
    if len(deck) != DECK_SIZE:
        raise EngineError("A deck must hold 52 cards")
    check_salts(salts)
    try:
        level = [leaf_hash(hand_id, i, deck[i], salts[i]) for i in range(DECK_SIZE)]
    except ProofError as exc:
        raise EngineError(f"Cannot commit to this deal: {exc}") from exc
    level += [EMPTY_LEAF] * (2 ** DEPTH - DECK_SIZE)
    levels = [level]
    while len(level) > 1:
        level = [node_hash(level[k], level[k + 1]) for k in range(0, len(level), 2)]
        levels.append(level)
    return levels


def merkle_root(hand_id: int, deck: Sequence[str], salts: Sequence[str]) -> str:
    """The root published at the deal, as 64 lowercase hex digits; raises EngineError on bad input."""
    return _levels(hand_id, deck, salts)[-1][0].hex()


def openings(hand_id: int, deck: Sequence[str], salts: Sequence[str], positions: Iterable[int]) -> list[Opening]:
    """The openings of ``positions`` (in increasing order, each once); raises EngineError on bad input."""
    levels = _levels(hand_id, deck, salts)
    out = []
    for i in sorted(set(positions)):
        if not 0 <= i < DECK_SIZE:
            raise EngineError(f"There is no deck position {i}")
        path = tuple(levels[level][(i >> level) ^ 1].hex() for level in range(DEPTH))
        out.append(Opening(position=i, card=deck[i], salt=salts[i], path=path))
    return out


def verify_opening(root: str, hand_id: int, opening: Opening) -> bool:
    """True when ``opening`` proves its card at its position under ``root``; False for a false or
    malformed opening."""
    try:
        return opening_holds(root, hand_id, opening.position, opening.card, opening.salt, list(opening.path))
    except ProofError:
        return False


def positions_shown(deck: Sequence[str], view: Mapping[str, Any]) -> tuple[int, ...]:
    """The deck positions of every card a view of the hand shows (board turned, shown or own hands).

    Openings follow the views: a card is opened to someone exactly when their view of the finished
    hand shows it, so the engine's rule of who sees what (``view``) is also the rule of who may
    check what.
    """
    where = {c: i for i, c in enumerate(deck)}
    seen: set[str] = set()
    board = view.get("board")
    piles = board.values() if isinstance(board, Mapping) else [board or []]
    for pile in piles:
        seen.update(c for c in pile if c is not None)
    for seat in view.get("seats", []):
        seen.update(seat.get("cards") or [])
    try:
        return tuple(sorted(where[c] for c in seen))
    except KeyError as exc:
        raise EngineError(f"The view shows a card that is not in the deck: {exc}") from exc
