"""An organiser voids a finished hand (a misdeal found late, a ruling): the hand, its table and its books.

The ledger reverses the money (``ledger.services.ledger_reverse_hand``); this module marks the hand
voided, puts what the pot holds back into the table's carry (a game the hand ended is open again
when money is left in its pot) and tells the table's sockets and the club's lobby.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.errors import TableRefused
from games.models import Hand, Table
from games.services.locking import hand_lock
from games.signals import table_changed_publish
from ledger.models import JournalEntry
from ledger.services import ledger_reverse_hand, table_pot_balance


def hand_void(*, hand: Hand, reason: str, ruled_by: User) -> list[JournalEntry]:
    """Void a finished hand by ruling; returns the reversing entries (``hand.voided_at`` is set).

    Locks the hand row, then the table row, then (in the ledger) the accounts: the lock order of
    games/services/locking.py. Raises TableRefused for a practice hand; LedgerError (a DomainError) when the
    ruler is not an organiser, the reason is blank, the hand is still being played, already voided, or a
    later hand built on it.
    """
    with transaction.atomic():
        locked = hand_lock(hand_id=hand.pk)
        if locked is None:
            raise Hand.DoesNotExist("Hand matching query does not exist.")
        table = Table.objects.select_for_update(of=("self",)).select_related("club").get(pk=locked.table_id)
        if table.practice:  # docs/design.md "Engine contract": practice never touches the books, rulings included
            raise TableRefused("A practice hand moved no money: there is nothing to void.")
        entries = ledger_reverse_hand(hand=locked, table=table, reason=reason, ruled_by=ruled_by)
        now = timezone.now()
        Hand.objects.filter(pk=locked.pk).update(voided_at=now)
        hand.voided_at = now
        if not table.hands.filter(finished_at__isnull=True).exists():
            # No hand is running, so every cent in the pot account waits for the next hand.
            table.carry_pot = table_pot_balance(table=table)
            fields = ["carry_pot"]
            if table.status == Table.Status.FINISHED and table.carry_pot:
                # The voided hand ended the game but its pot is back: the game goes on.
                table.status, table.finished_at = Table.Status.OPEN, None
                fields += ["status", "finished_at"]
            table.save(update_fields=fields)
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
    return entries
