"""Helpers shared by both games: seat order, splitting pots."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import EngineError, IllegalAction
from .rules import POT_LIMIT


def check_seats(seats: Sequence[int], button: int, lo: int, hi: int, game: str) -> tuple[int, ...]:
    out = tuple(seats)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in out) or len(set(out)) != len(out):
        raise EngineError("Seats must be different seat numbers")
    if not lo <= len(out) <= hi:
        raise EngineError(f"{game} is for {lo} to {hi} players")  # piranha.txt 1.1, piles.txt 1.1
    if not isinstance(button, int) or isinstance(button, bool):
        raise EngineError("The button must be a seat number")
    return out


def first_after_button(seats: Sequence[int], button: int) -> int:
    """Index of the first seat clockwise after the button.

    ``seats`` is in clockwise order. If the button seat is dealt in, it is the
    next index; if not, seat numbers are taken to rise clockwise and it is the
    first seat numbered above the button (wrapping).
    """
    if button in seats:
        return (list(seats).index(button) + 1) % len(seats)
    above = [i for i, s in enumerate(seats) if s > button]
    if above:
        return min(above, key=lambda i: seats[i])
    return min(range(len(seats)), key=lambda i: seats[i])


def clockwise_from_button(seats: Sequence[int], button: int) -> list[int]:
    """Seat indexes in clockwise order starting with the first after the button."""
    start = first_after_button(seats, button)
    return [(start + k) % len(seats) for k in range(len(seats))]


def split(amount: int, winners: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """Split ``amount`` equally among ``winners``; every odd cent to the first of them in ``order``.

    docs/design.md: ties split a pot equally; odd cents go to the first tied winner
    clockwise from the dealer. Taken literally: the whole remainder goes to that one
    winner (77 three ways is 27, 25, 25), not one cent each to the first few.
    ``order`` is clockwise from the first seat after the button.
    """
    ranked = [i for i in order if i in winners]
    share, odd = divmod(amount, len(ranked))
    return {i: share + (odd if k == 0 else 0) for k, i in enumerate(ranked)}


def carry_within_limit(pot: int, sharers: Sequence[int], order: Sequence[int]) -> tuple[int, dict[int, int]]:
    """The pot limit (house ruling, docs/hands-and-data.md "Pot limit"): a pot carries at most POT_LIMIT into the
    next hand; what is over it is split among ``sharers`` as ``split`` does. Returns the carried
    amount and the shares (empty when nothing is over the limit)."""
    if pot <= POT_LIMIT or not sharers:
        return pot, {}
    return POT_LIMIT, split(pot - POT_LIMIT, sharers, order)


def match_within_limit(pot: int, cap: int | None, losers: int) -> int:
    """What each Piranha loser pays: the pot, up to the agreed cap (piranha.txt 4.3), and never so much
    that the next pot passes the pot limit: then the losers share the limit equally (odd cents
    unpaid), so every hand stays finishable whatever the table size (docs/hands-and-data.md "Pot limit")."""
    each = pot if cap is None else min(pot, cap)
    return min(each, POT_LIMIT // losers) if losers else 0


def seat_index(seats: Sequence[int], seat: int) -> int:
    try:
        return list(seats).index(seat)
    except ValueError:
        raise IllegalAction(f"Seat {seat} is not dealt in this hand") from None
