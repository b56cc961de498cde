"""The site's own database role cannot bypass the books.

The site, the workers and these tests connect as the application role (DATABASE_URL); the owner
role (DATABASE_OWNER_URL) made the tables. An attacker who controls the application, or a bug in
it, can't TRUNCATE the books (which would skip their row triggers), disable or drop a trigger,
alter a table, or UPDATE/DELETE an entry, a posting or a ruling. A decided settlement never
changes, even for the owner; a club with entries keeps its currency.
"""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from accounts import services as club_services
from ledger.models import Ruling, Settlement
from ledger.roles import INSERT_ONLY_TABLES
from ledger.services import ruling_adjust, settlement_record
from tests.dbbackend.base import owner_connect
from tests.security.web_role import refused

pytestmark = pytest.mark.django_db

BOOKS = ("ledger_journalentry", "ledger_posting", "ledger_ruling", "ledger_account", "ledger_settlement")


def _a_ruling(club_setup) -> Ruling:
    ann, ben, _ = club_setup.members
    return ruling_adjust(
        club=club_setup.club,
        from_user=ann,
        to_user=ben,
        amount=500,
        reason="Chips miscounted",
        ruled_by=club_setup.organiser,
    )


def _confirmed_settlement(club_setup) -> Settlement:
    ann, ben, _ = club_setup.members
    return settlement_record(
        club=club_setup.club,
        payer=ann,
        payee=ben,
        amount=700,
        paid_on=dt.date(2026, 1, 2),
        note="cash",
        recorded_by=club_setup.organiser,
    )


def test_the_site_connects_as_a_role_that_is_no_superuser_and_owns_nothing(db):
    assert "owner" in settings.DATABASES, "set DATABASE_OWNER_URL (the owner role) beside DATABASE_URL"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, rolcreatedb, rolcreaterole, rolbypassrls "
            "FROM pg_roles WHERE rolname = current_user"
        )
        user, superuser, *others = cursor.fetchone()
        cursor.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)"
        )
        owned = cursor.fetchone()[0]
        cursor.execute("SELECT has_schema_privilege('public', 'CREATE')")
        may_create = cursor.fetchone()[0]
    assert user == settings.DATABASE_APP_ROLE and user != settings.DATABASES["owner"]["USER"]
    assert (superuser, *others) == (False, False, False, False)
    assert owned == 0 and may_create is False


def test_every_table_is_granted_and_none_may_be_truncated(db):
    """The grants follow the tables: every table made by the migrations is readable, none truncatable."""
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT c.relname, has_table_privilege(c.oid, 'SELECT'), has_table_privilege(c.oid, 'INSERT'),
                   has_table_privilege(c.oid, 'UPDATE'), has_table_privilege(c.oid, 'DELETE'),
                   has_table_privilege(c.oid, 'TRUNCATE'), has_table_privilege(c.oid, 'TRIGGER'),
                   has_table_privilege(c.oid, 'REFERENCES')
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind = 'r'""")
        rights = {name: rest for name, *rest in cursor.fetchall()}
    assert set(BOOKS) | {"accounts_club", "games_hand", "django_migrations"} <= set(rights)
    for table, (select, insert, update, delete, truncate, trigger, references) in rights.items():
        assert select and not truncate and not trigger and not references, table
        if table in INSERT_ONLY_TABLES:
            assert insert and not update and not delete, table
        elif table in ("ledger_account", "ledger_settlement"):
            assert insert and update and not delete, table
        elif table == "django_migrations":
            assert not (insert or update or delete), table
        else:
            assert insert and update and delete, table


@pytest.mark.parametrize("table", BOOKS)
def test_truncating_the_books_is_refused(club_setup, table):
    _a_ruling(club_setup)
    _confirmed_settlement(club_setup)
    assert "permission denied" in refused(f"TRUNCATE {table} CASCADE")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_posting SET amount = -amount",
        "DELETE FROM ledger_posting",
        "UPDATE ledger_journalentry SET memo = 'rewritten'",
        "DELETE FROM ledger_journalentry",
        "UPDATE ledger_ruling SET reason = 'never happened'",
        "DELETE FROM ledger_ruling",
        "DELETE FROM ledger_account",
        "DELETE FROM ledger_settlement",
    ],
)
def test_rewriting_or_deleting_the_books_is_refused(club_setup, sql):
    _a_ruling(club_setup)
    _confirmed_settlement(club_setup)
    assert "permission denied" in refused(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE ledger_posting DISABLE TRIGGER ALL",
        "ALTER TABLE ledger_posting DISABLE TRIGGER ledger_posting_insert_only",
        "ALTER TABLE ledger_settlement DISABLE TRIGGER USER",
        "DROP TRIGGER ledger_entry_insert_only ON ledger_journalentry",
        "ALTER TABLE ledger_account ADD COLUMN note text",
        "ALTER TABLE ledger_journalentry RENAME TO old_books",
        "DROP TABLE ledger_ruling",
        "CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
        "SET session_replication_role = replica",
        "CREATE TABLE shadow_books (id int)",
    ],
)
def test_altering_the_books_or_switching_their_triggers_off_is_refused(db, sql):
    message = refused(sql)
    assert "must be owner" in message or "permission denied" in message


def test_a_decided_settlement_never_changes(club_setup):
    settlement = _confirmed_settlement(club_setup)
    assert settlement.status == Settlement.Status.CONFIRMED
    with pytest.raises(IntegrityError, match="never changes"), transaction.atomic():
        Settlement.objects.filter(pk=settlement.pk).update(status=Settlement.Status.DECLINED)
    with pytest.raises(IntegrityError, match="never changes"), transaction.atomic():
        Settlement.objects.filter(pk=settlement.pk).update(amount=1)
    ann, ben, _ = club_setup.members
    pending = settlement_record(
        club=club_setup.club, payer=ann, payee=ben, amount=300, paid_on=dt.date(2026, 1, 3), note="", recorded_by=ann
    )
    assert pending.status == Settlement.Status.PENDING
    with pytest.raises(IntegrityError, match="only be confirmed or declined"), transaction.atomic():
        Settlement.objects.filter(pk=pending.pk).update(amount=30_000)
    settlement.refresh_from_db()
    assert (settlement.status, settlement.amount) == (Settlement.Status.CONFIRMED, 700)


def test_even_the_owner_meets_the_guards_of_the_books(transactional_db, club_setup):
    """The owner could switch triggers off (that is what it is for), but a plain edit is refused."""
    settlement = _confirmed_settlement(club_setup)
    with owner_connect(connection.settings_dict) as conn:
        for sql in (
            "UPDATE ledger_settlement SET amount = 1",
            "DELETE FROM ledger_settlement",
            "UPDATE ledger_posting SET amount = -amount",
            "DELETE FROM ledger_journalentry",
        ):
            with pytest.raises(psycopg.errors.IntegrityConstraintViolation), conn.transaction():
                conn.execute(sql)
    settlement.refresh_from_db()
    assert settlement.amount == 700


def test_even_the_owner_changes_no_column_of_an_entry_a_posting_or_a_ruling(transactional_db, club_setup):
    """The insert-only triggers, which the owner meets (the application role has no UPDATE or DELETE at all): every
    column of every row, the entry's transaction stamp included, and every row removed."""
    _a_ruling(club_setup)
    with owner_connect(connection.settings_dict) as conn:
        for table in INSERT_ONLY_TABLES:
            columns = [
                row[0]
                for row in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = %s", [table]
                ).fetchall()
            ]
            assert "id" in columns and len(columns) > 5, table
            for column in [*columns, None]:
                sql = f'UPDATE {table} SET "{column}" = "{column}"' if column else f"DELETE FROM {table}"  # noqa: S608
                with (
                    pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="never updated or deleted"),
                    conn.transaction(),
                ):
                    conn.execute(sql)  # type: ignore[arg-type]


def test_the_currency_stays_once_the_club_has_entries(club_setup, client_for):
    club = club_setup.club
    kwargs = {"club_id": club.pk, "by": club_setup.organiser, "name": club.name, "credit_limit": club.credit_limit}
    # No entries yet: the currency may still change.
    club_services.club_update(**kwargs, currency="EUR")
    _a_ruling(club_setup)
    with pytest.raises(club_services.InvalidInput, match="The currency stays EUR: the club's books already have"):
        club_services.club_update(**kwargs, currency="GBP")
    club.refresh_from_db()
    assert club.currency == "EUR"
    club_services.club_update(**kwargs, currency="eur")  # the same currency: other settings still save
    page = client_for(club_setup.organiser).post(
        reverse("club_settings", args=[club.pk]), {"name": club.name, "currency": "JPY", "credit_limit_units": "10.00"}
    )
    assert page.status_code == 200
    assert "The currency stays EUR: the club&#x27;s books already have entries in it." in page.content.decode()
    # The database refuses it too, for any writer.
    with (
        pytest.raises(IntegrityError, match="its currency never changes"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE accounts_club SET currency = 'GBP' WHERE id = %s", [club.pk])


def test_compose_runs_the_site_as_the_application_role_and_migrates_as_the_owner():
    import re
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    services = yaml.safe_load((root / "docker-compose.yml").read_text())["services"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgresql://club_app:"), name
        assert "DATABASE_OWNER_URL" not in environment, name
    migrate = services["migrate"]
    assert migrate["environment"]["DATABASE_OWNER_URL"].startswith("postgresql://club_owner:")
    assert migrate["command"][-2:] == ["--database", "owner"]
    mount = next(v for v in services["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in v)
    script = (root / mount.split(":")[0]).read_text()
    assert re.search(r"CREATE ROLE club_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", script)
    assert re.search(r"CREATE ROLE club_owner LOGIN NOSUPERUSER", script)
    assert "PASSWORD :'app_password'" in script and "CREATE DATABASE club OWNER club_owner" in script
