"""The computer players' turns at a practice table (games/services/practice.py): after each commit, one
``computer_turn`` task (games/tasks.py, sent by name: it imports the services it runs) per turn of a computer
seat now awaited, a human-like pause later (games/services/after_commit.py sends them from its thread)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.conf import settings
from django.core.cache import cache

import engine
from accounts.models import User
from games.models import ComputerPlayer, Hand
from games.selectors.states import hand_state
from kernel.task_ref import TaskRef

COMPUTER_TURN = TaskRef("games.tasks.computer_turn")


def computer_turns_schedule(hands: Sequence[tuple[int, int]]) -> int:
    """For each hand just committed at a practice table (id, version): one ``computer_turn`` task for each turn
    of a computer seat now awaited, sent once per turn (the cache remembers it), after about
    ``PRACTICE_PAUSE_SECONDS`` (a human-like pause). Returns how many were sent. Runs after the commit."""
    sent = 0
    for hand_id, _version in hands:
        hand = Hand.objects.filter(pk=hand_id, finished_at__isnull=True, voided_at__isnull=True).first()
        if hand is None:
            continue
        machines = computer_seats(hand)
        if not _member_playing(hand, machines):
            continue  # the computers wait for their member (practice_wake when they are back)
        for seat in engine.to_act(hand_state(hand)):
            began = hand.turn_began(seat)
            began = hand.version if began is None else began
            key = f"computer-turn:{hand_id}:{hand.commitment[:16]}:{seat}:{began}"
            if seat in machines and cache.add(key, 1, timeout=_TURN_KEPT):
                COMPUTER_TURN.apply_async(
                    kwargs={"hand_id": hand_id, "version": hand.version, "seat": seat}, countdown=_pause()
                )
                sent += 1
    return sent


_TURN_KEPT = 3600  # seconds a sent turn is remembered: far longer than any pause


def _member_playing(hand: Hand, machines: dict[int, ComputerPlayer]) -> bool:
    """Whether the hand's member is dealt in and not away: else the computers would play on by themselves."""
    members = [int(uid) for seat, uid in hand.players.items() if int(seat) not in machines]
    return User.objects.filter(pk__in=members, away=False).exists()


def _pause() -> float:
    """A second or two, as a person takes; the same whatever the computer decides (it tells nothing)."""
    pause = float(settings.PRACTICE_PAUSE_SECONDS)
    return pause * random.uniform(0.75, 1.25)  # noqa: S311 - a pause, not a secret


def computer_seats(hand: Hand) -> dict[int, ComputerPlayer]:
    """The computer players dealt into ``hand``, by seat."""
    ids = {int(uid): int(seat) for seat, uid in hand.players.items()}
    return {ids[c.user_id]: c for c in ComputerPlayer.objects.select_related("user").filter(user_id__in=ids)}
