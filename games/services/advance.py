"""Advance actions: what a player chose to do when their turn comes, set before it comes.

Private to their owner: stored in ``AdvanceAction`` rows, read for the table area only as the
owner's own rows (``TableSnapshot.advance_rows_of``, games/selectors/advance.py ``advance_split``), never put in a hand view, never sent through a
group, and setting one changes neither the hand's version nor anything another member can see.

Choices (``kind`` "bet" for the next betting turn, "sealed" for the drop or the declaration):

=============  ============================================================================
check          check when my turn comes; cancelled if a bet is made first (I would owe)
check_fold     check if it is free, else fold
call           call the amount I owe now; cancelled if that amount or the round changes
call_any       call whatever I owe (check if it is free)
fold           fold
in / out       my sealed Piranha drop (set during the optional betting round)
high/low/pig   my sealed Piles declaration (set during the betting rounds); "declare_fold" folds
=============  ============================================================================

Applied by ``games.services.hands`` inside the transaction that made it my turn (the hand row
locked), as my own action; cancelled there, with a reason I am shown on the table page, the
moment the situation it assumed changes.
"""

from __future__ import annotations

from django.db import transaction

import engine
from accounts.models import User
from games.models import AdvanceAction
from games.selectors.advance import BET, AdvanceChoice, Choice, advance_owed, advance_stage, choices_for
from games.services.locking import hand_lock, hand_lock_seated
from kernel.errors import DomainError


class AdvanceRefused(DomainError):
    """The advance action cannot be set (message fit for the member)."""


def _my_view(state: engine.State, seat: int) -> engine.HandView:
    return engine.view(state, seat)


# ---- the service's hooks (the hand row locked) --------------------------------------------------


def _stale_reason(row: AdvanceAction, view: engine.HandView) -> str | None:
    """Why ``row``'s assumption no longer holds in ``view`` (the owner's view), or None."""
    me = view.seat_view(row.seat)
    if view.phase == "over":
        return "The hand ended before your turn."
    if me is None or me.status != "active":
        return "You are no longer in the hand."
    if row.kind == BET:
        if view.phase != "betting":
            return "The betting ended before your turn."
        owed = advance_owed(view)
        if row.choice == AdvanceChoice.CHECK and owed > 0:
            return "Someone bet after you chose to check, so your check was cancelled. Choose again."
        if row.choice == AdvanceChoice.CALL and (owed != row.owed or advance_stage(view) != row.stage):
            return "The bet changed after you chose to call. Choose again."
    return None


def cancel_stale(*, state: engine.State, rows: list[AdvanceAction]) -> None:
    """Cancel (with a reason for the owner) every pending advance action whose assumption broke.

    ``rows``: the hand's advance actions read under this lock (``advance_pending``), kept up to date here and
    by ``take_due``. Expects the hand row locked in an open transaction.
    """
    for row in _pending(rows):
        reason = _stale_reason(row, _my_view(state, row.seat))
        if reason:
            row.status = AdvanceAction.Status.CANCELLED
            row.reason = reason
            row.save(update_fields=["status", "reason", "updated_at"])


def _action_for(row: AdvanceAction, state: engine.State, seat: int) -> engine.Action | None:
    """The legal action ``row`` stands for now that ``seat`` is awaited, or None (not this decision)."""
    legal = engine.legal_actions(state, seat)
    by_type = {a.type: a for a in legal}
    phase = state.phase
    if row.kind == BET:
        if phase != "betting":
            return None
        # Each choice's actions, the first legal one taken.
        for kind in _BET_ACTIONS.get(row.choice, ()):
            if kind in by_type:
                return by_type[kind]
        return None
    if phase == "drop" and row.choice in (AdvanceChoice.IN, AdvanceChoice.OUT):
        return by_type.get(row.choice)
    if phase == "declare":
        if row.choice == AdvanceChoice.DECLARE_FOLD:
            return by_type.get(engine.ActionKind.FOLD)
        return next((a for a in legal if a.type == engine.ActionKind.DECLARE and a.choice == row.choice), None)
    return None


_BET_ACTIONS: dict[str, tuple[engine.ActionKind, ...]] = {
    AdvanceChoice.CHECK: (engine.ActionKind.CHECK,),
    AdvanceChoice.CHECK_FOLD: (engine.ActionKind.CHECK, engine.ActionKind.FOLD),
    AdvanceChoice.CALL: (engine.ActionKind.CALL,),
    AdvanceChoice.CALL_ANY: (engine.ActionKind.CALL, engine.ActionKind.CHECK),
    AdvanceChoice.FOLD: (engine.ActionKind.FOLD,),
}


def _pending(rows: list[AdvanceAction]) -> list[AdvanceAction]:
    return [row for row in rows if row.status == AdvanceAction.Status.PENDING]


def take_due(*, state: engine.State, seat: int, rows: list[AdvanceAction]) -> engine.Action | None:
    """If ``seat`` (awaited now) set an advance action for this decision, mark it applied and return
    the engine action; None otherwise. ``rows``: as for ``cancel_stale``. Expects the hand row locked
    (run ``cancel_stale`` first)."""
    for row in _pending(rows):
        if row.seat != seat:
            continue
        action = _action_for(row, state, seat)
        if action is not None:
            row.status = AdvanceAction.Status.APPLIED
            row.save(update_fields=["status", "updated_at"])
            return action
    return None


# ---- set and cancel (views call these) ------------------------------------------------------------


def advance_set(*, hand_id: int, user: User, choice: str, version: int) -> AdvanceAction:
    """Set (or replace) ``user``'s advance action in hand ``hand_id``, made against ``version``.

    Opens the durable transaction and locks the hand row; announces nothing (it is private).
    Raises NotSeated, StaleVersion (the table moved on: choose again), AdvanceRefused.
    """
    with transaction.atomic(durable=True):
        hand, seat, state = hand_lock_seated(hand_id=hand_id, user=user, version=version)
        if seat in engine.to_act(state):
            raise AdvanceRefused("It is your turn now: choose your action.")
        offered: dict[str, Choice] = {c.choice: c for c in choices_for(state, seat)}
        picked = offered.get(choice)
        if picked is None:
            raise AdvanceRefused("That choice cannot be made in advance now.")
        view = _my_view(state, seat)
        AdvanceAction.objects.filter(
            hand=hand, seat=seat, kind=picked.kind, status=AdvanceAction.Status.PENDING
        ).update(status=AdvanceAction.Status.CANCELLED, reason="")
        return AdvanceAction.objects.create(
            hand=hand,
            seat=seat,
            user=user,
            kind=picked.kind,
            choice=choice,
            owed=advance_owed(view),
            stage=advance_stage(view),
        )


def advance_cancel(*, hand_id: int, user: User) -> int:
    """Withdraw ``user``'s pending advance actions in the hand; returns how many. Locks the hand row."""
    with transaction.atomic(durable=True):
        hand = hand_lock(hand_id=hand_id)
        if hand is None:
            return 0
        return AdvanceAction.objects.filter(hand=hand, user=user, status=AdvanceAction.Status.PENDING).update(
            status=AdvanceAction.Status.CANCELLED, reason=""
        )
