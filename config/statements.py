"""Writes of a player action's path as statements written out once per process (the reads: games/selectors/
rows.py), each value prepared the way the ORM prepares it (each field's own conversion).

Every player action inserts its log row and its journal entries and updates its hand; building each through
the ORM compiles the same SQL again every time, which cost more CPU than running the statement. The SQL is the
one the ORM sends; the columns come from the model's fields, so a migration needs no change here. Lives beside
the settings so that the games and the ledger may both use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import DatabaseError, connection
from django.db.models import Model


class Insert:
    """What ``create`` (one object) or ``bulk_create`` (several: INSERT ... SELECT FROM UNNEST) sends on
    PostgreSQL for ``model``: every column but the id, the id returned and set on each object."""

    def __init__(self, model: type[Model]) -> None:
        self._model = model
        self._fields = [field for field in model._meta.concrete_fields if not field.primary_key]
        self._values_sql = ""
        self._unnest_sql = ""

    def _statements(self) -> tuple[str, str]:
        if not self._values_sql:
            table = self._model._meta.db_table
            columns = ", ".join(f'"{field.column}"' for field in self._fields)
            pk = self._model._meta.pk
            assert pk is not None
            returning = f' RETURNING "{table}"."{pk.column}"'
            self._values_sql = (f'INSERT INTO "{table}" ({columns}) '  # noqa: S608 - the model's own names
                                f"VALUES ({', '.join(['%s'] * len(self._fields))}){returning}")
            # As Django: the type without its size (varchar[], not varchar(50)[]), so nothing is cut.
            arrays = ", ".join(f"(%s)::{str(field.db_type(connection)).split('(')[0]}[]" for field in self._fields)
            self._unnest_sql = f'INSERT INTO "{table}" ({columns}) SELECT * FROM UNNEST({arrays}){returning}'  # noqa: S608
        return self._values_sql, self._unnest_sql

    def run(self, objects: Sequence[Model]) -> None:
        """Insert ``objects`` (new instances of the model) in one statement, in order; set their ids."""
        if not objects:
            return
        values_sql, unnest_sql = self._statements()
        rows = [[field.get_db_prep_save(field.pre_save(obj, True), connection) for field in self._fields]
                for obj in objects]
        with connection.cursor() as cursor:
            if len(rows) == 1:
                cursor.execute(values_sql, rows[0])
            else:
                cursor.execute(unnest_sql, [list(column) for column in zip(*rows, strict=True)])
            for obj, (pk,) in zip(objects, cursor.fetchall(), strict=True):
                obj.pk = pk
                obj._state.adding = False
                obj._state.db = connection.alias


class Update:
    """What ``save(update_fields=...)`` sends for ``model`` and those fields: UPDATE ... WHERE id."""

    def __init__(self, model: type[Model], fields: Sequence[str]) -> None:
        self._fields = [model._meta.get_field(name) for name in fields]
        pk = model._meta.pk
        assert pk is not None
        assignments = ", ".join(f'"{field.column}" = %s' for field in self._fields)  # type: ignore[union-attr]
        self._sql = (f'UPDATE "{model._meta.db_table}" SET {assignments} '  # noqa: S608 - the model's own names
                     f'WHERE "{model._meta.db_table}"."{pk.column}" = %s')

    def run(self, obj: Model) -> None:
        """Write those fields of ``obj``; DatabaseError, as ``save``, when its row is not there."""
        values = [field.get_db_prep_save(field.pre_save(obj, False), connection)  # type: ignore[union-attr]
                  for field in self._fields]
        with connection.cursor() as cursor:
            cursor.execute(self._sql, [*values, obj.pk])
            if cursor.rowcount == 0:
                raise DatabaseError("Save with update_fields did not affect any rows.")
