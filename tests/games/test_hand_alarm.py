"""A hand's alarm (games/services/alarms.py, the ``hand_alarm`` task): one Celery message pending per hand,
set after a commit only when the hand's next due moment comes before it; when it rings it does what is
due (the timeout, the turn's notices) and sets itself for the next moment."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

import engine
from games import services
from games.models import Hand, HandAction
from games.services.after_commit import HAND_ALARM, hand_alarm_pending, turn_work_flush
from games.tasks import hand_alarm
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table


@pytest.fixture
def sent(monkeypatch) -> list[dict[str, Any]]:
    """The alarm messages sent from now on (each still goes to the broker)."""
    messages: list[dict[str, Any]] = []
    original = HAND_ALARM.apply_async

    def send(*args: Any, **kwargs: Any) -> Any:
        messages.append(kwargs["kwargs"])
        return original(*args, **kwargs)

    monkeypatch.setattr(HAND_ALARM, "apply_async", send)
    return messages


def piles_hour(club_setup: Any) -> Hand:
    """A Piles hand of two members, its clock an hour, dealt."""
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(turn_seconds=3600), players=[a, b])
    return services.table_start(table_id=table.pk, user=a)


def began(hand: Hand, seat: int) -> datetime:
    hand.refresh_from_db()
    return datetime.fromisoformat(hand.clocks[str(seat)]["began"])


@pytest.mark.django_db(transaction=True)
def test_a_hand_sends_one_alarm_and_its_actions_send_none(club_setup, sent, settings) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 120
    hand = piles_hour(club_setup)
    turn_work_flush()
    first = began(hand, awaited(hand)[0]) + timedelta(seconds=120)  # the first turn's notice is due first
    assert sent == [{"hand_id": hand.pk, "at": first.isoformat()}]
    for _ in range(6):  # each action begins a turn whose notice is due later than the one set
        seat = awaited(hand)[0]
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "check"}, version=hand.version)
        hand.refresh_from_db()
    turn_work_flush()
    assert hand.version == 6 and len(sent) == 1
    assert hand_alarm_pending(hand_id=hand.pk, commitment=hand.commitment) == first


@pytest.mark.django_db(transaction=True)
def test_the_alarm_sends_the_due_notice_and_sets_itself_for_the_clock(club_setup, sent, settings, mailoutbox) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 0
    settings.TURN_REMINDER_BEFORE_SECONDS = 60
    hand = piles_hour(club_setup)
    turn_work_flush()
    seat = awaited(hand)[0]
    player = user_at(hand, seat)
    assert hand_alarm(hand_id=hand.pk, at=sent[0]["at"]) is False  # rung: nothing to time out yet
    assert [m.to for m in mailoutbox] == [[player.email]]  # the "your turn" email went
    hand.refresh_from_db()
    reminder = hand.deadline - timedelta(seconds=60)
    assert sent[-1] == {"hand_id": hand.pk, "at": reminder.isoformat()}  # next: the reminder
    assert hand_alarm(hand_id=hand.pk, at=sent[0]["at"]) is False and len(mailoutbox) == 1  # once only


@pytest.mark.django_db(transaction=True)
def test_the_alarm_applies_the_timeout_once_its_clock_ran_out(club_setup, sent, settings) -> None:
    hand = piles_hour(club_setup)
    seat = awaited(hand)[0]
    assert hand_alarm(hand_id=hand.pk, at=timezone.now().isoformat()) is False  # not yet
    Hand.objects.filter(pk=hand.pk).update(
        deadline=timezone.now() - timedelta(seconds=1),
        clocks={
            s: {**c, "deadline": (timezone.now() - timedelta(seconds=1)).isoformat()} for s, c in hand.clocks.items()
        },
    )
    assert hand_alarm(hand_id=hand.pk, at=timezone.now().isoformat()) is True
    assert list(HandAction.objects.filter(hand=hand).values_list("seat", "is_timeout")) == [(seat, True)]
    assert hand_alarm(hand_id=hand.pk, at=timezone.now().isoformat()) is False  # twice: nothing more


@pytest.mark.django_db(transaction=True)
def test_without_a_grace_the_turns_notice_rings_at_once(club_setup, sent, settings, mailoutbox) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 0
    hand = piles_hour(club_setup)
    turn_work_flush()
    seat = awaited(hand)[0]
    assert sent == [{"hand_id": hand.pk, "at": began(hand, seat).isoformat()}]  # not the clock's end
    assert hand_alarm(**sent[0]) is False and [m.to for m in mailoutbox] == [[user_at(hand, seat).email]]


@pytest.mark.django_db(transaction=True)
def test_actions_whose_alarm_rings_in_time_ask_neither_the_cache_nor_the_alarms_thread(
    club_setup, sent, settings, monkeypatch
) -> None:
    """The alarm this process set is remembered: an action whose next due moment comes after it sends nothing
    to the thread that arms alarms, and that thread asks Redis nothing."""
    from games.services import after_commit

    settings.TURN_NOTICE_GRACE_SECONDS = 120
    hand = piles_hour(club_setup)
    turn_work_flush()
    assert len(sent) == 1
    jobs: list[Any] = []
    asked: list[Any] = []
    submit, pending = after_commit._turn_work().submit, after_commit.hand_alarm_pending
    monkeypatch.setattr(after_commit._turn_work(), "submit", lambda *a, **k: jobs.append(a) or submit(*a, **k))
    monkeypatch.setattr(after_commit, "hand_alarm_pending", lambda **k: asked.append(k) or pending(**k))
    for _ in range(3):
        seat = awaited(hand)[0]
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "check"}, version=hand.version)
    assert jobs == []
    turn_work_flush()
    assert asked == [] and len(sent) == 1
    # A due moment before the one set is armed as ever: through the cache, with a message.
    earlier = datetime.fromisoformat(sent[0]["at"]) - timedelta(seconds=60)
    assert after_commit.hand_alarm_arm(hand_id=hand.pk, commitment=hand.commitment, at=earlier) is True
    assert len(asked) == 1 and sent[-1] == {"hand_id": hand.pk, "at": earlier.isoformat()}
    assert hand_alarm_pending(hand_id=hand.pk, commitment=hand.commitment) == earlier
