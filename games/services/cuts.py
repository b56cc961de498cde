"""The cut (docs/fairness.md): the seated members' cuts of the decks committed ahead (games/services/decks.py),
each signed by one of the member's registered device keys, and the deal that waited for one (house rule
``cut_required``).

A cut is RSASSA-PKCS1-v1_5/SHA-256 by the member's device over the deal's scheme, table, deal number and root;
its value is SHA-256 of the signature cut to 128 bits: one value per device and deal, which the server cannot
compute and the member cannot choose. One cut per member per deal; a device cuts only decks committed after it
was registered (so a device made after the root is read cannot grind the deal). PostgreSQL checks the same
(games migration 0016), so the web's own role cannot write a cut that is not a member's device's.

Lock order: the table row (the deal holds it), then the deck's row. ``cut_take`` locks only the deck's row,
which the deal and the list's close also lock: a cut is either in the closed list or refused as late.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import DatabaseError, transaction

import engine
from accounts.models import DeviceKey, User
from games.models import ComputerPlayer, CutComplaint, CutList, DeckAhead, DeviceCut, Hand, Seat, Table
from games.services.after_commit import on_commit_work
from games.services.dealing import hand_deal
from games.services.hands import hand_settle
from kernel.errors import DomainError

_FINGERPRINT = re.compile(r"^[0-9a-f]{64}$")
_SIGNATURE = re.compile(r"^[0-9a-f]{512}$")
EVIDENCE_MAX = 16 * 1024  # bytes of JSON a complaint keeps


class CutRefused(DomainError):
    def __init__(self, message: str, *, deal: int | None = None) -> None:
        super().__init__(message)
        self.deal = deal


@dataclass(frozen=True)
class CutReceipt:
    """The acknowledgement a browser keeps with its cut (docs/fairness.md "Protocol" 5)."""

    table_id: int
    number: int
    scheme: str
    root: str
    device: str
    cut: str
    at: str
    id: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table_id,
            "deal": self.number,
            "scheme": self.scheme,
            "root": self.root,
            "device": self.device,
            "cut": self.cut,
            "at": self.at,
            "id": self.id,
        }


def deal_waiting_deal(*, table_id: int, number: int) -> Hand | None:
    """Deal ``number`` of a table that waited for a cut (house rule ``cut_required``), once it was cut or its
    clock ran out; None when it is not waiting any more (dealt, the table moved on) or still waits.
    Idempotent: the alarm and each cut call it. Opens the durable transaction and locks the table row."""
    with transaction.atomic(durable=True):
        table = Table.objects.select_for_update(of=("self",)).select_related("rule_version").filter(pk=table_id).first()
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


def cut_take(*, table_id: int, user: User, number: object, device: object, signature: object) -> CutReceipt:
    """Record ``user``'s cut of coming deal ``number`` at table ``table_id``: ``signature`` (512 lowercase hex) by
    their device ``device`` (its 64-hex fingerprint) over the deal's message, which the server rebuilds from its
    own table id, deal, scheme and root. Returns its receipt; the same cut sent again returns the same receipt.
    Raises CutRefused, in words for the member, for anything else."""
    deal = number if type(number) is int and 0 < number < 2**31 else None
    if deal is None:
        raise CutRefused("That is not a deal number.")
    if not isinstance(device, str) or not _FINGERPRINT.match(device):
        raise CutRefused(
            "A cut names the device that signed it: this browser's key fingerprint (64 hex digits).", deal=deal
        )
    if not isinstance(signature, str) or not _SIGNATURE.match(signature):
        raise CutRefused("A cut is the signature of this browser's key (512 hex digits).", deal=deal)
    with transaction.atomic(durable=True):
        ahead = DeckAhead.objects.select_for_update().filter(table_id=table_id, number=deal).first()
        if ahead is None or ahead.dealt_at is not None:
            raise CutRefused(
                f"Deal {deal} is not coming: it was dealt already, or its deck is not committed yet.", deal=deal
            )
        if ahead.scheme != engine.SCHEME_CUT_V2:
            raise CutRefused(f"Deal {deal}'s deck was committed before signed cuts: it cannot be cut.", deal=deal)
        if not Seat.objects.filter(table_id=table_id, user=user, left_at__isnull=True).exists() or (
            ComputerPlayer.objects.filter(user=user).exists()
        ):
            raise CutRefused("Only a member seated at the table can cut its deals.", deal=deal)
        key = DeviceKey.objects.filter(fingerprint=device).first()
        if key is None or key.user_id != user.pk:
            raise CutRefused(
                "That device is not registered in your name: this browser registers its key on your profile page.",
                deal=deal,
            )
        if key.retired_at is not None:
            raise CutRefused(f"Device {key.short} is retired: it no longer cuts your deals.", deal=deal)
        value = engine.cut_of_signature(signature)
        mine = DeviceCut.objects.filter(deck=ahead, user=user).select_related("device").first()
        if mine is not None and mine.value == value:
            return _receipt(ahead, mine)  # sent again (a reload, a second socket): the same receipt
        if mine is not None:
            raise CutRefused(
                f"You cut deal {deal} already, from device {mine.device.short} (one cut per member per deal). "
                "If that device is not yours, tell your organisers.",
                deal=deal,
            )
        if CutList.objects.filter(deck=ahead).exists():
            raise CutRefused(
                f"The cuts of deal {deal} closed when the hand before it was dealt; the next deal is open.", deal=deal
            )
        if key.registered_at >= ahead.created_at:
            raise CutRefused(
                f"Device {key.short} was registered after deal {deal}'s deck was committed, so it cannot cut that "
                "deal: it cuts the deals committed after it (the next from the coming deal on).",
                deal=deal,
            )
        message = engine.cut_message(scheme=ahead.scheme, table_id=table_id, deal=deal, root=ahead.root)
        if not engine.rsa_signature_holds(key.n, key.e, message, signature):
            raise CutRefused(
                f"That signature does not verify under device {key.short} for deal {deal} of this table and its "
                "root: the cut is refused.",
                deal=deal,
            )
        try:
            with transaction.atomic():
                cut = DeviceCut.objects.create(deck=ahead, user=user, device=key, signature=signature, value=value)
        except DatabaseError as exc:  # PostgreSQL's guard, or another cut of this member at the same moment
            raise CutRefused(f"That cut of deal {deal} could not be kept: send it again.", deal=deal) from exc
        cut.refresh_from_db(fields=["received_at"])  # the database's clock dated it
        if ahead.wait_until is not None:  # the deal waited for a cut (house rule): it goes now
            transaction.on_commit(partial(deal_waiting_deal, table_id=table_id, number=ahead.number))
    return _receipt(ahead, cut, device=key)


def _receipt(ahead: DeckAhead, cut: DeviceCut, device: DeviceKey | None = None) -> CutReceipt:
    return CutReceipt(
        table_id=ahead.table_id,
        number=ahead.number,
        scheme=ahead.scheme,
        root=ahead.root,
        device=(device or cut.device).fingerprint,
        cut=cut.value,
        at=cut.received_at.isoformat(),
        id=cut.pk,
    )


COMPLAINT_KINDS = frozenset(CutComplaint.Kind.values)


def cut_complaint_file(*, table_id: int, user: User, deal: object, kind: object, evidence: object) -> CutComplaint:
    """Keep a member's browser's complaint about deal ``deal`` of the table, with its evidence (the caller checked
    the member may watch the table). Raises CutRefused for a malformed one."""
    if type(deal) is not int or not 0 < deal < 2**31:
        raise CutRefused("Name the deal the complaint is about.")
    if not isinstance(kind, str) or kind not in COMPLAINT_KINDS:
        raise CutRefused("A complaint is one of: missing, unknown-device, other-root, refused.", deal=deal)
    if not isinstance(evidence, dict) or len(json.dumps(evidence)) > EVIDENCE_MAX:
        raise CutRefused(f"The evidence is a JSON object of at most {EVIDENCE_MAX // 1024} KB.", deal=deal)
    with transaction.atomic(durable=True):
        return CutComplaint.objects.create(table_id=table_id, deal=deal, user=user, kind=kind, evidence=evidence)
