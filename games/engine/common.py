"""Helpers shared by both games: seat order, splitting pots, plain-data state (de)serialisation."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import EngineError, IllegalAction
from .events import Event
from .rules import POT_LIMIT, PilesRules, PiranhaRules


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

    DESIGN.md: ties split a pot equally; odd cents go to the first tied winner
    clockwise from the dealer. Taken literally: the whole remainder goes to that one
    winner (77 three ways is 27, 25, 25), not one cent each to the first few.
    ``order`` is clockwise from the first seat after the button.
    """
    ranked = [i for i in order if i in winners]
    share, odd = divmod(amount, len(ranked))
    return {i: share + (odd if k == 0 else 0) for k, i in enumerate(ranked)}


def carry_within_limit(pot: int, sharers: Sequence[int], order: Sequence[int]) -> tuple[int, dict[int, int]]:
    """The pot limit (house ruling, README "Pot limit"): a pot carries at most POT_LIMIT into the
    next hand; what is over it is split among ``sharers`` as ``split`` does. Returns the carried
    amount and the shares (empty when nothing is over the limit)."""
    if pot <= POT_LIMIT or not sharers:
        return pot, {}
    return POT_LIMIT, split(pot - POT_LIMIT, sharers, order)


def match_within_limit(pot: int, cap: int | None, losers: int) -> int:
    """What each Piranha loser pays: the pot, up to the agreed cap (piranha.txt 4.3), and never so much
    that the next pot passes the pot limit: then the losers share the limit equally (odd cents
    unpaid), so every hand stays finishable whatever the table size (README "Pot limit")."""
    each = pot if cap is None else min(pot, cap)
    return min(each, POT_LIMIT // losers) if losers else 0


def seat_index(seats: Sequence[int], seat: int) -> int:
    try:
        return list(seats).index(seat)
    except ValueError:
        raise IllegalAction(f"Seat {seat} is not dealt in this hand") from None


# ---- plain-data (JSON) round trip ---------------------------------------------------------

def to_plain(value: Any) -> Any:
    """Dataclass state -> JSON-ready dicts and lists."""
    if isinstance(value, Event):
        return value.to_dict()
    if isinstance(value, (PiranhaRules, PilesRules)):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


@functools.cache
def _field_hints(tp: type) -> tuple[tuple[str, Any], ...]:
    """Each field's name and resolved type, once per class (``typing.get_type_hints`` is slow)."""
    hints = typing.get_type_hints(tp)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(tp))


def from_plain(tp: Any, value: Any) -> Any:
    """JSON-ready data -> a value of type ``tp`` (the inverse of to_plain); raises EngineError."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return from_plain(options[0], value)
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, list):
            raise EngineError("State is malformed: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v) for v in value)
        return tuple(from_plain(a, v) for a, v in zip(args, value, strict=True))
    if tp is Event:
        if not isinstance(value, Mapping):
            raise EngineError("State is malformed: an event must be an object")
        return Event.from_dict(value)
    if tp in (PiranhaRules, PilesRules):
        return tp.from_dict(value)
    if origin in (Mapping, dict) or tp in (dict,):
        if not isinstance(value, Mapping):
            raise EngineError("State is malformed: expected an object")
        return dict(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, Mapping):
            raise EngineError("State is malformed: expected an object")
        try:
            kwargs = {name: from_plain(hint, value[name]) for name, hint in _field_hints(tp)}
        except KeyError as exc:
            raise EngineError(f"State is malformed: missing {exc}") from None
        return tp(**kwargs)
    if tp is bool:
        if not isinstance(value, bool):
            raise EngineError("State is malformed: expected true or false")
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise EngineError("State is malformed: expected a whole number")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise EngineError("State is malformed: expected text")
        return value
    raise EngineError(f"State is malformed: cannot read {tp!r}")  # pragma: no cover
