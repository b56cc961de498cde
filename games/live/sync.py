"""A socket's one full render, on connect and ``sync`` (docs/live.md "Gaps, order, and ``sync``"): the member's
JSON view of the hand, the chat on connect, their private frame when they have a part of their own, and the
public frame, each encoded. Runs in a worker thread; reads the table afresh.
"""

from __future__ import annotations

import time
from typing import cast

import engine
from accounts.models import User
from games.live.frames import ChatHistory, ChatLine, HandView
from games.live.publish import members_with_parts
from games.live.render import private_frame, public_frame
from games.models import Table
from games.selectors.chat import chat_payload, chat_recent
from games.selectors.hands import hand_current, hand_view_for
from games.selectors.snapshot import table_snapshot_read


def everything(table: Table, user: User, *, chat: bool) -> list[str]:
    """The frames of the full render of ``table`` for ``user``, in the order they are sent."""
    out = [view_payload(table, user).encoded()]
    if chat:
        lines = [chat_payload(m) for m in chat_recent(table=table)]
        out.append(ChatHistory(messages=cast(list[ChatLine], lines)).encoded())  # checked: test_frames_schema.py
    snapshot = table_snapshot_read(table_id=table.pk)
    if snapshot is not None:
        at = time.time_ns()
        if any(member.pk == user.pk for member in members_with_parts(snapshot)):
            out.append(private_frame(snapshot, user, at=at))
        out.append(public_frame(snapshot, at=at, full=True))
    return out


def view_payload(table: Table, user: User) -> HandView:
    """``hand.view``: this user's JSON view of the hand being played (or the last one)."""
    hand = hand_current(table=table)
    if hand is None:
        return HandView(
            table=table.pk, hand=None, number=None, version=None, finished=False, your_turn=False, view=None
        )
    view = hand_view_for(hand=hand, user=user)
    return HandView(
        table=table.pk,
        hand=hand.pk,
        number=hand.number,
        version=hand.version,
        finished=hand.is_finished,
        your_turn=not hand.is_finished and view.you is not None and view.you in view.to_act,
        view=engine.view_to_json(view),
    )
