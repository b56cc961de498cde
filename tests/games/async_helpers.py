"""Helpers of the asynchronous-play tests: overdue clocks, who is awaited."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.utils import timezone

import engine
from accounts.models import User
from games.models import Hand


def expire(hand: Hand, seats: Iterable[int] | None = None, *, ago: float = 1) -> None:
    """Make the clocks of ``seats`` (default: every awaited seat) run out ``ago`` seconds ago."""
    hand.refresh_from_db()
    past = timezone.now() - timedelta(seconds=ago)
    clocks = dict(hand.clocks)
    for seat in seats if seats is not None else [int(s) for s in clocks]:
        clocks[str(seat)] = {**clocks[str(seat)], "deadline": past.isoformat()}
    earliest = min(timezone.datetime.fromisoformat(c["deadline"]) for c in clocks.values())
    Hand.objects.filter(pk=hand.pk).update(clocks=clocks, deadline=earliest)
    hand.refresh_from_db()


def awaited(hand: Hand) -> list[int]:
    hand.refresh_from_db()
    return [] if hand.is_finished else list(engine.to_act(engine.state_from_json(hand.state)))


def seat_of(hand: Hand, user: User) -> int:
    return next(int(s) for s, uid in hand.players.items() if int(uid) == user.pk)


def user_at(hand: Hand, seat: int) -> User:
    return User.objects.get(pk=hand.players[str(seat)])


def piles_turn(setup: Any) -> tuple[Hand, User, int]:
    """A Piles hand of two members of ``setup`` (the club fixture) waiting for its first player:
    (hand, that player, their seat)."""
    from games import services
    from tests.games.helpers import make_table

    a, b, _ = setup.members
    table = make_table(setup.club, setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    seat = awaited(hand)[0]
    return hand, user_at(hand, seat), seat
