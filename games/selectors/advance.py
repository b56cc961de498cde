"""Reads of advance actions (games/services/advance.py): only their owner's, never in a hand view or a group."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.models import AdvanceAction, Hand
from games.selectors.rows import rows_fetch


def advance_pending_any(*, hand: Hand) -> bool:
    """Whether any advance action of ``hand`` is pending (one query; the service asks under the hand's lock)."""
    return AdvanceAction.objects.filter(hand=hand, status=AdvanceAction.Status.PENDING).exists()


_PENDING_SQL = 'SELECT id FROM "games_advanceaction" WHERE hand_id = %s AND status = %s ORDER BY id'


def advance_pending(*, hand: Hand) -> list[AdvanceAction]:
    """The pending advance actions of ``hand``, oldest first: one statement written out once
    (games/selectors/rows.py) when there are none, as almost always on the action's path, which asks on every
    step under the hand's lock."""
    ids = [row[0] for row in rows_fetch(_PENDING_SQL, [hand.pk, AdvanceAction.Status.PENDING.value])]
    return list(AdvanceAction.objects.filter(pk__in=ids).order_by("pk")) if ids else []


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
