"""Reads of advance actions (games/services/advance.py): only their owner's, never in a hand view or a group."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.models import AdvanceAction, Hand


def advance_pending_any(*, hand: Hand) -> bool:
    """Whether any advance action of ``hand`` is pending (one query; the service asks under the hand's lock)."""
    return AdvanceAction.objects.filter(hand=hand, status=AdvanceAction.Status.PENDING).exists()


def advance_for(*, hand: Hand, user: User) -> dict[str, Any]:
    """The owner's own advance actions in ``hand``: pending ones, and cancellations to tell them about
    (those with a reason, newer than any later choice of the same kind)."""
    return advance_split(list(AdvanceAction.objects.filter(hand=hand, user=user).order_by("-pk")))


def advance_split(rows: list[AdvanceAction]) -> dict[str, Any]:
    """``advance_for`` of one member's rows of a hand, newest first (already read)."""
    pending = [r for r in rows if r.status == AdvanceAction.Status.PENDING]
    cancelled = []
    seen_kinds: set[str] = set()
    for row in rows:
        if row.kind in seen_kinds:
            continue
        seen_kinds.add(row.kind)
        if row.status == AdvanceAction.Status.CANCELLED and row.reason:
            cancelled.append(row)
    return {"pending": pending, "cancelled": cancelled}
