"""The beat backstop of the "your turn" emails (notices/services/turns.py ``turn_notices_sweep`` through the
task ``sweep_due_notices``, called directly and twice): a notice or reminder whose task never ran is
sent once it is due, once, and only as the member's preferences allow."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Hand
from notices.models import TurnNotice
from notices.tasks import sweep_due_notices
from tests.games.async_helpers import piles_turn
from tests.games.helpers import turn_notice


@pytest.fixture
def turn(club_setup, settings) -> tuple[Hand, User, int]:
    """A Piles hand waiting for its first player, whose tasks never run: (hand, that player, their seat)."""
    settings.SITE_URL = "https://club.example.org"
    settings.TURN_NOTICE_GRACE_SECONDS = 120
    settings.TURN_REMINDER_BEFORE_SECONDS = 3600
    return piles_turn(club_setup)


def began(hand: Hand, seat: int, *, ago: float, deadline_in: float | None = None) -> None:
    """Let the turn of ``seat`` have begun ``ago`` seconds ago (and run out in ``deadline_in`` seconds)."""
    hand.refresh_from_db()
    now = timezone.now()
    clocks = dict(hand.clocks)
    entry = {**clocks[str(seat)], "began": (now - timedelta(seconds=ago)).isoformat()}
    if deadline_in is not None:
        entry["deadline"] = (now + timedelta(seconds=deadline_in)).isoformat()
    clocks[str(seat)] = entry
    earliest = min(timezone.datetime.fromisoformat(c["deadline"]) for c in clocks.values())
    Hand.objects.filter(pk=hand.pk).update(clocks=clocks, deadline=earliest)
    hand.refresh_from_db()


def prefer(user: User, notices: str, reminder: bool = True) -> None:
    User.objects.filter(pk=user.pk).update(turn_notices=notices, turn_reminder=reminder)


@pytest.mark.django_db
def test_each_clock_records_when_its_turn_began(turn) -> None:
    hand, _player, seat = turn
    hand.refresh_from_db()
    began_at = timezone.datetime.fromisoformat(hand.clocks[str(seat)]["began"])
    assert abs((timezone.now() - began_at).total_seconds()) < 30


@pytest.mark.django_db
def test_a_lost_notice_is_sent_by_the_sweep_after_the_grace_and_not_before(turn, mailoutbox) -> None:
    hand, player, seat = turn
    assert sweep_due_notices() == 0  # the turn just began
    began(hand, seat, ago=100)
    assert sweep_due_notices() == 0  # still within the grace period
    assert mailoutbox == []
    began(hand, seat, ago=121)
    assert sweep_due_notices() == 1
    assert [m.to for m in mailoutbox] == [[player.email]]
    assert mailoutbox[0].subject.startswith("Your turn at")
    assert f"https://club.example.org/tables/{hand.table_id}/" in mailoutbox[0].body
    assert sweep_due_notices() == 0  # the second run sends nothing more
    assert turn_notice(hand.pk, seat, 0) is False  # nor does the task, should its message turn up late
    assert len(mailoutbox) == 1


@pytest.mark.django_db
def test_the_sweep_sends_nothing_the_task_sent_already(turn, mailoutbox) -> None:
    hand, _player, seat = turn
    assert turn_notice(hand.pk, seat, 0) is True
    began(hand, seat, ago=600)
    assert sweep_due_notices() == 0
    assert len(mailoutbox) == 1


@pytest.mark.django_db
def test_a_player_who_acted_first_gets_nothing(turn, mailoutbox) -> None:
    hand, player, seat = turn
    began(hand, seat, ago=600, deadline_in=60)  # the notice and the reminder were both due
    services.hand_act(hand_id=hand.pk, user=player, action={"type": "check"}, version=0)
    assert sweep_due_notices() == 0  # the next player's turn just began
    assert sweep_due_notices() == 0
    assert mailoutbox == []
    assert not TurnNotice.objects.filter(hand=hand).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("notices", [User.TurnNotices.DIGEST, User.TurnNotices.OFF])
def test_no_single_mail_for_a_digest_or_no_emails(turn, mailoutbox, notices) -> None:
    hand, player, seat = turn
    prefer(player, notices, reminder=False)
    began(hand, seat, ago=7200, deadline_in=600)  # the notice and the reminder are both due
    assert sweep_due_notices() == 0
    assert sweep_due_notices() == 0
    assert mailoutbox == []


@pytest.mark.django_db
def test_a_reminder_is_sent_by_the_sweep_when_due(turn, mailoutbox) -> None:
    hand, player, seat = turn
    prefer(player, User.TurnNotices.DIGEST, reminder=True)  # the reminder alone
    began(hand, seat, ago=7200, deadline_in=7200)  # reminder an hour before the deadline: not yet
    assert sweep_due_notices() == 0
    began(hand, seat, ago=7200, deadline_in=600)
    assert sweep_due_notices() == 1
    assert sweep_due_notices() == 0
    assert [m.to for m in mailoutbox] == [[player.email]] and "runs out soon" in mailoutbox[0].subject


@pytest.mark.django_db
def test_the_notice_and_the_reminder_both_when_both_are_due(turn, mailoutbox) -> None:
    hand, _player, seat = turn
    began(hand, seat, ago=7200, deadline_in=600)
    assert sweep_due_notices() == 2
    assert sweep_due_notices() == 0
    assert sorted(m.subject.split(" at ")[0] for m in mailoutbox) == ["Your clock", "Your turn"]


@pytest.mark.django_db
def test_nothing_for_an_overdue_clock_or_an_older_clock_without_began(turn, mailoutbox) -> None:
    hand, _player, seat = turn
    began(hand, seat, ago=7200, deadline_in=-1)  # ran out: the timeout sweep's business
    assert sweep_due_notices() == 0
    began(hand, seat, ago=7200, deadline_in=600)
    clocks = {s: {k: v for k, v in c.items() if k != "began"} for s, c in hand.clocks.items()}
    Hand.objects.filter(pk=hand.pk).update(clocks=clocks)  # stored before "began" existed
    assert sweep_due_notices() == 0
    assert mailoutbox == []
