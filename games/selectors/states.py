"""The engine state of each (hand, version) this process committed, so that neither the next action on the
hand here (games/services/locking.py) nor the table area's snapshot of that version
(games/selectors/snapshot.py) parses it again. Every change of a hand's state bumps its version under the
hand row's lock (games/services/hands.py ``_record_step``), so a committed version names exactly one state;
states are immutable, so one object serves every thread (kernel/pools.py: a forked child keeps them)."""

from __future__ import annotations

import engine
from games.models import Hand
from kernel.pools import ProcessCache

_STATES: ProcessCache[tuple[int, int], engine.State] = ProcessCache("hand states", held=512)


def hand_state_remember(*, hand_id: int, version: int, state: engine.State) -> None:
    """Keep ``state`` as hand ``hand_id``'s at ``version``: call only once that version is committed."""
    _STATES.put((hand_id, version), state)


def hand_state_kept(*, hand_id: int, version: int) -> engine.State | None:
    """Hand ``hand_id``'s state at ``version`` if this process keeps it (``hand_state`` would not parse it)."""
    return _STATES.get((hand_id, version))


def hand_state(hand: Hand) -> engine.State:
    """The engine state of ``hand`` as loaded: the one this process committed for its version, else parsed."""
    known = _STATES.get((hand.pk, hand.version))
    return known if known is not None else engine.state_from_json(hand.state)
