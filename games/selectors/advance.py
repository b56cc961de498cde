"""Reads of advance actions (games/services/advance.py): only their owner's, never in a hand view or a group;
and what a seat may set in advance now (``choices_for``), which the service checks a choice against and the
table area offers (games/presentation/area.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import engine
from accounts.money import money
from games.models import AdvanceAction, Hand
from games.selectors.rows import Columns, rows_fetch


class AdvanceKind(StrEnum):
    """Which decision an advance action is for (``AdvanceAction.kind``): one of each per seat and hand."""

    BET = "bet"  # the next betting turn
    SEALED = "sealed"  # the drop or the declaration


class AdvanceChoice(StrEnum):
    """What an advance action does when the turn comes (``AdvanceAction.choice``; games/services/advance.py)."""

    CHECK = "check"
    CHECK_FOLD = "check_fold"
    CALL = "call"
    CALL_ANY = "call_any"
    FOLD = "fold"
    IN = "in"
    OUT = "out"
    HIGH = "high"
    LOW = "low"
    PIG = "pig"
    DECLARE_FOLD = "declare_fold"


BET, SEALED = AdvanceKind.BET, AdvanceKind.SEALED


@dataclass(frozen=True)
class Choice:
    kind: AdvanceKind
    choice: AdvanceChoice
    label: str


#: The owner's words for each choice but a call (which names its amount).
ADVANCE_WORDS: dict[str, str] = {
    AdvanceChoice.CHECK: "Check",
    AdvanceChoice.CHECK_FOLD: "Check, or fold to any bet",
    AdvanceChoice.CALL_ANY: "Call any bet",
    AdvanceChoice.FOLD: "Fold",
    AdvanceChoice.IN: "At the drop: in",
    AdvanceChoice.OUT: "At the drop: out",
    AdvanceChoice.HIGH: "Declare high",
    AdvanceChoice.LOW: "Declare low",
    AdvanceChoice.PIG: "Declare pig (both ways)",
    AdvanceChoice.DECLARE_FOLD: "Fold at the declaration",
}


def advance_owed(view: engine.HandView) -> int:
    """What the seat of ``view`` owes in the betting round now."""
    return (view.betting.to_call or 0) if view.betting is not None else 0


def advance_stage(view: engine.HandView) -> int:
    return view.stage or 0


def choices_for(
    state: engine.State, seat: int, currency: str = "USD", *, view: engine.HandView | None = None
) -> list[Choice]:
    """What ``seat`` may set in advance now: nothing while it is already their turn (they act),
    once they are out of the hand, or when no later decision of theirs can come. ``view``: the seat's
    own view of ``state`` when the caller has it already."""
    if engine.is_over(state) or seat in engine.to_act(state):
        return []
    if view is None or view.you != seat:
        view = engine.view(state, seat)
    me = view.seat_view(seat)
    if me is None or me.status != "active" or view.phase != "betting":
        return []
    out: list[Choice] = []
    owed = advance_owed(view)
    if owed == 0:
        out += [_choice(AdvanceChoice.CHECK), _choice(AdvanceChoice.CHECK_FOLD)]
    else:
        out += [Choice(BET, AdvanceChoice.CALL, f"Call {money(owed, currency)}")]
    out += [_choice(AdvanceChoice.CALL_ANY), _choice(AdvanceChoice.FOLD)]
    if view.game == "piranha":
        out += [_choice(AdvanceChoice.IN, SEALED), _choice(AdvanceChoice.OUT, SEALED)]
    else:
        out += [_choice(c, SEALED) for c in (AdvanceChoice.HIGH, AdvanceChoice.LOW, AdvanceChoice.PIG)]
        out += [_choice(AdvanceChoice.DECLARE_FOLD, SEALED)]
    return out


def _choice(choice: AdvanceChoice, kind: AdvanceKind = BET) -> Choice:
    return Choice(kind, choice, ADVANCE_WORDS[choice])


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


def advance_split(rows: list[AdvanceAction]) -> dict[str, list[AdvanceAction]]:
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
