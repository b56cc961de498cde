"""Turn clocks of hands: each awaited seat's deadline (the rule set's seconds; quiet hours stop a clock,
away ends it at once: games/timing/turn_clock.py), and a member's new quiet hours moving the clocks they have running."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

import engine
from accounts.models import User
from games.models import Hand
from games.services.after_commit import on_commit_work
from games.services.locking import hand_lock
from games.signals import table_changed_publish
from games.timing import turn_clock
from games.timing.turn_clock import TurnClock, clock_deadline


def clock_member(user: User | None, *, away_counts: bool) -> turn_clock.Member:
    if user is None:
        return turn_clock.Member()
    return turn_clock.Member(
        time_zone=user.time_zone, quiet_start=user.quiet_start, quiet_end=user.quiet_end, away=user.away and away_counts
    )


def away_takes_default(seat_users: Mapping[int, User]) -> bool:
    """Away takes the default action at once only while someone dealt in is not away: a table of
    absentees waits on its ordinary clocks rather than dealing and folding hand after hand."""
    return any(not u.away for u in seat_users.values())


def _turn_seconds(rules: engine.Rules) -> int:
    """The rule set's turn clock, times ``TURN_CLOCK_SCALE`` (1 but in tests and demos)."""
    return max(1, round(rules.turn_seconds * float(getattr(settings, "TURN_CLOCK_SCALE", 1))))


def turn_clocks(
    *,
    rules: engine.Rules,
    state: engine.State,
    version: int,
    seat_users: Mapping[int, User],
    previous: Sequence[int] = (),
    current: Mapping[str, TurnClock] | None = None,
) -> dict[str, TurnClock]:
    """Each awaited seat's clock: {seat: {"deadline": ISO instant, "since": version its turn began,
    "began": ISO instant its turn began}} ("began" feeds the notice sweep, notices/services/turns.py; clocks
    stored before it was added lack it).

    A new turn starts a fresh clock from the rule set's ``turn_seconds`` (games/timing/turn_clock.py: quiet
    hours stop it, away ends it at once). A sealed decision (the drop, the declaration) keeps
    each seat's clock while the awaited seats only shrink.
    """
    awaited = engine.to_act(state)
    if not awaited:
        return {}
    keep = bool(previous) and set(awaited) < set(previous)
    now = timezone.now()
    away_counts = away_takes_default(seat_users)
    out: dict[str, TurnClock] = {}
    for seat in awaited:
        old = (current or {}).get(str(seat))
        if keep and old:
            out[str(seat)] = old.copy()
            continue
        deadline = turn_clock.deadline_for(
            start=now, seconds=_turn_seconds(rules), member=clock_member(seat_users.get(seat), away_counts=away_counts)
        )
        out[str(seat)] = {"deadline": deadline.isoformat(), "since": version, "began": now.isoformat()}
    return out


def earliest_deadline(clocks: Mapping[str, TurnClock]) -> datetime | None:
    """The hand's ``deadline``: the earliest of its seats' clocks (the next moment a timeout is due)."""
    return min((clock_deadline(c) for c in clocks.values()), default=None)


def hands_reclock(*, user: User, before: turn_clock.Member) -> int:
    """``user`` changed their quiet hours or time zone (``before``: the settings their running clocks were
    set with): what remains of each running clock of theirs, counted under ``before``, now runs under the
    new settings (games/timing/turn_clock.py), so a clock stands still in the new quiet hours and no longer in the old.

    Each hand in its own durable transaction with its row locked; the clocks are those of the version
    it holds then, and on commit the hand's alarm is set for the new deadline if that comes before the
    alarm pending (games/services/alarms.py; an alarm that rings early does nothing but set itself
    again). Returns how many hands' clocks moved.
    """
    after = clock_member(user, away_counts=False)
    hand_ids = [
        pk
        for pk, players in Hand.objects.filter(finished_at__isnull=True, voided_at__isnull=True)
        .filter(table__seats__user=user)
        .distinct()
        .values_list("pk", "players")
        if user.pk in {int(uid) for uid in players.values()}
    ]
    moved = 0
    for hand_id in hand_ids:
        with transaction.atomic(durable=True):
            hand = hand_lock(hand_id=hand_id, read=("table",))
            if hand is None or hand.is_finished or hand.voided_at is not None:
                continue
            now = timezone.now()
            clocks = dict(hand.clocks)
            for seat, entry in hand.clocks.items():
                if int(hand.players.get(seat, 0)) != user.pk or clock_deadline(entry) <= now:
                    continue  # another's clock, or due already
                left = turn_clock.running_between(before, now, clock_deadline(entry))
                deadline = turn_clock.deadline_for(start=now, seconds=round(left.total_seconds()), member=after)
                clocks[seat] = {**entry, "deadline": deadline.isoformat()}
            if clocks == hand.clocks:
                continue
            hand.clocks = clocks
            hand.deadline = earliest_deadline(clocks)
            hand.save(update_fields=["clocks", "deadline"])
            on_commit_work([(hand, hand.version)])  # the alarm for the new deadline; no new turn notices
            # The version stays, so the open screens (which skip a version they show already) are told the
            # table changed: each reads the moved clock afresh.
            transaction.on_commit(partial(table_changed_publish, hand.table_id, hand.table.club_id))
            moved += 1
    return moved
