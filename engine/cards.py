"""Cards, the deck, the CSPRNG shuffle and the deck commitment.

docs/design.md "Engine contract": the deck is shuffled with the operating system's
CSPRNG; at the deal the hand publishes a SHA-256 commitment of the deck order
and a salt, and both are revealed after the hand so anyone can check the deal.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import CardError

SUITS = ("c", "d", "h", "s")
RANKS = tuple(range(2, 15))

_RANK_CHAR = {
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "T",
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}
_RANK_PRETTY = {**_RANK_CHAR, 10: "10"}
_RANK_WORD = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
_SUIT_WORD = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_SUIT_PRETTY = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
_SUIT_FROM_TEXT = {
    "c": "c",
    "d": "d",
    "h": "h",
    "s": "s",
    "\u2663": "c",
    "\u2667": "c",
    "\u2666": "d",
    "\u2662": "d",
    "\u2665": "h",
    "\u2661": "h",
    "\u2660": "s",
    "\u2664": "s",
}
_RANK_FROM_TEXT = {v.lower(): k for k, v in _RANK_CHAR.items()} | {"10": 10}
_TOKEN = re.compile(r"^(10|[2-9tjqka])(.)$")


def rank_word(rank: int, plural: bool = False) -> str:
    """'seven' / 'sevens', 'six' / 'sixes'; rank 1 is the ace played low."""
    word = _RANK_WORD[14 if rank == 1 else rank]
    if not plural:
        return word
    return word + ("es" if word.endswith("x") else "s")


def rank_char(rank: int) -> str:
    """'A', 'K', ... 'T', '9' ... '2'; rank 1 (ace played low) is 'A'."""
    return _RANK_CHAR[14 if rank == 1 else rank]


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card: rank 2..14 (ace high), suit 'c', 'd', 'h' or 's'."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in _RANK_CHAR or self.suit not in _SUIT_WORD:
            raise CardError(f"There is no such card: rank {self.rank!r}, suit {self.suit!r}")

    def __str__(self) -> str:
        return _RANK_CHAR[self.rank] + self.suit

    @property
    def code(self) -> str:
        """The two-character code used in decks and states, e.g. '7c', 'Td'."""
        return _RANK_CHAR[self.rank] + self.suit

    @property
    def pretty(self) -> str:
        """'7♣', '10♥'."""
        return _RANK_PRETTY[self.rank] + _SUIT_PRETTY[self.suit]

    @property
    def label(self) -> str:
        """'seven of clubs'."""
        return f"{_RANK_WORD[self.rank]} of {_SUIT_WORD[self.suit]}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card: '7c', '7♣', 'Td', '10d', case-insensitive; raises CardError."""
        return _parse_one(text)


# The 52 cards, interned: parsing a code returns one of these objects.
_ALL: dict[str, Card] = {}
for _s in SUITS:
    for _r in RANKS:
        _ALL[_RANK_CHAR[_r] + _s] = Card(_r, _s)
FULL_DECK: tuple[str, ...] = tuple(_ALL)


def _parse_one(token: str) -> Card:
    card = _ALL.get(token)
    if card is not None:
        return card
    match = _TOKEN.match(token.strip().lower())
    if match is None or match.group(2) not in _SUIT_FROM_TEXT:
        raise CardError(f"'{token}' is not a card (write it like 7c, 7\u2663, Td or 10d)")
    return _ALL[_RANK_CHAR[_RANK_FROM_TEXT[match.group(1)]] + _SUIT_FROM_TEXT[match.group(2)]]


def card(text: str) -> Card:
    """One card from its code; raises CardError."""
    return _parse_one(text)


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas: '7c 7♦ 10h Ks', 'Td'.

    Raises CardError for an unreadable card or a card given twice.
    """
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    cards = [_parse_one(t) for t in tokens]
    if len(set(cards)) != len(cards):
        raise CardError("The same card is given twice")
    return cards


def to_cards(items: Iterable[Card | str]) -> list[Card]:
    """Cards from Card objects or codes (a convenience for callers holding codes)."""
    return [c if isinstance(c, Card) else _parse_one(c) for c in items]


def format_cards(cards: Iterable[Card | str], pretty: bool = False) -> str:
    """'7c 7d Kh' (or '7♣ 7♦ K♥' with pretty=True)."""
    out = to_cards(cards)
    return " ".join(c.pretty if pretty else c.code for c in out)


def shuffled_deck() -> tuple[str, ...]:
    """The 52 card codes in an order drawn from the OS CSPRNG (secrets.SystemRandom).

    docs/design.md: the service calls this once per hand and stores the order; the
    engine itself never shuffles.
    """
    deck = list(FULL_DECK)
    secrets.SystemRandom().shuffle(deck)
    return tuple(deck)


def new_salt() -> str:
    """A fresh random salt for the deck commitment: 32 lowercase hex digits."""
    return secrets.token_hex(16)


def commitment_text(deck: Sequence[str], salt: str) -> str:
    """The canonical string that is hashed: the codes joined by single spaces, ':', the salt.

    Example: '7c Td As ... 2h:9f86d0...'. Codes are exactly as stored in the
    deck (rank char 2-9 T J Q K A, suit c d h s).
    """
    return " ".join(deck) + ":" + salt


def deck_commitment(deck: Sequence[str], salt: str) -> str:
    """SHA-256 commitment of a deck order, as 64 lowercase hex digits.

    The exact definition (a web page recomputes it in JavaScript):
    ``sha256(utf8(" ".join(deck) + ":" + salt)).hexdigest()``, where ``deck``
    is the list of card codes in deal order (e.g. '7c', 'Td', 'As') and
    ``salt`` is the string published with it.
    """
    return hashlib.sha256(commitment_text(deck, salt).encode("utf-8")).hexdigest()


def verify_commitment(deck: Sequence[str], salt: str, commitment: str) -> bool:
    """True when ``commitment`` is ``deck_commitment(deck, salt)`` (case-insensitive hex)."""
    return hmac.compare_digest(deck_commitment(deck, salt), commitment.strip().lower())


def check_deck(deck: Sequence[str]) -> tuple[str, ...]:
    """The deck as a tuple of canonical codes; raises CardError unless it is 52 different cards."""
    cards = tuple(_parse_one(c).code for c in deck)
    if len(cards) != 52 or len(set(cards)) != 52:
        raise CardError("A deck must hold each of the 52 cards exactly once")
    return cards
