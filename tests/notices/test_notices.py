""" "Your turn" emails (notices/services/turns.py through the tasks of notices/tasks.py, called directly and twice):
sent once, not after the player acted, a digest instead when chosen, nothing when turned off."""

from __future__ import annotations

import pytest

from accounts.models import User
from games import services
from games.models import Hand
from notices.tasks import send_daily_digests
from tests.games.async_helpers import awaited, piles_turn, user_at
from tests.games.helpers import turn_notice, turn_reminder


@pytest.fixture
def turn(club_setup, settings) -> tuple[Hand, User, int]:
    """A Piles hand waiting for its first player: (hand, that player, their seat)."""
    settings.SITE_URL = "https://club.example.org"
    settings.TURN_DIGEST_HOUR = 0
    return piles_turn(club_setup)


def prefer(user: User, notices: str, reminder: bool = True) -> None:
    User.objects.filter(pk=user.pk).update(turn_notices=notices, turn_reminder=reminder)


@pytest.mark.django_db
def test_the_turn_notice_is_sent_once_with_an_absolute_link(turn, mailoutbox) -> None:
    hand, player, seat = turn
    assert turn_notice(hand.pk, seat, 0) is True
    assert turn_notice(hand.pk, seat, 0) is False
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == [player.email] and hand.table.name in mail.subject
    assert f"https://club.example.org/tables/{hand.table_id}/" in mail.body


@pytest.mark.django_db
def test_no_notice_when_the_player_acted_within_the_grace_period(turn, mailoutbox) -> None:
    hand, player, seat = turn
    services.hand_act(hand_id=hand.pk, user=player, action={"type": "check"}, version=0)
    assert turn_notice(hand.pk, seat, 0) is False
    assert turn_reminder(hand.pk, seat, 0) is False
    assert mailoutbox == []


@pytest.mark.django_db
def test_the_reminder_is_sent_once(turn, mailoutbox) -> None:
    hand, player, seat = turn
    assert turn_reminder(hand.pk, seat, 0) is True
    assert turn_reminder(hand.pk, seat, 0) is False
    assert [m.to for m in mailoutbox] == [[player.email]] and "runs out soon" in mailoutbox[0].subject


@pytest.mark.django_db
def test_a_digest_instead_of_single_mails_when_chosen(turn, mailoutbox) -> None:
    hand, player, seat = turn
    prefer(player, User.TurnNotices.DIGEST, reminder=False)
    assert turn_notice(hand.pk, seat, 0) is False
    assert turn_reminder(hand.pk, seat, 0) is False
    assert mailoutbox == []
    assert send_daily_digests() == 1
    assert send_daily_digests() == 0  # once a day
    assert len(mailoutbox) == 1
    digest = mailoutbox[0]
    assert digest.to == [player.email] and "1 table waiting" in digest.subject
    assert hand.table.name in digest.body and f"https://club.example.org/tables/{hand.table_id}/" in digest.body
    # and it links the club's "since you were last here" page
    assert f"https://club.example.org/clubs/{hand.table.club_id}/since/" in digest.body


@pytest.mark.django_db
def test_no_digest_before_the_members_hour_or_with_nothing_waiting(turn, mailoutbox, settings) -> None:
    hand, player, _seat = turn
    prefer(player, User.TurnNotices.DIGEST)
    settings.TURN_DIGEST_HOUR = 24  # never reached
    assert send_daily_digests() == 0
    settings.TURN_DIGEST_HOUR = 0
    services.hand_act(hand_id=hand.pk, user=player, action={"type": "check"}, version=0)
    other = user_at(hand, awaited(hand)[0])
    prefer(other, User.TurnNotices.OFF)
    assert send_daily_digests() == 0  # the player's turn is over; the other chose no emails
    assert mailoutbox == []


@pytest.mark.django_db
def test_nothing_at_all_when_turned_off(turn, mailoutbox) -> None:
    hand, player, seat = turn
    prefer(player, User.TurnNotices.OFF, reminder=False)
    assert turn_notice(hand.pk, seat, 0) is False
    assert turn_notice(hand.pk, seat, 0) is False
    assert turn_reminder(hand.pk, seat, 0) is False
    assert send_daily_digests() == 0
    assert mailoutbox == []


@pytest.mark.django_db
def test_a_late_notice_for_an_earlier_turn_is_not_sent(turn, mailoutbox) -> None:
    hand, _player, seat = turn
    assert turn_notice(hand.pk, seat, 7) is False  # a turn of that seat that began at another version
    assert turn_notice(hand.pk + 999, seat, 0) is False  # no such hand
    assert mailoutbox == []


@pytest.mark.django_db
def test_a_table_name_with_a_line_break_still_gives_a_one_line_subject(turn, mailoutbox) -> None:
    """Defence in depth: the forms refuse such names, but one stored earlier must not raise BadHeaderError."""
    from games.models import Table

    hand, player, seat = turn
    Table.objects.filter(pk=hand.table_id).update(name="Main\r\nBcc: victim@example.org")
    assert turn_notice(hand.pk, seat, 0) is True
    assert turn_reminder(hand.pk, seat, 0) is True
    subjects = [m.subject for m in mailoutbox]
    assert subjects == [
        "Your turn at Main Bcc: victim@example.org",
        "Your clock at Main Bcc: victim@example.org runs out soon",
    ]
    assert all(m.message()["Subject"] == s for m, s in zip(mailoutbox, subjects, strict=True))
    assert all(m.bcc == [] for m in mailoutbox)
