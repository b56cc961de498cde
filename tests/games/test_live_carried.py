"""A version's frames are rendered from what the action's transaction carried to them (games/selectors/snapshot.py
``Carried``: no advance action when the players' statement found none, the hand that just ended as the last
hand of the one dealt after it) and read only the rest; every frame they send is the one a fresh read
renders, byte for byte in its HTML, whether the member had advance actions or not."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from games import services
from games.live import publish
from games.live.render import private_frame, public_frame
from games.models import Hand
from games.selectors.snapshot import table_snapshot_read
from games.services import advance
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table


@pytest.fixture
def sent(monkeypatch: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every (group, message) the publisher hands over, instead of sending it."""
    batches: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(publish, "groups_send", lambda messages, about: batches.extend(messages))
    return batches


def _frames_match_a_fresh_read(sent: list[tuple[str, dict[str, Any]]], hand: Hand) -> int:
    """Check each frame sent for ``hand``'s current version against a fresh read's; return the privates."""
    publish.announce_flush()
    snapshot = table_snapshot_read(table_id=hand.table_id, hand_id=hand.pk)
    assert snapshot is not None and snapshot.hand is not None
    frames = [json.loads(m["text"]) for _group, m in sent if "text" in m]
    frames = [f for f in frames if f["hand"] == hand.pk and f["version"] == snapshot.hand.version]
    users = {u.pk: u for u in snapshot.hand_users.values()}
    privates = 0
    for frame in frames:
        if frame["type"] == "table.public":
            assert frame["html"] == json.loads(public_frame(snapshot))["html"]
        else:
            user_id = int(next(g for g, m in sent if m.get("text") and json.loads(m["text"]) == frame).rsplit(".")[-1])
            assert frame["parts"] == json.loads(private_frame(snapshot, users[user_id]))["parts"]
            privates += 1
    assert any(f["type"] == "table.public" for f in frames)
    return privates


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_advance_action_reaches_its_owner_and_a_hand_without_any_reads_none(club_setup, sent) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    first = user_at(hand, awaited(hand)[0])
    later = next(u for u in (a, b, c) if u.pk != first.pk)
    advance.advance_set(hand_id=hand.pk, user=later, choice="check", version=0)
    publish.announce_flush()
    sent.clear()
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "bet"}, version=0)  # the check is cancelled
    hand.refresh_from_db()
    assert _frames_match_a_fresh_read(sent, hand) == 3  # a bet: everyone's part changed
    mine = next(json.loads(m["text"]) for g, m in sent if g == publish.mine_group(later.pk) and m["table"] == table.pk)
    assert "Cancelled: <strong>Check</strong>" in mine["parts"]["own_hand"]

    other = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    dealt = services.table_start(table_id=other.pk, user=a)
    publish.announce_flush()  # the deal's frames are made from this very hand object: before it is refreshed
    sent.clear()
    services.hand_act(hand_id=dealt.pk, user=user_at(dealt, awaited(dealt)[0]), action={"type": "bet"}, version=0)
    dealt.refresh_from_db()
    assert _frames_match_a_fresh_read(sent, dealt) == 2


@pytest.mark.django_db(transaction=True)
def test_the_hand_dealt_as_the_last_one_ends_shows_that_one_as_a_fresh_read_does(club_setup, sent) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    for version, user in enumerate((a, b, c)):  # all stay in: a showdown, then the next hand is dealt
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=version)
    following = Hand.objects.get(table=table, number=hand.number + 1)
    assert _frames_match_a_fresh_read(sent, following) == 3  # a deal: every player's part
    public = next(
        json.loads(m["text"])
        for _g, m in sent
        if m.get("type") == "table.public" and json.loads(m["text"])["hand"] == following.pk
    )
    assert f"Last hand ({hand.number})" in public["html"]
