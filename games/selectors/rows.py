"""Model rows read with a written statement, for the reads the table area repeats at every version of a
hand (games/selectors/snapshot.py). Building an ORM query costs several times the statement itself there
(measured in process: 0.4 to 1.4 ms of CPU per read, against about 0.1 ms for the same statement sent
as written), and each version of each hand pays it in every server process.

The columns and how each value is read back come from the model's own fields, so a migration that
adds, drops or renames a field needs no change here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

from kernel.statements import statement_cursor

M = TypeVar("M", bound=Model)


class Columns(Generic[M]):
    """Every column of ``model`` in a select list (``alias``: the table's alias in the statement), or only
    those of ``only`` (attribute names; the rest are deferred, as the ORM's ``only()`` defers them), and how a
    row of them becomes an instance, each value converted as the ORM converts it (JSON)."""

    def __init__(self, model: type[M], alias: str, only: Sequence[str] = ()) -> None:
        fields = [f for f in model._meta.concrete_fields if not only or f.attname in only]
        assert len(fields) == len(set(only)) or not only, "a name in ``only`` is not a column of the model"
        self.model = model
        self.count = len(fields)
        self.sql = ", ".join(f'{alias}."{f.column}"' for f in fields)
        self.names = [f.attname for f in fields]
        self._convert = [(i, f.from_db_value) for i, f in enumerate(fields) if hasattr(f, "from_db_value")]
        # Whether ``from_db`` would only set each value in the instance's __dict__: the model's own __init__ and
        # from_db are Django's, and each column's attribute a plain deferred attribute (one of a foreign key
        # only drops a cached related object, which a new instance has none of).
        self._plain = (
            model.__init__ is Model.__init__
            and model.from_db.__func__ is Model.from_db.__func__  # type: ignore[attr-defined]
            and all(
                type(getattr(model, name)) in (DeferredAttribute, ForeignKeyDeferredAttribute) for name in self.names
            )
        )

    def build(self, values: Sequence[Any]) -> M:
        row = list(values)
        for i, convert in self._convert:
            row[i] = convert(row[i], None, connection)
        if not self._plain or pre_init.receivers or post_init.receivers:
            return self.model.from_db(DEFAULT_DB_ALIAS, self.names, row)
        # What ``from_db`` makes, without its calls per field and its signals sent to nobody (measured: bench/
        # action_path.py): the values set, the others deferred, the instance's state that of a row read.
        obj = self.model.__new__(self.model)
        obj._state = state = ModelState()
        state.adding, state.db = False, DEFAULT_DB_ALIAS  # ``connection``'s, without its look-up (1.7 us)
        obj.__dict__.update(zip(self.names, row, strict=True))
        return obj


def rows_split(row: Sequence[Any], *columns: Columns[Any]) -> list[Model]:
    """One row of a statement that selects several models' columns in turn (``columns``, in the order of
    the select list), as one instance of each."""
    found, start = [], 0
    for part in columns:
        found.append(part.build(row[start : start + part.count]))
        start += part.count
    return found


def rows_fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    cursor = statement_cursor()
    cursor.execute(sql, params)
    return list(cursor.fetchall())
