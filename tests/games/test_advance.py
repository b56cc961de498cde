"""Advance actions (games/services/advance.py): applied the moment the turn comes, in the same transaction;
cancelled, with a reason for their owner, when the situation they assumed changes; seen by no one else."""

from __future__ import annotations

import json

import pytest

import engine
from games import services
from games.errors import StaleVersion
from games.models import AdvanceAction, Hand, HandAction
from games.selectors.hands import hand_view_for
from games.services import advance
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table


def start(club_setup, rules: engine.Rules, players: list) -> Hand:
    table = make_table(club_setup.club, club_setup.organiser, rules, players=players)
    return services.table_start(table_id=table.pk, user=players[0])


def waiting_and_other(hand: Hand, users: list) -> tuple:
    """(the user whose turn it is, one who is dealt in and is not awaited)."""
    first = user_at(hand, awaited(hand)[0])
    other = next(u for u in users if u.pk != first.pk)
    return first, other


@pytest.mark.django_db
def test_a_check_set_in_advance_is_applied_when_the_turn_comes(club_setup) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    advance.advance_set(hand_id=hand.pk, user=later, choice="check", version=0)
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "check"}, version=0)
    rows = list(HandAction.objects.filter(hand=hand).order_by("sequence"))
    assert [(r.user_id, r.action, r.is_timeout) for r in rows] == [
        (first.pk, {"type": "check"}, False),
        (later.pk, {"type": "check"}, False),
    ]
    assert AdvanceAction.objects.get(hand=hand).status == AdvanceAction.Status.APPLIED


@pytest.mark.django_db
def test_call_any_bet_calls_the_bet(club_setup) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    advance.advance_set(hand_id=hand.pk, user=later, choice="call_any", version=0)
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "bet"}, version=0)
    last = HandAction.objects.filter(hand=hand).order_by("-sequence").first()
    assert last is not None and last.user_id == later.pk and last.action["type"] == "call"


@pytest.mark.django_db
def test_a_check_is_cancelled_when_someone_bets_and_the_owner_is_told(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    advance.advance_set(hand_id=hand.pk, user=later, choice="check", version=0)
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "bet"}, version=0)
    row = AdvanceAction.objects.get(hand=hand)
    assert row.status == AdvanceAction.Status.CANCELLED and "bet" in row.reason
    assert user_at(hand, awaited(hand)[0]) == later  # nothing applied: their turn waits for them
    assert HandAction.objects.filter(hand=hand).count() == 1
    mine = client_for(later).get(f"/tables/{hand.table_id}/").content.decode()
    assert "Cancelled: <strong>Check</strong>" in mine
    theirs = client_for(first).get(f"/tables/{hand.table_id}/").content.decode()
    assert "Cancelled" not in theirs


@pytest.mark.django_db
def test_a_call_is_cancelled_when_the_bet_is_raised(club_setup) -> None:
    a, b, c = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b, c])
    state = engine.state_from_json(hand.state)
    first = user_at(hand, engine.to_act(state)[0])
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "bet"}, version=0)
    second = user_at(hand, awaited(hand)[0])
    third = next(u for u in (a, b, c) if u.pk not in (first.pk, second.pk))
    advance.advance_set(hand_id=hand.pk, user=third, choice="call", version=1)
    row = AdvanceAction.objects.get(hand=hand)
    assert row.owed == 25
    services.hand_act(hand_id=hand.pk, user=second, action={"type": "raise"}, version=1)
    row.refresh_from_db()
    assert row.status == AdvanceAction.Status.CANCELLED and "bet changed" in row.reason
    assert user_at(hand, awaited(hand)[0]) == third


@pytest.mark.django_db
def test_a_sealed_drop_set_during_the_betting_round_is_applied_at_the_drop(club_setup) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PiranhaRules(betting_round=True), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    advance.advance_set(hand_id=hand.pk, user=later, choice="in", version=0)
    advance.advance_set(hand_id=hand.pk, user=later, choice="check", version=0)
    services.hand_act(hand_id=hand.pk, user=first, action={"type": "check"}, version=0)
    # later's check closed the round; the drop began and later's "in" went in at once: only first waits.
    hand.refresh_from_db()
    rows = list(HandAction.objects.filter(hand=hand).order_by("sequence").values_list("user_id", "action"))
    assert rows == [(first.pk, {"type": "check"}), (later.pk, {"type": "check"}), (later.pk, {"type": "in"})]
    assert [user_at(hand, s) for s in awaited(hand)] == [first]
    # The sealed decision stays sealed: first sees only "decided".
    view = hand_view_for(hand=hand, user=first)
    later_seat = next(s for s in view.seats if s.seat != view.you)
    assert later_seat.decision == "decided"


@pytest.mark.django_db
def test_an_advance_action_is_invisible_to_everyone_else(
    club_setup, client_for, django_capture_on_commit_callbacks
) -> None:
    a, b, c = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    before = {
        u.pk: json.dumps(engine.view_to_json(hand_view_for(hand=hand, user=u)), sort_keys=True) for u in (a, b, c)
    }
    with django_capture_on_commit_callbacks() as callbacks:
        advance.advance_set(hand_id=hand.pk, user=later, choice="call_any", version=0)
    assert callbacks == []  # nothing announced to the table's group
    hand.refresh_from_db()
    assert hand.version == 0
    for user in (a, b, c):  # every view, the owner's too, is exactly as before: it lives outside the views
        assert json.dumps(engine.view_to_json(hand_view_for(hand=hand, user=user)), sort_keys=True) == before[user.pk]
    own = client_for(later).get(f"/tables/{hand.table_id}/").content.decode()
    assert "When your turn comes: <strong>Call any bet</strong>" in own
    for other in (first, c, club_setup.organiser):
        page = client_for(other).get(f"/tables/{hand.table_id}/").content.decode()
        assert "Call any bet" not in page and "When your turn comes" not in page


@pytest.mark.django_db
def test_an_advance_action_is_refused_on_ones_own_turn_or_a_stale_version(club_setup) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    first, later = waiting_and_other(hand, [a, b])
    with pytest.raises(advance.AdvanceRefused):
        advance.advance_set(hand_id=hand.pk, user=first, choice="check", version=0)
    with pytest.raises(StaleVersion):
        advance.advance_set(hand_id=hand.pk, user=later, choice="check", version=3)
    with pytest.raises(advance.AdvanceRefused):
        advance.advance_set(hand_id=hand.pk, user=later, choice="call", version=0)  # nothing to call
    assert not AdvanceAction.objects.exists()


@pytest.mark.django_db
def test_set_and_withdraw_through_the_page(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    hand = start(club_setup, engine.PilesRules(), [a, b])
    _first, later = waiting_and_other(hand, [a, b])
    client = client_for(later)
    page = client.get(f"/tables/{hand.table_id}/").content.decode()
    assert 'name="choice" value="check_fold"' in page
    response = client.post(
        f"/tables/{hand.table_id}/advance/", {"hand": hand.pk, "version": 0, "choice": "check_fold"}, follow=True
    )
    assert "Only you can see this" in response.content.decode()
    assert AdvanceAction.objects.get(hand=hand).status == AdvanceAction.Status.PENDING
    client.post(f"/tables/{hand.table_id}/advance/withdraw/", {"hand": hand.pk})
    assert AdvanceAction.objects.get(hand=hand).status == AdvanceAction.Status.CANCELLED
