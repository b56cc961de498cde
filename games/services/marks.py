"""Which seats' own parts of the live table change at a step of a hand (docs/live.md "When a member's own
part changes").

Worked out from public facts only (the spectator's view before and after, and who moved), so that which
members are sent a private frame, and the marks every screen is shown, tell nothing a spectator does
not see: a sealed decision changes its decider's part alone, whatever they chose.
"""

from __future__ import annotations

from collections.abc import Iterable

import engine


def _public_moment(view: engine.HandView) -> tuple[object, ...]:
    """What, when it moves, changes every seat's own part: the phase, the stage, the board and the betting
    round (a seat's best hand, what it owes and what it may set in advance all follow them)."""
    betting = view.betting
    return (
        view.phase,
        view.stage,
        view.board,
        None if betting is None else (betting.bet_size, betting.current, betting.raises),
    )


def private_changed(before: engine.State, after: engine.State, acted: int) -> set[int] | None:
    """The seats whose own part changes when ``acted`` moves from ``before`` to ``after``; None: every
    seat's (the hand is over, or the phase, stage, board or betting round moved)."""
    if engine.is_over(after):
        return None
    was, now = engine.view(before, None), engine.view(after, None)
    if _public_moment(was) != _public_moment(now):
        return None
    return {acted} | (set(was.to_act) ^ set(now.to_act))


def marks_after(
    marks: dict[str, int], changed: set[int] | None, seats: Iterable[str | int], version: int
) -> dict[str, int]:
    """The hand's marks once the seats ``changed`` (None: all of ``seats``) changed at ``version``."""
    out = dict(marks)
    for seat in seats if changed is None else changed:
        out[str(seat)] = version
    return out
