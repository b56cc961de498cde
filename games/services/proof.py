"""Writes of the shuffle proof: the deal's salts and an organiser's ruling that opens a hand.

docs/design.md "Engine contract": every deck position gets its own salt from the operating system's
CSPRNG at the deal; after the hand the board and the shown hands are opened to all, each player
opens their own hole cards, and the rest is opened only by an organiser's logged ruling.
"""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction

from accounts.access import membership_of
from accounts.models import User
from engine.commitment import DECK_SIZE, SALT_BYTES
from games.models import HandDispute
from games.services.locking import hand_lock
from kernel.errors import DomainError, PermissionDenied

REASON_MAX = 2000


class DisputeRefused(DomainError):
    pass


def deal_salts() -> list[str]:
    """52 fresh salts of 128 bits each from ``secrets`` (the OS CSPRNG), one per deck position."""
    return [secrets.token_hex(SALT_BYTES) for _ in range(DECK_SIZE)]


def hand_dispute_open(*, hand_id: int, user: User, reason: str) -> HandDispute:
    """Open every card of a finished hand to its players by an organiser's ruling with a reason.

    An older hand (one commitment of the whole deck) is opened the same way: its whole deck is then shown
    to the same people. Raises PermissionDenied for anyone but an organiser of the hand's club,
    DisputeRefused for a hand still being played, one read from a club export without its closed cards,
    one already opened, or no reason.
    """
    reason = reason.strip()
    with transaction.atomic(durable=True):
        hand = hand_lock(hand_id=hand_id, read=("table",))
        if hand is None:
            raise DisputeRefused("There is no such hand.")
        membership = membership_of(user=user, club_id=hand.table.club_id)
        if membership is None or not membership.is_organiser:
            raise PermissionDenied("Only the club's organisers can open a hand by a ruling.")
        if not hand.is_finished:
            raise DisputeRefused("That hand is still being played; it can be opened once it ends.")
        if hand.closed_leaves:
            raise DisputeRefused(
                "That hand came from a club export, which holds only the cards opened to "
                "everyone: the others are not on this site to open."
            )
        if not reason:
            raise DisputeRefused("Give the reason for opening the hand: the players will read it.")
        if len(reason) > REASON_MAX:
            raise DisputeRefused(f"Keep the reason to {REASON_MAX} characters.")
        if HandDispute.objects.filter(hand=hand).exists():
            raise DisputeRefused("That hand has already been opened by a ruling.")
        try:
            with transaction.atomic():
                return HandDispute.objects.create(hand=hand, reason=reason, ruled_by=user)
        except IntegrityError as exc:  # the one-to-one: a second ruling lost a race
            raise DisputeRefused("That hand has already been opened by a ruling.") from exc
