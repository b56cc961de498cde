"""Members and the hands they are dealt into: marked away, or no longer members of the club."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.models import Hand, Seat, Table
from games.selectors.hands import hand_seat_of
from games.services.hands import hand_apply_due
from games.signals import table_changed_publish


def _apply_due_where_dealt_in(*, hands: Iterable[Hand], user: User) -> int:
    """Apply what is due now in each of ``hands`` that deals ``user`` in; returns how many moved on.
    Each hand in its own transaction (hand_apply_due)."""
    return sum(
        1 for hand in hands if hand_seat_of(hand=hand, user=user) is not None and hand_apply_due(hand_id=hand.pk)
    )


def hands_apply_away(*, user: User) -> int:
    """Resolve every unfinished hand that waits for ``user`` now that they are away; returns how many moved."""
    hands = Hand.objects.filter(
        finished_at__isnull=True, voided_at__isnull=True, table__seats__user=user, table__seats__left_at__isnull=True
    ).distinct()
    return _apply_due_where_dealt_in(hands=hands, user=user)


def hands_member_removed(*, user: User, club_id: int) -> int:
    """``user`` is no longer a member of club ``club_id``: their open seats at its tables are left (a
    seat dealt into the hand being played sits out, and is left when the next hand is dealt), and
    their turns in hands being played take the default action at once. Returns how many hands moved.
    Each step opens its own transaction (a table's, then a hand's: the lock order of this module)."""
    table_ids = list(
        Seat.objects.filter(user=user, left_at__isnull=True, table__club_id=club_id).values_list("table_id", flat=True)
    )
    for table_id in table_ids:
        with transaction.atomic(durable=True):
            table = Table.objects.select_for_update().get(pk=table_id)
            seat = table.seats.filter(user=user, left_at__isnull=True).first()
            if seat is None:
                continue
            hand = table.hands.filter(finished_at__isnull=True).only("players").first()
            seat.sitting_out = True
            if hand is None or hand.players.get(str(seat.number)) != user.pk:
                seat.left_at = timezone.now()
            seat.save(update_fields=["sitting_out", "left_at"])
            if seat.left_at is not None:
                # A seat dealt into the hand being played is not announced: a seat change followed at
                # once by that seat's decision would tell the others it took the default (a sealed
                # decision stays sealed); the table shows the seat as it is at its next version.
                transaction.on_commit(partial(table_changed_publish, table.pk, club_id))
    hands = Hand.objects.filter(
        finished_at__isnull=True, voided_at__isnull=True, table__club_id=club_id, table_id__in=table_ids
    )
    return _apply_due_where_dealt_in(hands=hands, user=user)
