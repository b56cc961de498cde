"""Append-only in PostgreSQL (docs/fairness.md): the web's own database role (these tests connect as it, as the site
does) cannot change or remove a signed cut, a closed list, a device key or a complaint, nor date a device or a deck
by its own clock, nor switch the guards off."""

from __future__ import annotations

import json

import pytest
from django.db import connection

import engine
from games import services
from games.models import CutComplaint, CutList, DeckAhead, DeviceCut
from games.services.cuts import cut_complaint_file, cut_take
from tests.games.cut_keys import new_device, registered
from tests.games.helpers import make_table
from tests.security.web_role import refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def cut_deal(club_setup):
    """A table whose deal 1 was dealt through a's signed cut, with a's complaint about it."""
    a, b, _ = club_setup.members
    device, _row = registered(a, 0)
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    cut = device.cut_of(table, 1)
    cut_take(table_id=table.pk, user=a, number=1, device=cut["device"], signature=cut["signature"])
    services.table_start(table_id=table.pk, user=a)
    cut_complaint_file(table_id=table.pk, user=a, deal=1, kind="missing", evidence={"note": "kept"})
    return table


def test_the_web_role_cannot_change_or_remove_a_cut_a_closed_list_or_a_complaint(cut_deal) -> None:
    assert DeviceCut.objects.count() == 1 and CutList.objects.count() == 2 and CutComplaint.objects.count() == 1
    assert "kept as received" in refused('UPDATE "games_devicecut" SET "value" = %s', ["0" * 32])
    assert "kept as received" in refused('DELETE FROM "games_devicecut"')
    assert "never changes" in refused('UPDATE "games_cutlist" SET "cuts" = %s::jsonb', [json.dumps([])])
    assert "never changes" in refused('DELETE FROM "games_cutlist"')
    assert "on record" in refused('UPDATE "games_cutcomplaint" SET "kind" = %s', ["missing"])
    assert "on record" in refused('DELETE FROM "games_cutcomplaint"')
    deck = DeckAhead.objects.get(table=cut_deal, number=1)
    assert "never changes" in refused(
        'UPDATE "games_deckahead" SET "scheme" = %s WHERE "id" = %s', [engine.SCHEME_CUT, deck.pk]
    )
    assert "never changes" in refused(
        'UPDATE "games_deckahead" SET "created_at" = now() - interval \'1 day\' WHERE "id" = %s', [deck.pk]
    )
    assert "never changes" in refused('UPDATE "games_hand" SET "signed_table" = 999 WHERE "number" = 1')
    for table in ("games_devicecut", "games_cutlist", "accounts_devicekey", "games_cutcomplaint"):
        assert "must be owner" in refused(f'ALTER TABLE "{table}" DISABLE TRIGGER ALL')
        assert "permission denied" in refused(f'TRUNCATE "{table}" CASCADE')
    assert DeviceCut.objects.count() == 1 and CutList.objects.count() == 2 and CutComplaint.objects.count() == 1


def test_the_web_role_cannot_change_or_remove_a_device_but_may_retire_it_once(club_setup) -> None:
    a = club_setup.members[0]
    _device, row = registered(a, 0)
    other = new_device(1)
    assert "never removed" in refused('DELETE FROM "accounts_devicekey"')
    for column, value in (("n", other.n), ("fingerprint", other.fingerprint), ("user_id", club_setup.members[1].pk)):
        assert "kept as registered" in refused(f'UPDATE "accounts_devicekey" SET "{column}" = %s', [value])  # noqa: S608 - fixed column names
    assert "kept as registered" in refused(
        'UPDATE "accounts_devicekey" SET "registered_at" = %s', ["2001-01-01T00:00:00Z"]
    )
    with connection.cursor() as cursor:
        cursor.execute('UPDATE "accounts_devicekey" SET "retired_at" = now() WHERE "id" = %s', [row.pk])
    assert "kept as registered" in refused('UPDATE "accounts_devicekey" SET "retired_at" = NULL')
    # A key that is not 2048 bits, or a fingerprint of another key, is refused in SQL too.
    assert "2048 bits" in refused(
        'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
        "VALUES (%s, %s, 65537, %s, '', now())",
        [a.pk, other.n[:-2], engine.device_fingerprint(other.n[:-2], 65537)],
    )
    assert "SHA-256 of its key" in refused(
        'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
        "VALUES (%s, %s, 65537, %s, '', now())",
        [a.pk, other.n, "0" * 64],
    )


def test_a_sixth_active_device_is_refused_in_sql_too(club_setup) -> None:
    a = club_setup.members[0]
    for k in range(5):
        registered(a, k)
    sixth = new_device(6)
    assert "at most 5 active devices" in refused(
        'INSERT INTO "accounts_devicekey" ("user_id", "n", "e", "fingerprint", "label", "registered_at") '
        "VALUES (%s, %s, 65537, %s, '', now())",
        [a.pk, sixth.n, sixth.fingerprint],
    )


def test_a_cut_after_its_list_closed_is_refused_in_sql(cut_deal, club_setup) -> None:
    """Deal 2's list closed when deal 1 was dealt: even a cut with a true signature is refused after it."""
    b = club_setup.members[1]
    # b registers now: too late for deal 2 anyway; the closed list is what refuses first.
    device, row = registered(b, 3)
    deck = DeckAhead.objects.get(table=cut_deal, number=2)
    signed = device.cut_of(cut_deal, 2)
    assert "closed already" in refused(
        'INSERT INTO "games_devicecut" ("deck_id", "user_id", "device_id", "signature", "value", "received_at") '
        "VALUES (%s, %s, %s, %s, %s, now())",
        [deck.pk, b.pk, row.pk, signed["signature"], engine.cut_of_signature(str(signed["signature"]))],
    )
