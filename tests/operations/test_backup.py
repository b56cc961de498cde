"""Backups with pg_dump and restores with pg_restore on the real PostgreSQL: hands played, backed up,
restored into a fresh database, and every balance, statement, journal and hand page reads the same."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from accounts.models import Club, User
from games.demo.simulate import simulation_run
from games.models import Hand
from ledger.services import ruling_adjust
from operations.backup import Target, backup_create, backups_list, manifest_read

pytestmark = pytest.mark.django_db(transaction=True)


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    # Per-request tokens differ on every load.
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())
    return re.sub(r'nonce="[^"]+"', "", text)


def _everything(club: Club, users: list[User]) -> dict[str, str]:
    """Every page of the club's books and hands, as each member (and the organiser) sees them."""
    pages: dict[str, str] = {}
    for user in users:
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        pages[f"{user.username} balances"] = _page(client, reverse("ledger:balance_sheet", args=[club.pk]))
        for other in users:
            url = reverse("ledger:statement", args=[club.pk, other.pk])
            if client.get(url).status_code == 200:
                pages[f"{user.username} statement of {other.username}"] = _page(client, url)
                csv_url = reverse("ledger:statement_export", args=[club.pk, other.pk])
                pages[f"{user.username} csv of {other.username}"] = b"".join(
                    client.get(csv_url).streaming_content
                ).decode()
        for hand in Hand.objects.filter(table__club=club).order_by("pk"):
            pages[f"{user.username} hand {hand.pk}"] = _page(client, reverse("games:hand_detail", args=[hand.pk]))
    return pages


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """An empty database on the same server, dropped at the end."""
    target = Target.from_settings()
    name = f"{target.dbname}_restored"
    admin = target.with_dbname("postgres").conninfo()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(psycopg.sql.Identifier(name)))
        conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
    yield name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(psycopg.sql.Identifier(name)))


def _use_database(name: str) -> str:
    """Point Django's default connection at another database of the server; returns the previous name."""
    connections.close_all()
    previous = str(connection.settings_dict["NAME"])
    connection.settings_dict["NAME"] = name
    return previous


def test_a_restored_backup_shows_the_same_books_and_hands(club_setup, tmp_path: Path, fresh_database, capsys):
    ann, ben, cat = club_setup.members
    simulation_run(club=club_setup.club, players=[ann, ben, cat, club_setup.organiser], hands=8, seed=7)
    ruling_adjust(
        club=club_setup.club,
        from_user=ben,
        to_user=ann,
        amount=250,
        reason="Miscounted pot",
        ruled_by=club_setup.organiser,
    )
    users = [club_setup.organiser, ann, ben, cat]
    before = _everything(club_setup.club, users)
    assert sum(" hand " in key for key in before) == 8 * len(users)

    call_command("backup", dir=str(tmp_path))
    [dump] = backups_list(directory=tmp_path)
    manifest = manifest_read(dump)
    assert manifest is not None and manifest["rows"]["ledger_posting"] > 0
    assert manifest["ledger"]["postings_sum"] == 0 and manifest["schema"]["ledger"]

    original = _use_database(fresh_database)
    try:
        call_command("restore", str(dump))
        out = capsys.readouterr().out
        assert "the manifest matches" in out and "ledger_verify: the books balance" in out
        after = _everything(
            Club.objects.get(pk=club_setup.club.pk),
            list(User.objects.filter(pk__in=[u.pk for u in users]).order_by("pk")),
        )
    finally:
        _use_database(original)
    assert after.keys() == before.keys()
    for key, page in before.items():
        assert after[key] == page, key


def test_restore_refuses_a_database_that_is_not_empty(club_setup, tmp_path: Path):
    dump = backup_create(directory=tmp_path)
    with pytest.raises(CommandError, match="is not empty .* pass --force"):
        call_command("restore", str(dump))
    with pytest.raises(CommandError, match="No backup file"):
        call_command("restore", str(tmp_path / "missing.dump"))


def test_a_restore_whose_rows_differ_from_the_manifest_is_reported(club_setup, tmp_path: Path, fresh_database):
    dump = backup_create(directory=tmp_path)
    manifest_path = dump.with_suffix(".json")
    manifest = json.loads(manifest_path.read_text())
    manifest["rows"]["accounts_club"] += 1
    manifest_path.write_text(json.dumps(manifest))
    original = _use_database(fresh_database)
    try:
        with pytest.raises(CommandError, match="differ from the backup's manifest"):
            call_command("restore", str(dump))
        # The data stays for the operator to inspect; ledger_verify was not run and said nothing.
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM accounts_club")
            assert cursor.fetchone()[0] == manifest["rows"]["accounts_club"] - 1
    finally:
        _use_database(original)


def test_the_nightly_backup_keeps_the_newest(settings, club_setup, tmp_path: Path):
    from operations.tasks import nightly_backup

    settings.BACKUP_DIR = str(tmp_path)
    settings.BACKUP_KEEP = 2
    made = [nightly_backup() for _ in range(3)]
    kept = backups_list(directory=tmp_path)
    assert [str(p) for p in kept] == made[1:]
    assert not Path(made[0]).exists() and not Path(made[0]).with_suffix(".json").exists()
