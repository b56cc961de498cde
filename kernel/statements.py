"""Writes of a player action's path as statements written out once per process (the reads: games/selectors/
rows.py), each value prepared the way the ORM prepares it (each field's own conversion).

Every player action inserts its log row and its journal entries and updates its hand; building each through
the ORM compiles the same SQL again every time, which cost more CPU than running the statement. The SQL is the
one the ORM sends; the columns come from the model's fields, so a migration needs no change here. Lives beside
the settings so that the games and the ledger may both use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection
from django.db.models import (
    AutoField,
    BigIntegerField,
    BooleanField,
    CharField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    TextField,
)
from psycopg.types.json import Jsonb

# A field of these kinds, its value read as the base Field does (no pre_save of its own), sends an int, a str or
# a bool as it is: its own conversion (int(), str(), bool()) returns that same value. Any other value, or any
# other kind of field (dates, decimals...; JSON: ``_json_as_dumped``), takes the field's own conversion.
_SENT_AS_IS: dict[type[Field[Any, Any]], type] = {
    AutoField: int,
    IntegerField: int,
    BigIntegerField: int,
    CharField: str,
    TextField: str,
    BooleanField: bool,
}


def statement_cursor() -> Any:
    """A cursor for one statement whose rows are all fetched at once: the connection's kept one
    (config/database/base.py ``kept_cursor``), not closed after use."""
    return connection.kept_cursor()  # type: ignore[attr-defined]  # the project's backend's


def saved(obj: Model, pk: Any) -> None:
    """``obj`` as ``save`` leaves a new object once its row is inserted with id ``pk``."""
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = DEFAULT_DB_ALIAS  # ``connection``'s, without its look-up


def _base_type(field: Field[Any, Any]) -> str:
    """The column's type without its size (varchar, not varchar(50)), as Django casts the values it sends
    for UNNEST, so nothing is cut."""
    return str(field.db_type(connection)).split("(")[0]


# What orjson writes as json.dumps does (the same JSON value, without the spaces): dicts, lists and tuples, strs, ints
# up to 64 bits, floats, bools and None, a dict's int keys as strs; str and int subclasses, dates and dataclasses it
# refuses here, and json.dumps gets them. Unlike json.dumps it writes a UUID or an enum (as its value) and a float
# NaN or infinity (as null; json.dumps's NaN PostgreSQL refuses): the values written here hold none.
_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
_ORJSON |= orjson.OPT_PASSTHROUGH_DATETIME


def json_dumps(value: Any) -> bytes | str:
    """``json.dumps(value)``'s JSON value, written by orjson (in C, about seven times cheaper for a hand's state)
    when it holds only JSON's own types, else by ``json.dumps``."""
    try:
        return orjson.dumps(value, option=_ORJSON)
    except TypeError:  # orjson.JSONEncodeError: a type left to json.dumps, which refuses what it cannot write
        return json.dumps(value)


def _json_as_dumped(field: Field[Any, Any]) -> bool:
    """Whether ``field`` is a JSONField of Django's own (no encoder, no method of its own on the way), whose
    ``get_db_prep_save`` of a dict or a list is, on PostgreSQL, ``Jsonb(value, dumps=json.dumps)``: nothing on
    the way changes such a value (sent with ``json_dumps``: the same JSON value)."""
    kind = type(field)
    return (
        isinstance(field, JSONField)
        and field.encoder is None
        and kind.pre_save is Field.pre_save
        and kind.get_db_prep_save is JSONField.get_db_prep_save
        and kind.get_db_prep_value is JSONField.get_db_prep_value
        and kind.get_prep_value is Field.get_prep_value
    )


def _preparer(field: Field[Any, Any], add: bool) -> Callable[[Model], Any]:
    """How ``save`` (``add``: an insert) prepares ``field``'s value of an object for the database."""

    def prepared(obj: Model) -> Any:
        return field.get_db_prep_save(field.pre_save(obj, add), connection)

    if _json_as_dumped(field):
        attname = field.attname

        def as_json(obj: Model) -> Any:
            value = getattr(obj, attname)
            return Jsonb(value, dumps=json_dumps) if type(value) in (dict, list) else prepared(obj)

        return as_json
    target = field.target_field if isinstance(field, ForeignKey) else field
    plain = next((sent for kind, sent in _SENT_AS_IS.items() if isinstance(target, kind)), None)
    if (
        plain is None
        or type(field).pre_save is not Field.pre_save
        or (type(target).get_db_prep_save is not Field.get_db_prep_save)
    ):
        return prepared
    attname = field.attname

    def as_is(obj: Model) -> Any:
        value = getattr(obj, attname)
        return value if value is None or type(value) is plain else prepared(obj)

    return as_is


def _by_column(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    return [list(column) for column in zip(*rows, strict=True)]


class Insert:
    """What ``create`` (one object) or ``bulk_create`` (several: INSERT ... SELECT FROM UNNEST) sends on
    PostgreSQL for ``model``: every column but the id, the id returned and set on each object. ``with_pk``:
    the id too, as ``create`` sends an id set on the object before it is saved."""

    def __init__(self, model: type[Model], *, with_pk: bool = False) -> None:
        self._model = model
        self._fields = [field for field in model._meta.concrete_fields if with_pk or not field.primary_key]
        self._prepare = [_preparer(field, True) for field in self._fields]
        self._values_sql = ""
        self._unnest_sql = ""

    def _statements(self) -> tuple[str, str]:
        if not self._values_sql:
            table = self._model._meta.db_table
            columns = ", ".join(f'"{field.column}"' for field in self._fields)
            pk = self._model._meta.pk
            assert pk is not None
            returning = f' RETURNING "{table}"."{pk.column}"'
            self._values_sql = (
                f'INSERT INTO "{table}" ({columns}) '  # noqa: S608 - the model's own names
                f"VALUES ({', '.join(['%s'] * len(self._fields))}){returning}"
            )
            arrays = ", ".join(f"(%s)::{_base_type(field)}[]" for field in self._fields)
            self._unnest_sql = f'INSERT INTO "{table}" ({columns}) SELECT * FROM UNNEST({arrays}){returning}'  # noqa: S608
        return self._values_sql, self._unnest_sql

    def guarded(self, *, before: str, condition: str, returning: str) -> str:
        """The several-row INSERT after the ``before`` text (a WITH clause), inserting nothing unless
        ``condition``, returning each new id and the ``returning`` expressions. Its parameters: those of
        ``before``, then ``columns(objects)``, then those of ``condition``."""
        _, unnest_sql = self._statements()
        insert, _, returned = unnest_sql.rpartition(" RETURNING ")
        return f"{before} {insert} WHERE {condition} RETURNING {returned}, {returning}"

    def select_one(self) -> str:
        """``INSERT INTO ... SELECT`` one row, each value cast to its column's type, for a statement to finish (a
        WHERE, a RETURNING). Its parameters: ``values(obj)``. Scalars, not one-element arrays: psycopg dumps a
        list in Python, looking for its elements' type each time, and a scalar in C."""
        insert, _, _ = self._statements()[1].partition(" SELECT ")
        return f"{insert} SELECT {', '.join(f'%s::{_base_type(field)}' for field in self._fields)}"

    def columns(self, objects: Sequence[Model]) -> list[list[Any]]:
        """The values of ``objects``' rows column by column, prepared as the ORM prepares them."""
        return _by_column([self.values(obj) for obj in objects])

    def values(self, obj: Model) -> list[Any]:
        """The values of ``obj``'s row, prepared as the ORM prepares them."""
        return [prepare(obj) for prepare in self._prepare]

    def run(self, objects: Sequence[Model]) -> None:
        """Insert ``objects`` (new instances of the model) in one statement, in order; set their ids."""
        if not objects:
            return
        values_sql, unnest_sql = self._statements()
        rows = [self.values(obj) for obj in objects]
        cursor = statement_cursor()
        if len(rows) == 1:
            cursor.execute(values_sql, rows[0])
        else:
            cursor.execute(unnest_sql, _by_column(rows))
        for obj, (pk,) in zip(objects, cursor.fetchall(), strict=True):
            saved(obj, pk)


class Update:
    """What ``save(update_fields=...)`` sends for ``model`` and those fields: UPDATE ... WHERE id."""

    def __init__(self, model: type[Model], fields: Sequence[str]) -> None:
        self._fields = [model._meta.get_field(name) for name in fields]
        self._prepare = [_preparer(field, False) for field in self._fields]  # type: ignore[arg-type]
        pk = model._meta.pk
        assert pk is not None
        assignments = ", ".join(f'"{field.column}" = %s' for field in self._fields)  # type: ignore[union-attr]
        self._sql = (
            f'UPDATE "{model._meta.db_table}" SET {assignments} '  # noqa: S608 - the model's own names
            f'WHERE "{model._meta.db_table}"."{pk.column}" = %s'
        )

    def run(self, obj: Model) -> None:
        """Write those fields of ``obj``; DatabaseError, as ``save``, when its row is not there."""
        cursor = statement_cursor()
        cursor.execute(self._sql, self.params(obj))
        if cursor.rowcount == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")

    @property
    def sql(self) -> str:
        return self._sql

    def params(self, obj: Model) -> list[Any]:
        return [*(prepare(obj) for prepare in self._prepare), obj.pk]


@dataclass(frozen=True, slots=True)
class Carried:
    """Another module's writes sent in the same statement as a step (``UpdateInsert.run``): its WITH clauses (the
    text after WITH, without a final query), their parameters, and a scalar expression over them returned."""

    clauses: str
    params: Sequence[Any]
    returned: str


class UpdateInsert:
    """``update.run(obj)`` then ``insert.run([row])`` as one statement (the UPDATE in a WITH clause): two writes
    for the price of one round trip. The same rows are written; DatabaseError, as ``save``, when ``obj``'s row
    is not there (the transaction is then to be rolled back, as the row was inserted)."""

    def __init__(self, update: Update, insert: Insert) -> None:
        self._update, self._insert = update, insert
        self._sql: dict[str, str] = {}  # by the carried clauses' text (each a constant of its module)

    def run(self, obj: Model, row: Model, carried: Carried | None = None) -> Any:
        """Write ``obj``'s fields and insert ``row``; with ``carried``, its writes too, in the same statement (one
        round trip: a refusal of any of them fails them all), returning its ``returned`` value."""
        clauses = carried.clauses if carried is not None else ""
        sql = self._sql.get(clauses)
        if sql is None:
            values_sql, _ = self._insert._statements()
            more = f", {clauses}" if carried is not None else ""
            also = f", {carried.returned}" if carried is not None else ""
            sql = self._sql[clauses] = (
                f"WITH updated AS ({self._update.sql} RETURNING 1){more} {values_sql}, "  # noqa: S608 - fixed
                f"(SELECT COUNT(*) FROM updated){also}"
            )
        params = [
            *self._update.params(obj),
            *(carried.params if carried is not None else ()),
            *self._insert.values(row),
        ]
        cursor = statement_cursor()
        cursor.execute(sql, params)
        ((pk, updated, *returned),) = cursor.fetchall()
        if updated == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")
        saved(row, pk)
        return returned[0] if returned else None


class InsertColumns:
    """INSERT ... SELECT FROM UNNEST for rows of ``model`` given column by column: the ``given`` columns
    (attnames) with values ready for the database (ints, strs), every other column (but the id) at its
    field's default as ``bulk_create`` sends it. Nothing is returned."""

    def __init__(self, model: type[Model], given: Sequence[str]) -> None:
        fields = {field.attname: field for field in model._meta.concrete_fields if not field.primary_key}
        self._given = list(given)
        self._rest = [field for name, field in fields.items() if name not in self._given]
        self._defaults: list[Any] | None = None  # ``defaults()``, when fixed

        columns = ", ".join(f'"{fields[name].column}"' for name in self._given)
        rest = "".join(f', "{field.column}"' for field in self._rest)
        arrays = ", ".join(f"(%s)::{_base_type(fields[name])}[]" for name in self._given)
        defaults = "".join(f", (%s)::{_base_type(field)}" for field in self._rest)
        self._sql = (
            f'INSERT INTO "{model._meta.db_table}" ({columns}{rest}) '  # noqa: S608 - the model's own names
            f"SELECT u.*{defaults} FROM UNNEST({arrays}) AS u"
        )

    def from_select(self, select: str) -> str:
        """INSERT of the rows of ``select``, a query giving the given columns in order. Its parameters:
        ``defaults()``, then those of ``select``."""
        insert, _, _ = self._sql.partition(" FROM UNNEST(")
        return f"{insert} FROM ({select}) AS u"

    def defaults(self) -> list[Any]:
        """The other columns' values, as ``bulk_create`` sends them: worked out once when no default is made by a
        callable, so the same at every call (a chip event's postings: about 50 us less, bench/action_books.py)."""
        if self._defaults is not None:
            return self._defaults
        values = [field.get_db_prep_save(field.get_default(), connection) for field in self._rest]
        if not any(field.has_default() and callable(field.default) for field in self._rest):
            self._defaults = values
        return values

    def run(self, columns: Mapping[str, Sequence[Any]]) -> None:
        """Insert one row per position of the given columns (all of one length)."""
        if not columns[self._given[0]]:
            return
        statement_cursor().execute(self._sql, [*self.defaults(), *(list(columns[name]) for name in self._given)])
