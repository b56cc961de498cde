"""Locking a hand for one seated player's move: shared by the action path (games/services/hands.py)
and advance actions (games/advance.py), which both build on it."""

from __future__ import annotations

from accounts.models import User
from games import engine
from games.errors import NotSeated, StaleVersion
from games.models import Hand
from games.selectors import hand_seat_of


def hand_lock_seated(*, hand_id: int, user: User, version: int,
                     with_rules: bool = False) -> tuple[Hand, int, engine.State]:
    """Lock the live hand ``hand_id`` that ``user`` is dealt into, as of ``version``; return it,
    their seat and its state. ``with_rules`` also loads (and so locks) its rule version.

    Expects an open transaction. Raises NotSeated (no such hand, or not dealt in) and
    StaleVersion (finished, voided or moved on).
    """
    rows = Hand.objects.select_for_update()
    if with_rules:
        rows = rows.select_related("rule_version")
    hand = rows.filter(pk=hand_id).first()
    if hand is None:
        raise NotSeated("There is no such hand.")
    seat = hand_seat_of(hand=hand, user=user)
    if seat is None:
        raise NotSeated()
    if hand.is_finished or hand.voided_at is not None or hand.version != version:
        raise StaleVersion(current=hand.version)
    return hand, seat, engine.state_from_json(hand.state)
