"""The round trip into a fresh database: a new site is migrated by the owner role, the export is
imported by `manage.py club_import` as the application role, `ledger_verify` is clean, and the
balances, statements and hand pages read as they did, and every card opened there verifies against
the root published at the deal (the file held the other cards as leaf hashes only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command

import engine
from accounts.models import User
from engine.verify import check_export
from games.models import Hand
from games.selectors.hands import hand_committed_positions
from tests.accounts.factories import MembershipFactory
from tests.clubdata.test_club_archive import IMPORTED, _statement, _text, busy_club  # noqa: F401 - the fixture
from tests.games.celery_worker import on_database

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

#: run inside the fresh site: what its pages and books say, as JSON
READ_BACK = r"""
import json, re
from django.test import Client
from django.test.utils import setup_test_environment
from accounts.models import Club, User
from games.models import Hand
from ledger.models import Posting
from ledger.services import balance_of
setup_test_environment()
club = Club.objects.get()
organiser = User.objects.get(username=ORGANISER)
client = Client()
client.force_login(organiser, backend="django.contrib.auth.backends.ModelBackend")
watcher = Client()
watcher.force_login(User.objects.get(username=READER), backend="django.contrib.auth.backends.ModelBackend")
out = {"balances": {}, "statements": {}, "hands": [], "proofs": [],
       "sheet": client.get(f"/clubs/{club.pk}/ledger/").content.decode()}
for user in User.objects.filter(memberships__club=club):
    out["balances"][user.username] = balance_of(club=club, user=user)
    out["statements"][user.username] = [
        [seq, kind, amount, after, at.isoformat(), memo, game] for seq, kind, amount, after, at, memo, game in
        Posting.objects.filter(club=club, account__user=user).order_by("seq")
        .values_list("seq", "kind", "amount", "balance_after", "created_at", "entry__memo", "game")]
for hand in Hand.objects.order_by("table__created_at", "table__pk", "number"):
    out["hands"].append(watcher.get(f"/hands/{hand.pk}/").content.decode())
    out["proofs"].append(client.get(f"/hands/{hand.pk}/proof.json").json())
print("READ-BACK " + json.dumps(out))
"""


@pytest.mark.skipif(not settings.DATABASES.get("owner"), reason="needs the owner role (DATABASE_OWNER_URL)")
def test_the_export_comes_back_whole_in_a_fresh_database(busy_club, tmp_path):  # noqa: F811
    setup = busy_club
    reader = MembershipFactory(club=setup.club).user  # dealt into none of the hands: sees them as everyone does
    archive = tmp_path / "club.zip"
    call_command("club_export", "--club", str(setup.club.pk), "--out", str(archive), "--reason", "Moving")

    name = f"fresh_site_{uuid.uuid4().hex[:12]}"
    owner = settings.DATABASES["owner"]
    admin = {
        "dbname": owner["NAME"],
        "user": owner["USER"],
        "host": owner.get("HOST") or None,
        "port": owner.get("PORT") or None,
        "password": owner.get("PASSWORD") or None,
    }
    with psycopg.connect(**{k: v for k, v in admin.items() if v}, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": on_database(os.environ["DATABASE_URL"], name),
        "DATABASE_OWNER_URL": on_database(os.environ["DATABASE_OWNER_URL"], name),
    }

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    try:
        manage("migrate", "--database", "owner", "--noinput")
        assert "Imported into club #" in manage("club_import", str(archive))
        assert "the books balance" in manage("ledger_verify")
        script = READ_BACK.replace("ORGANISER", json.dumps(setup.organiser.username)).replace(
            "READER", json.dumps(reader.username)
        )
        line = next(s for s in manage("shell", "-c", script).splitlines() if s.startswith("READ-BACK "))
        fresh = json.loads(line.removeprefix("READ-BACK "))
    finally:
        with psycopg.connect(**{k: v for k, v in admin.items() if v}, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    from ledger.services import balance_of

    members = User.objects.filter(memberships__club=setup.club)
    assert fresh["balances"] == {u.username: balance_of(club=setup.club, user=u) for u in members}
    for user in members:
        here = [
            [seq, kind, amount, after, at.isoformat(), memo, game]
            for seq, kind, amount, after, at, memo, game in _statement(setup.club, user)
        ]
        assert fresh["statements"][user.username] == here
    from django.test import Client

    client = Client()
    client.force_login(setup.organiser, backend="django.contrib.auth.backends.ModelBackend")
    watcher = Client()
    watcher.force_login(reader, backend="django.contrib.auth.backends.ModelBackend")
    assert _text(fresh["sheet"]) == _text(client.get(f"/clubs/{setup.club.pk}/ledger/").content.decode())
    hands = Hand.objects.filter(table__club=setup.club).order_by("table__created_at", "table__pk", "number")
    assert len(fresh["hands"]) == len(hands) > 0
    for page, proof, hand in zip(fresh["hands"], fresh["proofs"], hands, strict=True):
        assert _text(page).replace(IMPORTED, "") == _text(watcher.get(f"/hands/{hand.pk}/").content.decode())
        # The hand kept its id: every card opened there (the board, the hands shown) verifies against the
        # root published at the deal, its path running through the leaves of the cards the file left out.
        assert check_export(proof) == [] and proof["root"] == hand.commitment
        public = sorted(hand_committed_positions(hand=hand, state=engine.state_from_json(hand.state), seat=None))
        assert [o["position"] for o in proof["openings"]] == list(public)
