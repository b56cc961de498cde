"""How a hand ended, as typed records: the hands shown, who is paid what, what carries on.

The state of a finished hand holds its outcome (``PiranhaOutcome`` or ``PilesOutcome``), stored
with the state and printed by plain.py; ``result_to_json`` prints it as the view's ``result``
(with the game's name first). The shown-hand records are also what a ``Showdown`` event holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .plain import to_plain


@dataclass(frozen=True, slots=True)
class Payout:
    """Chips that go to (a payout) or come from (a Piranha match payment) one seat, in cents."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Decision:
    """One seat's sealed decision once opened: "in"/"out" (Piranha), high/low/pig/fold (Piles)."""

    seat: int
    decision: str


@dataclass(frozen=True, slots=True)
class HighHand:
    """A best high hand: its short and full names and the five cards that make it."""

    name: str
    full_name: str
    cards: tuple[str, ...] = ()  # outcomes stored before the five were kept read as none


@dataclass(frozen=True, slots=True)
class LowHand:
    """A best qualifying low (piles.txt 1.3, 4.4): its name and its five cards."""

    name: str
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HighLow:
    """A Piles hand's best high and best qualifying low (None: none yet / none qualifies)."""

    high: HighHand | None
    low: LowHand | None


@dataclass(frozen=True, slots=True)
class PiranhaShown:
    """A Piranha hand shown at the showdown (piranha.txt 4.2): its hole cards and best hand."""

    seat: int
    hole: tuple[str, ...]
    name: str
    full_name: str
    cards: tuple[str, ...] = ()  # the five that make ``name``, of hole and board


@dataclass(frozen=True, slots=True)
class PilesShown:
    """A Piles hand opened at the declaration (piles.txt 4.1): what it declared, its best high and low."""

    seat: int
    hole: tuple[str, ...]
    declared: str
    high: HighHand | None
    low: LowHand | None


ShownHand = PiranhaShown | PilesShown


@dataclass(frozen=True, slots=True)
class PiranhaOutcome:
    """A finished hand of Piranha.

    reason: "showdown", "uncontested" (one player in; the game ends), "nobody_in_carry" or
    "nobody_in_split" (the game ends). next_pot: what goes into the next hand's pot (the losers'
    match payments, or the carried pot). payouts: what each winner takes (and, when nobody is in,
    what is over the pot limit).
    """

    game: ClassVar[str] = "piranha"

    pot: int
    winners: tuple[int, ...]
    payouts: tuple[Payout, ...]
    match_payments: tuple[Payout, ...]
    hands: tuple[PiranhaShown, ...]
    next_pot: int
    game_over: bool
    reason: str


@dataclass(frozen=True, slots=True)
class PilesOutcome:
    """A finished hand of Piles.

    reason: "showdown", "uncontested" (all but one folded) or "carry" (nobody won a half).
    failed_pigs: seats that declared pig and did not win both halves (piles.txt 4.3).
    """

    game: ClassVar[str] = "piles"

    pot: int
    reason: str
    winners: tuple[int, ...]
    payouts: tuple[Payout, ...]
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...]
    failed_pigs: tuple[int, ...]
    hands: tuple[PilesShown, ...]
    next_pot: int
    game_over: bool


Outcome = PiranhaOutcome | PilesOutcome


def result_to_json(outcome: Outcome) -> dict[str, Any]:
    """The JSON form of a result: the game's name, then the stored outcome's fields."""
    data: dict[str, Any] = to_plain(outcome)
    return {"game": outcome.game, **data}
