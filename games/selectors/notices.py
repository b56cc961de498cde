"""Reads for turn notices: the tables waiting for a member, and their push settings and browsers."""

from __future__ import annotations

from accounts.models import Membership, User
from games.models import Hand, PushChoice, PushSubscription, Table
from games.selectors.hands import hand_seat_of, hand_to_act


def tables_my_turn(*, user: User) -> list[Table]:
    """Tables of the member's clubs whose hand in play awaits their decision, the soonest clock first (then
    the oldest table)."""
    clubs = Membership.objects.filter(user=user).values("club_id")
    hands = (
        Hand.objects.filter(
            finished_at__isnull=True,
            voided_at__isnull=True,
            table__club_id__in=clubs,
            table__seats__user=user,
            table__seats__left_at__isnull=True,
        )
        .select_related("table")
        .distinct()
        .order_by("deadline", "table_id")
    )
    return [hand.table for hand in hands if hand_seat_of(hand=hand, user=user) in hand_to_act(hand=hand)]


def push_choice_of(*, user: User) -> PushChoice:
    """The member's push settings per kind of notice; the defaults (unsaved) until they save some."""
    return PushChoice.objects.filter(user=user).first() or PushChoice(user=user)


def push_browser_count(*, user: User) -> int:
    """How many browsers receive the member's push notices."""
    return PushSubscription.objects.filter(user=user).count()
