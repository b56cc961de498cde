"""The engine's records to and from JSON-ready plain data: the one reader and the one printer.

A record is a frozen dataclass of ints, strs, bools, None, tuples and other records. It prints as an
object of its fields in their order, tuples as lists. A record with a ``kind`` (an event, see
events.py) prints its kind first and leaves out the fields it does not set (None), so it prints
exactly the object the log has always held; the reader takes such an object back, choosing the
record by its kind. The reader refuses what it cannot place (an unknown key, a wrong type) with
an EngineError, so nothing stored is silently dropped.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any

from .errors import EngineError
from .rules import PilesRules, PiranhaRules


def to_plain(value: Any) -> Any:
    """A record (or a tuple of them, or a plain value) as JSON-ready dicts and lists."""
    if isinstance(value, (PiranhaRules, PilesRules)):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = getattr(type(value), "kind", None)
        if isinstance(kind, str):
            out: dict[str, Any] = {"kind": kind}
            for f in dataclasses.fields(value):
                item = getattr(value, f.name)
                if item is not None:
                    out[f.name] = to_plain(item)
            return out
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


@functools.cache
def _field_hints(tp: type) -> tuple[tuple[str, Any, bool], ...]:
    """Each field's name, resolved type and whether it may be left out, once per class."""
    hints = typing.get_type_hints(tp)
    return tuple((f.name, hints[f.name], f.default is not dataclasses.MISSING)
                 for f in dataclasses.fields(tp))


def _kind_of(tp: Any) -> str | None:
    kind = getattr(tp, "kind", None) if isinstance(tp, type) else None
    return kind if isinstance(kind, str) else None


def _record(tp: type, value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise EngineError(f"State is malformed: {tp.__name__} must be an object")
    kind = _kind_of(tp)
    hints = _field_hints(tp)
    names = {name for name, _hint, _optional in hints} | ({"kind"} if kind else set())
    unknown = set(value) - names
    if unknown:
        raise EngineError(f"State is malformed: unexpected {', '.join(sorted(map(str, unknown)))} "
                          f"in {kind or tp.__name__}")
    kwargs: dict[str, Any] = {}
    for name, hint, optional in hints:
        if name in value:
            kwargs[name] = from_plain(hint, value[name])
        elif not optional:
            raise EngineError(f"State is malformed: missing '{name}' in {kind or tp.__name__}")
    return tp(**kwargs)


def from_plain(tp: Any, value: Any) -> Any:
    """JSON-ready data -> a value of type ``tp`` (the inverse of ``to_plain``); raises EngineError."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None and len(options) < len(typing.get_args(tp)):
            return None
        return _one_of(options, value)
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, list):
            raise EngineError("State is malformed: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v) for v in value)
        if len(args) != len(value):
            raise EngineError("State is malformed: a list of the wrong length")
        return tuple(from_plain(a, v) for a, v in zip(args, value, strict=True))
    if tp in (PiranhaRules, PilesRules):
        return tp.from_dict(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record(tp, value)
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


def _one_of(options: list[Any], value: Any) -> Any:
    """The value read as the one option it fits: a record with a kind by its kind, another record by
    its keys (each record of a union has a key the others lack), else the first option that reads it."""
    if len(options) == 1:
        return from_plain(options[0], value)
    if isinstance(value, Mapping):
        records = [o for o in options if isinstance(o, type) and dataclasses.is_dataclass(o)]
        kinds = {_kind_of(o): o for o in records if _kind_of(o)}
        if kinds:
            found = kinds.get(value.get("kind"))
            if found is None:
                raise EngineError(f"State is malformed: unknown kind {value.get('kind')!r}")
            return _record(found, value)
        for o in records:
            if set(value) <= {name for name, _hint, _optional in _field_hints(o)} and all(
                    name in value for name, _hint, optional in _field_hints(o) if not optional):
                return _record(o, value)
    for o in options:
        try:
            return from_plain(o, value)
        except EngineError:
            continue
    raise EngineError("State is malformed: a value of none of the expected kinds")
