"""Statements of the action's path written out once per process, and their rows made into model instances
the way the ORM makes them (each field's conversion from the database applied).

Every player action runs the same few reads; building each through the ORM compiles the same SQL again each
time, which cost more CPU than the statement itself. Only fixed statements with bound parameters are written
here; anything that varies stays with the ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from django.db import connection
from django.db.models import Model

M = TypeVar("M", bound=Model)


class Columns(Generic[M]):
    """The columns of ``model`` under a table alias, in the order ``make`` reads them back."""

    def __init__(self, model: type[M], alias: str) -> None:
        fields = list(model._meta.concrete_fields)
        self.model = model
        self.count = len(fields)
        self.sql = ", ".join(f'{alias}."{field.column}"' for field in fields)
        self._attnames = [field.attname for field in fields]
        self._converters = [(index, field.from_db_value) for index, field in enumerate(fields)
                            if hasattr(field, "from_db_value")]

    def make(self, values: Sequence[Any]) -> M:
        """The instance of ``values`` (this model's columns of one row, in order), as the ORM would load it."""
        row = list(values)
        for index, convert in self._converters:
            row[index] = convert(row[index], None, connection)
        return self.model.from_db(connection.alias, self._attnames, row)


def rows_of(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every row of one statement (on the default connection, in its open transaction if any)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
