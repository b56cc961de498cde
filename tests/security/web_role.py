"""Statements run as the web's own database role (the tests' connection is the site's), for the attacks on what
PostgreSQL guards against it: the books, the cuts, the committed deal."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction


def refused_together(*statements: tuple[str, Sequence[object]]) -> str:
    """Run ``statements`` in one transaction and commit it (the checks PostgreSQL defers to the commit run);
    PostgreSQL's refusal (the test fails if the transaction commits)."""
    with (
        pytest.raises((IntegrityError, ProgrammingError)) as caught,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        for sql, params in statements:
            cursor.execute(sql, params)
    return str(caught.value)


def refused(sql: str, params: Sequence[object] = ()) -> str:
    """Run one statement in a transaction of its own; PostgreSQL's refusal (the test fails if there is none)."""
    return refused_together((sql, params))
