"""The cut: the seated members' cuts of the decks committed ahead (games/services/decks.py), and the deal
that waited for one (house rule ``cut_required``).

docs/design.md "Engine contract": while a deal is coming, each seated member's browser sends a random 128-bit
cut; at the deal every cut received is used and the order dealt is the committed deck permuted by the root and
the cuts (engine/verify.py).

Lock order: the table row (the deal holds it), then the deck's row. ``cut_take`` locks only the deck's row,
which the deal also locks before it reads the cuts, so a cut is either in the deal or refused as late.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction

import engine
from accounts.models import User
from games.models import DealCut, DeckAhead, Hand, Seat, Table
from games.services.after_commit import on_commit_work
from games.services.dealing import hand_deal
from games.services.hands import hand_settle
from kernel.errors import DomainError

CUTS_PER_MEMBER = 3  # per deal: a second device or a reload may cut again; more is noise


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
        return {
            "table": self.table_id,
            "deal": self.number,
            "root": self.root,
            "cut": self.cut,
            "at": self.at,
            "id": self.id,
        }


def deal_waiting_deal(*, table_id: int, number: int) -> Hand | None:
    """Deal ``number`` of a table that waited for a cut (house rule ``cut_required``), once it was cut or its
    clock ran out; None when it is not waiting any more (dealt, the table moved on) or still waits.
    Idempotent: the alarm and each cut call it. Opens the durable transaction and locks the table row."""
    with transaction.atomic(durable=True):
        table = Table.objects.select_for_update().select_related("rule_version").filter(pk=table_id).first()
        waiting = DeckAhead.objects.filter(
            table_id=table_id, number=number, dealt_at__isnull=True, wait_until__isnull=False
        ).exists()
        if (
            table is None
            or not waiting
            or table.status == Table.Status.FINISHED
            or table.hands.filter(finished_at__isnull=True).exists()
            or table.hands.count() != number - 1
        ):
            return None
        hand = hand_deal(table=table, created_by=None)
        if hand is not None:
            on_commit_work(hand_settle(hand=hand, state=engine.state_from_json(hand.state), created_by=None, after=-1))
    return hand


def cut_take(*, table_id: int, user: User, number: object, value: object) -> CutReceipt:
    """Record ``user``'s cut ``value`` (32 lowercase hex digits) of coming deal ``number`` at table
    ``table_id`` and return its receipt. Raises CutRefused for a malformed cut, a member not seated there,
    a deal not coming (dealt, or no root published yet), or one cut too many."""
    if not engine.is_cut_value(value):
        raise CutRefused("A cut is 128 random bits, written as 32 lowercase hex digits.")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 2**31:
        raise CutRefused("That is not a deal number.")
    with transaction.atomic(durable=True):
        ahead = (
            DeckAhead.objects.select_for_update()
            .filter(table_id=table_id, number=number, dealt_at__isnull=True)
            .first()
        )
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
        if ahead.wait_until is not None:  # the deal waited for a cut (house rule): it goes now
            transaction.on_commit(partial(deal_waiting_deal, table_id=table_id, number=ahead.number))
    return CutReceipt(
        table_id=table_id,
        number=ahead.number,
        root=ahead.root,
        cut=cut.value,
        at=cut.received_at.isoformat(),
        id=cut.pk,
    )
