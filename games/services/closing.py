"""Closing a table: an organiser ends a table for good and hands its pot back.

A closed table deals no more hands. A hand still being played is stopped (marked voided by the
closing ruling; its own payments go back with the rest of the pot), every seat is vacated, and
the pot goes back to the members who paid it (ledger_return_pot), as a ruling with its reason.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.utils import timezone

from accounts.models import Membership, User
from games.errors import TableRefused
from games.models import Hand, Table
from games.services.locking import hand_lock
from games.signals import table_changed_publish
from ledger.models import Ruling
from ledger.services import ledger_return_pot


def table_close(*, table_id: int, user: User, reason: str) -> Ruling:
    """Close the table: stop its hand in play, vacate its seats, return its pot; return the ruling.

    Opens the durable transaction; locks the hand in play (if any), then the table, the order of
    the hand services. Raises TableRefused (or LedgerError) with a message for the organiser.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TableRefused("Say why the table is closing: the players read it on their statements.")
    with transaction.atomic(durable=True):
        live_id = Hand.objects.filter(table_id=table_id, finished_at__isnull=True).values_list("pk", flat=True).first()
        live = hand_lock(hand_id=live_id) if live_id else None
        table = Table.objects.select_for_update(of=("self",)).select_related("club").filter(pk=table_id).first()
        if table is None:
            raise TableRefused("There is no such table.")
        if table.practice:  # no ruling, account or pot: its member closes it (games/services/practice.py)
            raise TableRefused("A practice table is its member's own: only they can close it.")
        if not Membership.objects.filter(club=table.club, user=user, role=Membership.Role.ORGANISER).exists():
            raise TableRefused("Only the club's organisers can close a table.")
        if table.status == Table.Status.FINISHED and not table.carry_pot and live is None:
            raise TableRefused("This table has finished already; there is nothing left in its pot.")
        now = timezone.now()
        if live is not None and live.finished_at is None:
            # Nobody may act in it any more; timeouts and sweeps skip voided hands.
            Hand.objects.filter(pk=live.pk).update(finished_at=now, voided_at=now, deadline=None, clocks={})
        ruling = ledger_return_pot(table=table, reason=reason, ruled_by=user, hand=live)
        table.seats.filter(left_at__isnull=True).update(left_at=now)
        table.status, table.finished_at, table.carry_pot = Table.Status.FINISHED, now, 0
        table.save(update_fields=["status", "finished_at", "carry_pot"])
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
    return ruling
