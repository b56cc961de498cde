"""The notice models moved from games to notices without touching their tables (notices/migrations/0001,
games/migrations/0014): the same tables and rows before and after, both ways, and nothing left to migrate."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from notices.models import PushChoice, PushSubscription, TurnNotice
from tests.accounts.factories import UserFactory
from tests.conftest import _APP_CREDENTIALS, _connect_default_as

BEFORE = [("games", "0014_hand_timeouts"), ("notices", None)]
AFTER = [("games", "0015_notice_models_moved"), ("notices", "0001_moved_from_games")]
TABLES = ("games_turnnotice", "games_pushsubscription", "games_pushchoice")


def _migrate(targets: list[tuple[str, str | None]]) -> MigrationExecutor:
    """Migrate to ``targets`` as the database's owner, as a deploy does (the site's role may not)."""
    owner = settings.DATABASES.get("owner")
    if owner:
        _connect_default_as({"USER": owner.get("USER"), "PASSWORD": owner.get("PASSWORD")})
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(targets)
        executor.loader.build_graph()
        return executor
    finally:
        if owner:
            _connect_default_as(_APP_CREDENTIALS)


def _migrate_all() -> None:
    owner = settings.DATABASES.get("owner")
    if owner:
        _connect_default_as({"USER": owner.get("USER"), "PASSWORD": owner.get("PASSWORD")})
    try:
        call_command("migrate", verbosity=0)
    finally:
        if owner:
            _connect_default_as(_APP_CREDENTIALS)


def _rows() -> dict[str, list[tuple[object, ...]]]:
    with connection.cursor() as cursor:
        out = {}
        for table in TABLES:
            cursor.execute(f'SELECT * FROM "{table}" ORDER BY 1')  # noqa: S608 - our own table names
            out[table] = cursor.fetchall()
        return out


def test_the_models_keep_their_tables() -> None:
    assert [m._meta.db_table for m in (TurnNotice, PushSubscription, PushChoice)] == list(TABLES)
    assert {m._meta.app_label for m in (TurnNotice, PushSubscription, PushChoice)} == {"notices"}


@pytest.mark.django_db
def test_no_model_change_is_left_without_its_migration() -> None:
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_every_row_both_ways() -> None:
    user = UserFactory()
    PushChoice.objects.create(user=user, turn=False, reminder=True, digest=True)
    PushSubscription.objects.create(user=user, endpoint="https://push.example.org/a", p256dh="k", auth="s")
    ContentType.objects.get_for_model(PushChoice)
    before = _rows()
    assert before["games_pushchoice"] and before["games_pushsubscription"]
    try:
        _migrate(BEFORE)
        assert AFTER[1] not in MigrationRecorder(connection).applied_migrations()
        assert _rows() == before
        assert ContentType.objects.filter(app_label="games", model="pushchoice").exists()
    finally:
        state = _migrate(AFTER).loader.project_state(AFTER)
    try:
        assert AFTER[1] in MigrationRecorder(connection).applied_migrations()
        assert ("notices", "pushchoice") in state.models and ("games", "pushchoice") not in state.models
        assert _rows() == before
        assert not ContentType.objects.filter(app_label="games", model="pushchoice").exists()
        assert PushChoice.objects.get(user=user).digest is True
    finally:
        # Back to every app's latest migration, as a deploy migrates (its post_migrate grants the site's role its
        # rights on the tables made again): the later tests of this worker share the database.
        _migrate_all()
