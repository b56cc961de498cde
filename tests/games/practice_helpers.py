"""Playing a practice hand in tests: the member's plain choices and the computers' turns run here."""

from __future__ import annotations

import engine
from accounts.models import User
from games.models import Hand, Table
from games.selectors.states import hand_state
from games.services.hands import hand_act
from games.services.practice import computer_act

# The member's plain choice: what costs least and keeps them in the hand.
PLAIN = ("check", "call", "in", "declare")


def plain_action(state: engine.State, seat: int) -> engine.Action:
    legal = engine.legal_actions(state, seat)
    return next((a for kind in PLAIN for a in legal if a.type == kind), legal[0])


def play_out(table: Table, member: User) -> Hand:
    """Play the hand being dealt at ``table`` to its end: the member's plain choices, the computers' turns
    through ``computer_act`` (as their tasks would). Returns the finished hand."""
    hand = Hand.objects.get(table=table, finished_at__isnull=True)
    mine = next(int(s) for s, uid in hand.players.items() if int(uid) == member.pk)
    for _ in range(400):
        hand.refresh_from_db()
        if hand.is_finished:
            return hand
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        if seat == mine:
            hand_act(
                hand_id=hand.pk, table_id=table.pk, user=member, action=plain_action(state, seat), version=hand.version
            )
        else:
            assert computer_act(hand_id=hand.pk, version=hand.version, seat=seat)
    raise AssertionError("the hand did not end")
