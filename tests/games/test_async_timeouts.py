"""Turn clocks through the services and tasks, without a worker: per-seat clocks, idempotent timeouts,
the sweep, away members, and what the table page shows. (tests/games/test_async_worker.py runs them
on a real Celery worker.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

import engine
from games import services
from games.models import Hand, HandAction
from games.services.hands import hand_apply_timeout
from games.tasks import sweep_overdue_turns
from games.timing.turn_clock import clock_deadline
from notices.reminders import reminder_at
from tests.games.async_helpers import awaited, expire, seat_of, user_at
from tests.games.helpers import make_table, post_action


@pytest.mark.django_db
def test_the_same_timeout_delivered_twice_changes_nothing(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    expire(hand)
    assert hand_apply_timeout(hand_id=hand.pk, version=0) is True
    assert hand_apply_timeout(hand_id=hand.pk, version=0) is False
    assert HandAction.objects.filter(hand=hand).count() == 1
    hand.refresh_from_db()
    assert hand.version == 1


@pytest.mark.django_db
def test_a_timeout_delivered_after_the_player_acted_changes_nothing(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    player = user_at(hand, awaited(hand)[0])
    services.hand_act(hand_id=hand.pk, user=player, action={"type": "check"}, version=0)
    expire(hand)  # even with the next clock overdue, the message for version 0 is stale
    assert hand_apply_timeout(hand_id=hand.pk, version=0) is False
    assert list(HandAction.objects.filter(hand=hand).values_list("is_timeout", flat=True)) == [False]


@pytest.mark.django_db
def test_a_timeout_before_the_clock_runs_out_changes_nothing(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand_apply_timeout(hand_id=hand.pk, version=0) is False
    assert not HandAction.objects.filter(hand=hand).exists()


@pytest.mark.django_db
def test_each_seat_of_a_sealed_decision_has_its_own_clock(club_setup) -> None:
    a, b, c = club_setup.members
    # c's quiet hours are open now: c's clock stands still until they end.
    now = timezone.now()
    c.quiet_start, c.quiet_end = (now - timedelta(hours=1)).time(), (now + timedelta(hours=3)).time()
    c.save()
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(turn_seconds=600), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    clocks = {int(s): clock_deadline(e) for s, e in hand.clocks.items()}
    sa, sb, sc = seat_of(hand, a), seat_of(hand, b), seat_of(hand, c)
    assert abs((clocks[sa] - now).total_seconds() - 600) < 5 and clocks[sa] == clocks[sb]
    assert clocks[sc] - now > timedelta(hours=3)
    assert hand.deadline == clocks[sa]  # the hand's deadline is the earliest clock
    # a decides; then the others' clocks run out except c's.
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    hand.refresh_from_db()
    assert {int(s) for s in hand.clocks} == {sb, sc} and clock_deadline(hand.clocks[str(sc)]) == clocks[sc]
    expire(hand, [sb])
    # b's default waits while c may still decide: taken now, it would show by its moment that b timed out.
    assert services.hand_apply_timeout(hand_id=hand.pk, version=1) is False
    hand.refresh_from_db()
    assert awaited(hand) == sorted([sb, sc]) and hand.deadline == clocks[sc] and hand.version == 1
    assert not HandAction.objects.filter(hand=hand, is_timeout=True).exists()
    # c decides in time: b's default (out) is taken with it, then two in, the showdown.
    services.hand_act(hand_id=hand.pk, user=c, action={"type": "in"}, version=1)
    hand.refresh_from_db()
    assert hand.is_finished
    timeouts = list(HandAction.objects.filter(hand=hand, is_timeout=True).values_list("seat", "action"))
    assert timeouts == [(sb, {"type": "out"})]


@pytest.mark.django_db
def test_the_sweep_applies_every_overdue_timeout_once(club_setup) -> None:
    a, b, c = club_setup.members
    hands = []
    for players in ([a, b], [b, c], [a, c]):
        table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=players)
        hands.append(services.table_start(table_id=table.pk, user=players[0]))
    fresh = hands.pop()  # its clock has not run out
    for hand in hands:
        expire(hand)
    assert sweep_overdue_turns() == 2
    assert sweep_overdue_turns() == 0
    for hand in hands:
        assert list(HandAction.objects.filter(hand=hand).values_list("sequence", "is_timeout")) == [(1, True)]
    assert not HandAction.objects.filter(hand=fresh).exists()


@pytest.mark.django_db
def test_an_away_member_takes_the_default_at_once(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    a.away = True
    a.save()
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=b)
    sa = seat_of(hand, a)
    sb = seat_of(hand, b)
    for _ in range(30):  # b plays checks; a's turns never wait (but a sealed declaration opens together)
        seats = awaited(hand)
        if not seats:
            break
        assert seats == [sb] or (engine.is_sealed(engine.state_from_json(hand.state)) and seats == sorted([sa, sb]))
        services.hand_act(
            hand_id=hand.pk,
            user=b,
            action=engine.legal_actions(engine.state_from_json(hand.state), sb)[0].to_dict(),
            version=hand.version,
        )
    rows = HandAction.objects.filter(hand=hand, seat=sa)
    assert rows.exists() and all(r.is_timeout for r in rows)
    page = client_for(b).get(f"/tables/{table.pk}/").content.decode()
    assert 'class="badge away"' in page


@pytest.mark.django_db
def test_a_table_where_everyone_is_away_waits_on_its_clocks(club_setup) -> None:
    a, b, _ = club_setup.members
    for user in (a, b):
        user.away = True
        user.save()
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    hand.refresh_from_db()
    assert hand.version == 0 and hand.deadline > timezone.now() + timedelta(hours=23)
    assert Hand.objects.filter(table=table).count() == 1


@pytest.mark.django_db
def test_the_table_page_shows_each_clock_and_marks_the_timeout_in_the_log(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    a.time_zone = "Asia/Tokyo"
    a.save()
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    expire(hand)
    assert hand_apply_timeout(hand_id=hand.pk, version=0) is True
    hand.refresh_from_db()
    page = client_for(a).get(f"/tables/{table.pk}/").content.decode()
    assert "(clock ran out)" in page
    deadline = hand.deadline
    assert f'data-countdown="{timezone.localtime(deadline, timezone.get_fixed_timezone(540)).isoformat()}"' in page
    assert "js/clock.js" in page


def test_the_reminder_comes_before_the_clock_runs_out_and_after_the_notice(settings) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 120
    settings.TURN_REMINDER_BEFORE_SECONDS = 3600
    began = timezone.now()
    assert reminder_at(began=began, deadline=began + timedelta(days=1)) == began + timedelta(hours=23)
    assert reminder_at(began=began, deadline=began + timedelta(minutes=20)) == began + timedelta(minutes=15)
    assert reminder_at(began=began, deadline=began + timedelta(seconds=100)) is None


@pytest.mark.django_db
def test_quiet_hours_push_a_betting_turns_deadline(club_setup) -> None:
    a, b, _ = club_setup.members
    now = timezone.now()
    for user in (a, b):
        user.quiet_start, user.quiet_end = (now - timedelta(minutes=1)).time(), (now + timedelta(hours=2)).time()
        user.save()
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(turn_seconds=60), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand.deadline - now > timedelta(hours=2)


@pytest.mark.django_db
def test_the_post_of_a_page_action_still_works(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    player = user_at(hand, awaited(hand)[0])
    post_action(client_for(player), hand, "check")
    hand.refresh_from_db()
    assert hand.version == 1 and str(awaited(hand)[0]) in hand.clocks
