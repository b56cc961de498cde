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
from collections.abc import Callable, Mapping
from typing import Any

from .errors import EngineError
from .rules import PilesRules, PiranhaRules

_SCALARS = frozenset({int, str, bool, float, type(None)})


def to_plain(value: Any) -> Any:
    """A record (or a tuple of them, or a plain value) as JSON-ready dicts and lists."""
    tp: Any = type(value)
    if tp in _SCALARS:
        return value
    return _printer(tp)(value)


@functools.cache
def _printer(tp: Any) -> Callable[[Any], Any]:
    """How to print a value of type ``tp``, worked out once per type. A scalar inside a record or a list is
    taken as it is without a call (a state holds hundreds)."""
    scalars = _SCALARS
    if tp in (PiranhaRules, PilesRules):
        return _rules_printed
    if dataclasses.is_dataclass(tp):
        names = tuple(f.name for f in dataclasses.fields(tp))
        kind = _kind_of(tp)
        if kind is None:

            def print_record(value: Any) -> dict[str, Any]:
                out: dict[str, Any] = {}
                for name in names:
                    item = getattr(value, name)
                    out[name] = item if type(item) in scalars else to_plain(item)
                return out

            return print_record

        def print_kind(value: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"kind": kind}
            for name in names:
                item = getattr(value, name)
                if item is not None:
                    out[name] = item if type(item) in scalars else to_plain(item)
            return out

        return print_kind
    if issubclass(tp, (list, tuple)):
        return lambda value: [v if type(v) in scalars else to_plain(v) for v in value]
    if issubclass(tp, Mapping):
        return lambda value: {str(k): to_plain(v) for k, v in value.items()}
    return lambda value: value


_RULES_PRINTED: dict[str, dict[str, Any]] = {}
_RULES_HELD = 256


def _rules_printed(rules: PiranhaRules | PilesRules) -> dict[str, Any]:
    """The rules' ``to_dict``, worked out once per rules (a state carries its rules, printed at every step), by
    their repr (which tells 1 from True and a list from a tuple, as the printed form does); a fresh copy each
    time, its lists too, as the caller may change what it gets."""
    key = repr(rules)
    printed = _RULES_PRINTED.get(key)
    if printed is None:
        printed = rules.to_dict()
        if len(_RULES_PRINTED) >= _RULES_HELD:
            _RULES_PRINTED.clear()
        _RULES_PRINTED[key] = printed
    return {name: list(value) if isinstance(value, list) else value for name, value in printed.items()}


def _kind_of(tp: Any) -> str | None:
    kind = getattr(tp, "kind", None) if isinstance(tp, type) else None
    return kind if isinstance(kind, str) else None


def from_plain(tp: Any, value: Any) -> Any:
    """JSON-ready data -> a value of type ``tp`` (the inverse of ``to_plain``); raises EngineError."""
    return _reader(tp)(value)


@functools.cache
def _reader(tp: Any) -> Callable[[Any], Any]:
    """How to read a value of type ``tp``, worked out once per type."""
    if tp is Any:
        return lambda value: value
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        options = tuple(a for a in args if a is not type(None))
        pick = _union_reader(options)
        if len(options) < len(args):
            return lambda value: None if value is None else pick(value)
        return pick
    if origin is tuple:
        return _tuple_reader(typing.get_args(tp))
    if tp in (PiranhaRules, PilesRules):
        return typing.cast("Callable[[Any], Any]", tp.from_dict)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record_reader(tp)
    if tp in (bool, int, str):
        return _scalar_reader(tp)
    raise EngineError(f"State is malformed: cannot read {tp!r}")  # pragma: no cover


def _scalar_reader(tp: type) -> Callable[[Any], Any]:
    expected = {bool: "true or false", int: "a whole number", str: "text"}[tp]

    def read(value: Any) -> Any:
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise EngineError(f"State is malformed: expected {expected}")
        return value

    return read


def _tuple_reader(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _reader(args[0])

        def read_all(value: Any) -> Any:
            if not isinstance(value, list):
                raise EngineError("State is malformed: expected a list")
            return tuple(item(v) for v in value)

        return read_all
    readers = tuple(_reader(a) for a in args)

    def read_fixed(value: Any) -> Any:
        if not isinstance(value, list) or len(value) != len(readers):
            raise EngineError("State is malformed: expected a list of the right length")
        return tuple(r(v) for r, v in zip(readers, value, strict=True))

    return read_fixed


def _record_reader(tp: type) -> Callable[[Any], Any]:
    hints = typing.get_type_hints(tp)
    kind = _kind_of(tp)
    label = kind or tp.__name__
    fields = tuple(
        (f.name, _reader(hints[f.name]), f.default is not dataclasses.MISSING) for f in dataclasses.fields(tp)
    )
    names = frozenset(name for name, _read, _optional in fields) | ({"kind"} if kind else set())

    def read(value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise EngineError(f"State is malformed: {label} must be an object")
        unknown = set(value) - names
        if unknown:
            raise EngineError(f"State is malformed: unexpected {', '.join(sorted(map(str, unknown)))} in {label}")
        kwargs: dict[str, Any] = {}
        for name, read_field, optional in fields:
            if name in value:
                kwargs[name] = read_field(value[name])
            elif not optional:
                raise EngineError(f"State is malformed: missing '{name}' in {label}")
        return tp(**kwargs)

    return read


def _union_reader(options: tuple[Any, ...]) -> Callable[[Any], Any]:
    """Read a value as the one option it fits: a record with a kind by its kind, another record by its
    keys (each record of a union has a key the others lack), else the first option that reads it."""
    if len(options) == 1:
        return _reader(options[0])
    records = [o for o in options if isinstance(o, type) and dataclasses.is_dataclass(o)]
    by_kind = {kind: _reader(o) for o in records if (kind := _kind_of(o)) is not None}
    shapes = [
        (
            frozenset(f.name for f in dataclasses.fields(o)),
            frozenset(f.name for f in dataclasses.fields(o) if f.default is dataclasses.MISSING),
            _reader(o),
        )
        for o in records
    ]
    others = [_reader(o) for o in options]

    def read(value: Any) -> Any:
        if isinstance(value, Mapping):
            if by_kind:
                kind = value.get("kind")
                found = by_kind.get(kind) if isinstance(kind, str) else None
                if found is None:
                    raise EngineError(f"State is malformed: unknown kind {value.get('kind')!r}")
                return found(value)
            keys = set(value)
            for allowed, required, read_record in shapes:
                if keys <= allowed and required <= keys:
                    return read_record(value)
        for read_other in others:
            try:
                return read_other(value)
            except EngineError:
                continue
        raise EngineError("State is malformed: a value of none of the expected kinds")

    return read
