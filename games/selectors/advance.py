"""Reads of advance actions (games/services/advance.py): only their owner's, never in a hand view or a group."""

from __future__ import annotations

from typing import Any

from games.models import AdvanceAction, Hand
from games.selectors.rows import Columns, rows_fetch

_ADVANCE = Columns(AdvanceAction, "a")
_PENDING_SQL = (
    f'SELECT {_ADVANCE.sql} FROM "{AdvanceAction._meta.db_table}" a '  # noqa: S608 - fixed columns
    "WHERE a.hand_id = %s AND a.status = %s ORDER BY a.id"
)
_ALL_SQL = (
    f'SELECT {_ADVANCE.sql} FROM "{AdvanceAction._meta.db_table}" a '  # noqa: S608 - fixed columns
    "WHERE a.hand_id = %s ORDER BY a.id DESC"
)


def advance_pending(*, hand: Hand) -> list[AdvanceAction]:
    """The pending advance actions of ``hand``, oldest first: one statement, written out once
    (games/selectors/rows.py); the action's path asks under the hand's lock."""
    return [_ADVANCE.build(row) for row in rows_fetch(_PENDING_SQL, [hand.pk, AdvanceAction.Status.PENDING.value])]


def advance_rows(*, hand_id: int) -> list[AdvanceAction]:
    """Every advance action of hand ``hand_id``, every member's, newest first: one statement, written out
    once (the table area's snapshot reads them at each version and hands each member only their own)."""
    return [_ADVANCE.build(row) for row in rows_fetch(_ALL_SQL, [hand_id])]


def advance_split(rows: list[AdvanceAction]) -> dict[str, Any]:
    """One member's own advance actions from their rows of a hand, newest first: pending ones, and
    cancellations to tell them about (those with a reason, newer than any later choice of the same kind)."""
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
