"""Events: what happened, in order; every chip movement is one event.

Each kind of event is its own frozen record. Chip-moving events carry ``seat`` and ``amount`` so
the ledger posts each 1:1: ``Ante``, ``Blind``, ``Bet`` and ``MatchPayment`` move seat -> table
pot; ``Award`` moves table pot -> seat; ``Carry`` records an amount that stays in the table pot
for the next hand (no movement). Events never hold a card its seat's opponents may not see: a
``Deal`` holds no cards, a ``Turn`` only the cards turned up, a ``Showdown`` only hands shown.

The JSON form of an event (stored in the hand's log and state) is ``{"kind": ..., field: ...}``
with the fields it does not set left out; ``event_to_json`` and ``event_from_json`` are the one
printer and reader (plain.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import EngineError
from .outcome import Decision, ShownHand
from .plain import from_plain, to_plain


@dataclass(frozen=True, slots=True)
class Deal:
    """The hand is dealt (piranha.txt 2.2, piles.txt 2.1-2.2): how many cards, never which.

    Piranha sets ``board_cards``; Piles the sizes of its piles ``square1``, ``square2``, ``row``.
    """

    kind: ClassVar[str] = "deal"
    game: str
    hand_number: int
    button: int
    seats: tuple[int, ...]
    hole_cards: int
    board_cards: int | None = None
    square1: int | None = None
    square2: int | None = None
    row: int | None = None


@dataclass(frozen=True, slots=True)
class Ante:
    kind: ClassVar[str] = "ante"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Blind:
    """A Piles blind (piles.txt 2.1): ``blind`` is "small" or "big"."""

    kind: ClassVar[str] = "blind"
    seat: int
    amount: int
    blind: str


@dataclass(frozen=True, slots=True)
class Turn:
    """Cards turned face up: ``where`` is "board" (Piranha) or a Piles pile ("square1", "square2",
    "row"), ``positions`` their places in it; ``stage`` the Piles stage (piles.txt 3.1)."""

    kind: ClassVar[str] = "turn"
    cards: tuple[str, ...]
    where: str
    positions: tuple[int, ...]
    stage: int | None = None


@dataclass(frozen=True, slots=True)
class Check:
    kind: ClassVar[str] = "check"
    seat: int
    stage: int | None = None


@dataclass(frozen=True, slots=True)
class Fold:
    kind: ClassVar[str] = "fold"
    seat: int
    stage: int | None = None


@dataclass(frozen=True, slots=True)
class Bet:
    """Chips put in by a bet, call or raise (``action``); ``to``: the round's bet after it."""

    kind: ClassVar[str] = "bet"
    seat: int
    amount: int
    action: str
    to: int
    stage: int | None = None


@dataclass(frozen=True, slots=True)
class Decided:
    """A seat made its sealed decision; what it chose stays hidden until all are opened."""

    kind: ClassVar[str] = "decided"
    seat: int


@dataclass(frozen=True, slots=True)
class DropOpen:
    """The Piranha drop opened: every active seat's "in" or "out" (piranha.txt 3.1)."""

    kind: ClassVar[str] = "drop_open"
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class DeclareOpen:
    """The Piles declarations opened: every active seat's high, low, pig or fold (piles.txt 4.1)."""

    kind: ClassVar[str] = "declare_open"
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class Showdown:
    kind: ClassVar[str] = "showdown"
    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True)
class Award:
    """Chips from the table pot to a seat. ``share``: "pot", "high", "low", "split" (nobody in, the
    pot split) or "over_limit" (what is over the pot limit); ``hand``: the winning hand's name."""

    kind: ClassVar[str] = "award"
    seat: int
    amount: int
    share: str
    hand: str | None = None


@dataclass(frozen=True, slots=True)
class MatchPayment:
    """A Piranha loser matches the pot into the next hand's pot (piranha.txt 4.3)."""

    kind: ClassVar[str] = "match_payment"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Carry:
    """The pot (up to the pot limit) stays in the table pot for the next hand."""

    kind: ClassVar[str] = "carry"
    amount: int


Event = (
    Deal
    | Ante
    | Blind
    | Turn
    | Check
    | Fold
    | Bet
    | Decided
    | DropOpen
    | DeclareOpen
    | Showdown
    | Award
    | MatchPayment
    | Carry
)

#: the kinds of the events that move chips from a seat into the table pot (the ledger posts these,
#: and "award", by kind)
PAY_KINDS = frozenset({Ante.kind, Blind.kind, Bet.kind, MatchPayment.kind})


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON form of ``event``: its kind, then the fields it sets."""
    data: dict[str, Any] = to_plain(event)
    return data


def event_from_json(data: Mapping[str, Any] | Any) -> Event:
    """Read an event from its JSON form; raises EngineError when it is not one."""
    if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
        raise EngineError("An event needs a kind")
    event: Event = from_plain(Event, data)
    return event
