"""The cut: decks committed ahead of their deals, and the seated members' cuts of them.

DESIGN.md "Engine contract": a table keeps ``DECKS_AHEAD`` decks drawn ahead, each bound to its deal number
and to the id its hand will take (every leaf binds it), with only its Merkle root published. While a deal
is coming, each seated member's browser sends a random 128-bit cut; at the deal every cut received is used
and the order dealt is the committed deck permuted by the root and the cuts (games/engine/verify.py).

Lock order: the table row (the deal holds it), then the deck's row. ``cut_take`` locks only the deck's row,
which the deal also locks before it reads the cuts, so a cut is either in the deal or refused as late.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.models import User
from config.errors import DomainError
from games import engine
from games.models import DealCut, DeckAhead, Seat, Table
from games.services.proof import deal_salts

DECKS_AHEAD = 2  # the next deal and the one after: a cut can reach a deal dealt the moment a hand ends
CUTS_PER_MEMBER = 3  # per deal: a second device or a reload may cut again; more is noise
_NEXT_HAND_ID = "SELECT nextval(pg_get_serial_sequence('\"games_hand\"', 'id'))"


class CutRefused(DomainError):
    pass


@dataclass(frozen=True)
class CutReceipt:
    """The acknowledgement a browser keeps with its cut: the deal, its root, the cut, when it was received."""

    table_id: int
    number: int
    root: str
    cut: str
    at: str
    id: int

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table_id, "deal": self.number, "root": self.root, "cut": self.cut, "at": self.at,
                "id": self.id}


def _deck_draw(*, table: Table, number: int) -> DeckAhead:
    """Draw, commit and store the deck for deal ``number`` (its hand's id reserved now)."""
    from games.services.dealing import deck_for_new_hand  # the CSPRNG shuffle lives with the deal

    with connection.cursor() as cursor:
        cursor.execute(_NEXT_HAND_ID)
        hand_id = int(cursor.fetchone()[0])
    deck, salts = deck_for_new_hand(), deal_salts()
    return DeckAhead.objects.create(table=table, number=number, hand_id=hand_id, deck=deck, salts=salts,
                                    root=engine.merkle_root(hand_id, deck, salts))


def decks_ahead_fill(*, table: Table, first: int) -> None:
    """Make sure deals ``first`` .. ``first + DECKS_AHEAD - 1`` of ``table`` have their decks committed.
    Expects the table row locked in an open transaction."""
    have = set(DeckAhead.objects.filter(table=table, number__gte=first, number__lt=first + DECKS_AHEAD)
               .values_list("number", flat=True))
    for number in range(first, first + DECKS_AHEAD):
        if number not in have:
            _deck_draw(table=table, number=number)


def deck_ahead_deal(*, table: Table, number: int) -> tuple[DeckAhead, list[dict[str, Any]]]:
    """The deck committed for deal ``number`` (drawn now if none was: nobody could cut it) and every cut
    received for it, in the order received; closes its cuts. Expects the table row locked."""
    ahead = DeckAhead.objects.select_for_update().filter(table=table, number=number).first()
    if ahead is None:
        ahead = _deck_draw(table=table, number=number)
    cuts = [{"cut": c.value, "by": c.user_id, "at": c.received_at.isoformat()}
            for c in DealCut.objects.filter(deck=ahead).order_by("pk")]
    ahead.dealt_at = timezone.now()
    ahead.save(update_fields=["dealt_at"])
    return ahead, cuts


def deck_ahead_set_aside(*, table: Table, number: int) -> None:
    """Close the cuts of deal ``number`` without dealing its deck (a test's fixed deck took its place).
    Expects the table row locked."""
    DeckAhead.objects.filter(table=table, number=number, dealt_at__isnull=True).update(dealt_at=timezone.now())


def cut_take(*, table_id: int, user: User, number: object, value: object) -> CutReceipt:
    """Record ``user``'s cut ``value`` (32 lowercase hex digits) of coming deal ``number`` at table
    ``table_id`` and return its receipt. Raises CutRefused for a malformed cut, a member not seated there,
    a deal not coming (dealt, or no root published yet), or one cut too many."""
    if not engine.is_cut_value(value):
        raise CutRefused("A cut is 128 random bits, written as 32 lowercase hex digits.")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 2 ** 31:
        raise CutRefused("That is not a deal number.")
    with transaction.atomic(durable=True):
        ahead = (DeckAhead.objects.select_for_update()
                 .filter(table_id=table_id, number=number, dealt_at__isnull=True).first())
        if ahead is None:
            raise CutRefused("That deal is not coming: it was dealt already, or its deck is not committed yet.")
        if not Seat.objects.filter(table_id=table_id, user=user, left_at__isnull=True).exists():
            raise CutRefused("Only a member seated at the table can cut its deals.")
        if DealCut.objects.filter(deck=ahead, user=user).count() >= CUTS_PER_MEMBER:
            raise CutRefused(f"You have cut this deal {CUTS_PER_MEMBER} times already.")
        try:
            with transaction.atomic():
                cut = DealCut.objects.create(deck=ahead, user=user, value=str(value))
        except IntegrityError as exc:
            raise CutRefused("That cut was received already.") from exc
    return CutReceipt(table_id=table_id, number=ahead.number, root=ahead.root, cut=cut.value,
                      at=cut.received_at.isoformat(), id=cut.pk)
