"""The decks committed ahead of their deals (docs/design.md "Engine contract"): a table keeps ``DECKS_AHEAD``
decks drawn ahead, each bound to its deal number and to the id its hand will take (every leaf binds it), with
only its Merkle root published; games/services/cuts.py takes the members' signed cuts.

docs/fairness.md "Protocol" 6: a deal's list of cuts closes in public, when the hand before it is dealt (the
first deal's at its own deal), and the deal uses exactly that closed list (PostgreSQL writes it and holds the
hand to it). Under the house rule ``cut_required`` a list still empty then stays open, and its deal waits for
a cut (one turn clock) and closes it at the deal.

Lock order: the table row (the deal holds it), then the deck's row.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

import engine
from games.errors import TableRefused
from games.models import CutList, DealCut, DeckAhead, DeviceCut, Table
from games.services.proof import deal_salts
from kernel.task_ref import TaskRef

DECK_WAIT_ALARM = TaskRef("games.tasks.deal_after_cut_wait")  # games/tasks.py, which imports the service it runs
DECKS_AHEAD = 2  # the next deal and the one after: a cut can reach a deal dealt the moment a hand ends
_NEXT_HAND_ID = "SELECT nextval(pg_get_serial_sequence('\"games_hand\"', 'id'))"


class DealWaitsForCut(TableRefused):
    """House rule ``cut_required``: the deal waits until a seated player's browser has cut it."""

    def __init__(self, *, until: datetime | None) -> None:
        when = f" until {until:%H:%M} UTC on {until:%d %b}" if until is not None else ""
        super().__init__(
            "The house rules require a cut before each deal: it waits for a seated player's browser "
            f"to cut it (keep the table open){when}, then is dealt without one."
        )
        self.until = until


def deck_for_new_hand() -> list[str]:
    """A fresh deck from the engine's CSPRNG shuffle, once per deal, committed ahead of it."""
    return list(engine.shuffled_deck())


def _deck_draw(*, table: Table, number: int) -> None:
    """Draw, commit and store the deck for deal ``number``, its hand's id reserved now."""
    with connection.cursor() as cursor:
        cursor.execute(_NEXT_HAND_ID)
        hand_id = int(cursor.fetchone()[0])
    _deck_insert(table=table, number=number, hand_id=hand_id)


def decks_ahead_fill(*, table: Table, first: int) -> None:
    """Make sure deals ``first`` .. ``first + DECKS_AHEAD - 1`` of ``table`` have their decks committed.
    Expects the table row locked."""
    have = set(
        DeckAhead.objects.filter(table=table, number__gte=first, number__lt=first + DECKS_AHEAD).values_list(
            "number", flat=True
        )
    )
    for number in range(first, first + DECKS_AHEAD):
        if number not in have:
            _deck_draw(table=table, number=number)


_DECK_COLUMNS = '"games_deckahead" ("table_id", "number", "hand_id", "deck", "salts", "root", "scheme", "created_at")'
_DECK_VALUES = "%s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s"
_INSERT_DECK = f'INSERT INTO {_DECK_COLUMNS} VALUES ({_DECK_VALUES}) ON CONFLICT ("table_id", "number") DO NOTHING'  # noqa: S608


def _deck_insert(*, table: Table, number: int, hand_id: int) -> None:
    """Draw and commit the deck of deal ``number`` under the reserved ``hand_id``, unless one is there."""
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_DECK, _deck_insert_params(table=table, number=number, hand_id=hand_id))


def _deck_insert_params(*, table: Table, number: int, hand_id: int) -> list[Any]:
    """``_INSERT_DECK``'s parameters: a deck drawn now and committed under ``hand_id``."""
    deck, salts = deck_for_new_hand(), deal_salts()
    return [
        table.pk,
        number,
        hand_id,
        json.dumps(deck),
        json.dumps(salts),
        engine.merkle_root(hand_id, deck, salts, scheme=engine.SCHEME_CUT_V2),
        engine.SCHEME_CUT_V2,
        timezone.now(),  # PostgreSQL sets its own clock's time (games migration 0016)
    ]


CLOSED_BY_PREVIOUS = "previous-deal"  # when the hand before it was dealt
CLOSED_BY_OWN = "own-deal"  # at its own deal: the table's first, or a deal that waited for a cut

# The deal marks its deck dealt and, for a deck of signed cuts, closes its list of cuts unless the hand before
# closed it (PostgreSQL writes the list from the cuts received: games migration 0016), then returns the deck
# and the closed list. The INSERT's trigger takes the deck's row lock, which ``cut_take`` holds while it records
# a cut, and reads the cuts in a snapshot of its own: each cut is in the list or refused.
_DECK_DEALT = (
    'WITH d AS (UPDATE "games_deckahead" SET "dealt_at" = %s WHERE "table_id" = %s AND "number" = %s '
    'AND "dealt_at" IS NULL RETURNING "id", "hand_id", "deck", "salts", "root", "scheme"), '
    'closed AS (INSERT INTO "games_cutlist" ("deck_id", "closed_at", "closed_by", "cuts") '
    "SELECT d.\"id\", %s, 'own-deal', '[]'::jsonb FROM d WHERE d.\"scheme\" = 'merkle-sha256-cut-v2' "
    'ON CONFLICT ("deck_id") DO NOTHING RETURNING "cuts")'
)
_DECK_DEALT_ROW = (
    'SELECT d."id", d."hand_id", d."deck", d."salts", d."root", d."scheme", '
    'COALESCE((SELECT "cuts" FROM closed), (SELECT c."cuts" FROM "games_cutlist" c WHERE c."deck_id" = d."id"))'
)

# At a deal, the list of the deal after it closes (its public moment), unless the house rule ``cut_required``
# keeps an empty one open (never at a practice table), in one statement.
_CLOSE_NEXT_ROWS = (
    'INSERT INTO "games_cutlist" ("deck_id", "closed_at", "closed_by", "cuts") '
    "SELECT n.\"id\", %s, 'previous-deal', '[]'::jsonb FROM \"games_deckahead\" n "
    'WHERE n."table_id" = %s AND n."number" = %s AND n."dealt_at" IS NULL '
    "AND n.\"scheme\" = 'merkle-sha256-cut-v2' "
    'AND (NOT %s OR EXISTS (SELECT 1 FROM "games_devicecut" c WHERE c."deck_id" = n."id"))'
)
_CLOSE_NEXT = f'{_CLOSE_NEXT_ROWS} ON CONFLICT ("deck_id") DO NOTHING'

# The deal's one statement (``deck_ahead_deal``): the above, and once the deal's deck is there, the next deal's
# list closed (``_CLOSE_NEXT``: it closes when the hand before it is dealt, in the deal's transaction as before)
# and the deck of the deal after it drawn (``_INSERT_DECK``) under the id the deal took from the hands' sequence,
# only when the deal's deck holds an older one (hand ids grow with the deals). Each row has its own trigger, as
# before, and the lock order holds: the deal's deck, then the next deal's (its list's trigger locks it).
_DEAL_DECKS = (
    f"{_DECK_DEALT}, "  # noqa: S608 - fixed names
    f'following AS ({_CLOSE_NEXT_ROWS} AND EXISTS (SELECT 1 FROM d) ON CONFLICT ("deck_id") DO NOTHING), '
    f'drawn AS (INSERT INTO {_DECK_COLUMNS} SELECT {_DECK_VALUES} FROM d WHERE d."hand_id" < %s '
    'ON CONFLICT ("table_id", "number") DO NOTHING RETURNING 1) '
    f"{_DECK_DEALT_ROW}, (SELECT COUNT(*) FROM drawn) FROM d"
)


def deck_ahead_deal(
    *, table: Table, number: int, rules: engine.Rules, spare_id: int
) -> tuple[DeckAhead, list[dict[str, Any]], bool]:
    """The deck committed for deal ``number`` (drawn now if none was: nobody could cut it) and the cuts it is
    dealt through: its closed list (closed now if it was still open), sorted by value; for a deck committed
    before signed cuts, its cuts in the order received. Marks the deck dealt. With it, in the same statement:
    the next deal's list closed (``cut_list_close_next``) and, when the deck dealt holds an id older than
    ``spare_id`` (an id the deal took from the hands' sequence), the deck of the deal after next drawn with
    ``spare_id``; the last value says whether it was (if not, ``decks_after_deal`` without a spare id draws what
    is missing). Expects the table row locked."""
    after_next = _deck_insert_params(table=table, number=number + DECKS_AHEAD, hand_id=spare_id)
    row = _deck_close(table=table, number=number, rules=rules, after_next=after_next, spare_id=spare_id)
    if row is None:  # none was drawn for it: drawn now, so nobody could cut it
        _deck_draw(table=table, number=number)
        row = _deck_close(table=table, number=number, rules=rules, after_next=after_next, spare_id=spare_id)
        assert row is not None, f"deal {number} of table {table.pk} was dealt already"
    ahead = DeckAhead(
        pk=row[0],
        table=table,
        number=number,
        hand_id=row[1],
        deck=_json(row[2]),
        salts=_json(row[3]),
        root=row[4],
        scheme=row[5],
    )
    drawn = bool(row[7])
    if ahead.scheme == engine.SCHEME_CUT_V2:
        return ahead, list(_json(row[6])), drawn
    cuts = [
        {"cut": value, "by": by, "at": at.isoformat()}
        for value, by, at in DealCut.objects.filter(deck_id=ahead.pk)
        .order_by("pk")
        .values_list("value", "user_id", "received_at")
    ]
    return ahead, cuts, drawn


def cut_list_close_next(*, table: Table, number: int, rules: engine.Rules) -> None:
    """At the deal of the hand before it, close the list of cuts of deal ``number`` (docs/fairness.md: the
    public moment). Under the house rule ``cut_required`` a list still without a cut stays open: its deal waits
    for one and closes it then. Expects the table row locked."""
    with connection.cursor() as cursor:
        cursor.execute(_CLOSE_NEXT, _close_next_params(table=table, number=number, rules=rules))


def _close_next_params(*, table: Table, number: int, rules: engine.Rules) -> list[Any]:
    keep_empty_open = bool(rules.cut_required and not table.practice)
    return [timezone.now(), table.pk, number, keep_empty_open]


# After a deal: the deck of the deal after next drawn (``_INSERT_DECK``) and the next deal's list closed
# (``_CLOSE_NEXT``), in one statement. They write rows of two different decks, each with its own trigger as
# before (the deck's time and the closed list by PostgreSQL's clock: games migration 0016).
_DRAW_AND_CLOSE_NEXT = f"WITH drawn AS ({_INSERT_DECK} RETURNING 1) {_CLOSE_NEXT}"


def decks_after_deal(*, table: Table, number: int, rules: engine.Rules, spare_id: int | None) -> None:
    """After deal ``number``: the decks of the next ``DECKS_AHEAD`` deals committed (``decks_ahead_fill``) and the
    list of cuts of deal ``number + 1`` closed (``cut_list_close_next``: its public moment). ``spare_id``: an id
    the deal took from the hands' sequence and did not use (its hand took the id reserved with its deck); then
    only the last of those deals is drawn, with that id (the others were drawn at earlier deals; one missing is
    drawn when it is dealt), in the same statement as the closing. Expects the table row locked."""
    if spare_id is None:
        decks_ahead_fill(table=table, first=number + 1)
        cut_list_close_next(table=table, number=number + 1, rules=rules)
        return
    with connection.cursor() as cursor:
        cursor.execute(
            _DRAW_AND_CLOSE_NEXT,
            [
                *_deck_insert_params(table=table, number=number + DECKS_AHEAD, hand_id=spare_id),
                *_close_next_params(table=table, number=number + 1, rules=rules),
            ],
        )


def _deck_close(*, table: Table, number: int, rules: engine.Rules, after_next: list[Any], spare_id: int) -> Any:
    """``_DEAL_DECKS``: close deal ``number``'s deck and its list of cuts, and the next deal's list, and insert the
    deck of the deal after next (``after_next``: its parameters) when the deal's deck is older than ``spare_id``;
    its row (id, hand id, deck, salts, root, scheme, the closed list or None, whether that deck was inserted),
    or None if none was drawn (then nothing is written)."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            _DEAL_DECKS,
            [
                now,
                table.pk,
                number,
                now,
                *_close_next_params(table=table, number=number + 1, rules=rules),
                *after_next,
                spare_id,
            ],
        )
        return cursor.fetchone()


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def deal_waits_for_cut(*, table: Table, number: int, rules: engine.Rules) -> datetime | None:
    """Under the house rule ``cut_required``: when deal ``number`` has no cut yet, the moment until which it
    waits for one (one turn clock from the first time it was due; its alarm set on commit), else None (deal
    it now: it was cut, or it waited its clock out). Expects the table row locked."""
    if not rules.cut_required:
        return None
    ahead = DeckAhead.objects.select_for_update().filter(table=table, number=number, dealt_at__isnull=True).first()
    if ahead is None:
        return None
    signed = ahead.scheme == engine.SCHEME_CUT_V2
    if (
        (signed and DeviceCut.objects.filter(deck=ahead).exists())
        or (not signed and DealCut.objects.filter(deck=ahead).exists())  # a deck committed before signed cuts
        or CutList.objects.filter(deck=ahead).exists()  # closed (empty) already: no cut can come
    ):
        return None
    now = timezone.now()
    if ahead.wait_until is None:
        ahead.wait_until = now + timedelta(seconds=rules.turn_seconds)
        ahead.save(update_fields=["wait_until"])
        transaction.on_commit(partial(_wait_alarm, table_id=table.pk, number=number, at=ahead.wait_until))
    return ahead.wait_until if now < ahead.wait_until else None


def _wait_alarm(*, table_id: int, number: int, at: datetime) -> None:
    DECK_WAIT_ALARM.apply_async((table_id, number), eta=at)


def deck_ahead_set_aside(*, table: Table, number: int) -> int | None:
    """Close the cuts of deal ``number`` without dealing its deck (a test's fixed deck took its place); the
    id reserved for its hand (None: no deck was committed), so hand ids still follow the deals. Expects the
    table row locked."""
    ahead = DeckAhead.objects.select_for_update().filter(table=table, number=number, dealt_at__isnull=True).first()
    if ahead is None:
        return None
    ahead.dealt_at = timezone.now()
    ahead.save(update_fields=["dealt_at"])
    return ahead.hand_id
