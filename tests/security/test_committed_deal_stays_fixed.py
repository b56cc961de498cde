"""A committed deal never changes (docs/fairness.md "Threat model"), attacked as the web's own database role (these
tests connect as it, as the site does): the deck, salts, root, scheme, closed leaves, cuts and signing table of a
hand in play, through every form of writing a row that names a column, one column or several. The guard fires
only for an UPDATE that names one of the deal's columns (games migration 0020), so each column is named alone
here: a column left out of the trigger's list lets its test through."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import connection

import engine
from games import services
from games.models import Hand
from tests.games.helpers import make_table
from tests.security.web_role import refused

pytestmark = pytest.mark.django_db

REFUSAL = "is committed and never changes"


@pytest.fixture
def dealt(club_setup) -> Hand:
    """A Piranha hand in play, its deal committed (signed-cut scheme, dealt through its closed list)."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand.commitment and not hand.is_finished
    return hand


def _deal(hand_id: int) -> tuple[Any, ...]:
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT "commitment", "scheme", "salt", "salts", "deck", "closed_leaves", "cuts", "signed_table", '
            '"version" FROM "games_hand" WHERE "id" = %s',
            [hand_id],
        )
        row = cursor.fetchone()
    assert row is not None
    return row


def _changes(hand: Hand) -> dict[str, tuple[str, object]]:
    """Per column of the deal: the SQL value (with its cast) and a value other than the committed one."""
    salts = list(hand.salts)
    salts[0] = "0" * 32
    return {
        "commitment": ("%s", "0" * 64),
        "scheme": ("%s", engine.SCHEME_CUT if hand.scheme != engine.SCHEME_CUT else "deck-sha256"),
        "salt": ("%s", "forged"),
        "salts": ("%s::jsonb", json.dumps(salts)),
        "deck": ("%s::jsonb", json.dumps([hand.deck[1], hand.deck[0], *hand.deck[2:]])),
        "closed_leaves": ("%s::jsonb", json.dumps({"0": "ab" * 32})),
        "cuts": ("%s::jsonb", json.dumps([{"cut": "0" * 32, "device": "f" * 64, "member_id": 1, "signature": "0"}])),
        "signed_table": ("%s", hand.table_id + 1000),
    }


def test_each_column_of_the_deal_named_alone_isrefused(dealt) -> None:
    before = _deal(dealt.pk)
    for column, (value, param) in _changes(dealt).items():
        assert REFUSAL in refused(f'UPDATE "games_hand" SET "{column}" = {value} WHERE "id" = %s', [param, dealt.pk])  # noqa: S608 - fixed names
    assert _deal(dealt.pk) == before


def test_the_deal_changed_beside_the_steps_columns_or_in_a_row_of_columns_isrefused(dealt) -> None:
    before = _deal(dealt.pk)
    for column, (value, param) in _changes(dealt).items():
        for sql in (
            f'UPDATE "games_hand" SET "version" = "version" + 1, "{column}" = {value} WHERE "id" = %s',  # noqa: S608
            f'UPDATE "games_hand" SET ("{column}", "version") = ({value}, "version") WHERE "id" = %s',  # noqa: S608
            f'UPDATE "games_hand" h SET "{column}" = {value} FROM "games_table" t '  # noqa: S608 - fixed names
            'WHERE t."id" = h."table_id" AND h."id" = %s',
        ):
            assert REFUSAL in refused(sql, [param, dealt.pk]), sql
    assert _deal(dealt.pk) == before


def test_the_deal_changed_by_an_upsert_or_a_merge_isrefused(dealt) -> None:
    before = _deal(dealt.pk)
    for column, (value, param) in _changes(dealt).items():
        upsert = (
            'INSERT INTO "games_hand" SELECT * FROM "games_hand" WHERE "id" = %s '  # noqa: S608 - fixed names
            f'ON CONFLICT ("id") DO UPDATE SET "{column}" = {value}'
        )
        assert REFUSAL in refused(upsert, [dealt.pk, param]), column
        merge = (
            'MERGE INTO "games_hand" h USING (SELECT %s::bigint AS "id") s ON h."id" = s."id" '
            f'WHEN MATCHED THEN UPDATE SET "{column}" = {value}'
        )
        assert REFUSAL in refused(merge, [dealt.pk, param]), column
    assert _deal(dealt.pk) == before


def test_the_step_and_an_unchanged_deal_still_write_the_row(dealt) -> None:
    """What the guard lets through: a step (it names none of the deal's columns) and the deal's columns set to what
    they hold."""
    before = _deal(dealt.pk)
    with connection.cursor() as cursor:
        cursor.execute('UPDATE "games_hand" SET "version" = "version" + 1 WHERE "id" = %s', [dealt.pk])
        cursor.execute(
            'UPDATE "games_hand" SET "deck" = "deck", "salts" = "salts", "commitment" = "commitment", '
            '"version" = "version" + 1 WHERE "id" = %s',
            [dealt.pk],
        )
    assert _deal(dealt.pk) == (*before[:-1], before[-1] + 2)


def test_the_guard_fires_on_every_column_it_compares(db) -> None:
    """The trigger's column list (``BEFORE UPDATE OF``) holds every column its function keeps fixed: a column
    compared but not listed would change unguarded by an UPDATE that names it alone."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.prosrc, ARRAY(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.tgrelid "
            "AND a.attnum = ANY(t.tgattr)) FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
            "WHERE t.tgname = 'games_hand_commitment_fixed' AND t.tgrelid = 'games_hand'::regclass"
        )
        source, listed = cursor.fetchone()
    compared = (set(re.findall(r"NEW\.(\w+)", source)) | set(re.findall(r"OLD\.(\w+)", source))) - {"id"}
    assert {"commitment", "salts", "deck", "cuts"} <= compared
    assert set(listed) == compared
