"""Events: what happened, in order; every chip movement is one event.

Chip-moving events carry ``seat`` and ``amount`` so the ledger posts each 1:1:
ante, blind, bet and match_payment move seat -> table pot; award moves table
pot -> seat; carry records an amount that stays in the table pot for the next
hand (no movement). Events never hold a card its seat's opponents may not
see: deal events hold no cards, turn events hold only the cards turned up,
showdown events hold only hands that are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import EngineError

#: kinds that move chips from a seat into the table pot
PAY_KINDS = frozenset({"ante", "blind", "bet", "match_payment"})


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``data`` holds JSON-ready extra fields."""

    kind: str
    seat: int | None = None
    amount: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.amount is not None:
            out["amount"] = self.amount
        for key, value in self.data.items():
            out[key] = _plain(value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        try:
            kind = data["kind"]
        except KeyError as exc:
            raise EngineError("An event needs a kind") from exc
        rest = {k: _plain(v) for k, v in data.items() if k not in ("kind", "seat", "amount")}
        return cls(str(kind), data.get("seat"), data.get("amount"), rest)


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON-ready data: objects become read-only mappings, lists tuples.

    A frozen record holds no dict or list another caller could change behind its back;
    ``_plain`` (and ``common.to_plain``) print it back to the same JSON.
    """
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """Tuples become lists so an event compares equal after a JSON round trip."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def event(kind: str, seat: int | None = None, amount: int | None = None, **data: Any) -> Event:
    """Build an event with JSON-plain extra fields."""
    return Event(kind, seat, amount, {k: _plain(v) for k, v in data.items()})
