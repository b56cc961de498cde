"""PostgreSQL plans a statement the site runs often once per connection (config/settings/base.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Table

# A statement no other code sends (a table's carried pot never below zero): the tests before this one in the same
# process may have left other statements prepared on the pooled connection.
_PROBE = '%"games_table"."carry_pot" = %'


def _prepared() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [_PROBE])
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.django_db
def test_a_statement_run_often_is_prepared_once() -> None:
    assert _prepared() == 0
    for n in range(6):
        assert not Table.objects.filter(pk=-n, carry_pot=-1).exists()
    assert _prepared() == 1  # the same statement each time, whatever its values
