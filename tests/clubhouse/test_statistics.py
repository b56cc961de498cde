"""Statistics equal a brute-force count over the same hands (played through the real services)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from accounts.models import User
from clubhouse.models import HandResult
from clubhouse.selectors import Period, net_over_time, stat_lines
from games.models import Hand
from tests.clubhouse.play import brute_force, play_table


def _compare(club, period: Period | None = None) -> int:
    period = period or Period()
    expected = brute_force(club=club, since=period.date_from, until=period.date_to)
    lines = {(line.user_id, line.game): line for line in stat_lines(club=club, period=period)}
    assert set(lines) == set(expected)
    for key, c in expected.items():
        line = lines[key]
        assert (line.hands, line.wins, line.net, line.biggest, line.streak) == (
            c.hands,
            c.wins,
            c.net,
            c.biggest,
            c.streak,
        ), key
        assert (line.stayed_in, line.stayed_in_won) == (c.decisions["in"], c.decisions_won["in"]), key
        assert (line.high, line.high_won, line.low, line.low_won, line.pig, line.pig_won) == (
            c.decisions["high"],
            c.decisions_won["high"],
            c.decisions["low"],
            c.decisions_won["low"],
            c.decisions["pig"],
            c.decisions_won["pig"],
        ), key
    # the chart's running net ends at the member's net over the period (both games)
    for user_id in {u for u, _ in expected}:
        history = net_over_time(club=club, user=User(pk=user_id), period=period)
        assert history[-1][1] == sum(c.net for (u, _), c in expected.items() if u == user_id)
    return len(expected)


@pytest.mark.django_db(transaction=True)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), piles_hands=st.integers(1, 3))
def test_statistics_equal_a_brute_force_count(club_setup, seed, players, piles_hands) -> None:
    rng = random.Random(seed)
    who = club_setup.everyone[:players]
    play_table(
        club=club_setup.club, organiser=club_setup.organiser, players=who, rules=engine.PiranhaRules(), rng=rng, hands=4
    )
    play_table(
        club=club_setup.club,
        organiser=club_setup.organiser,
        players=who,
        rules=engine.PilesRules(),
        rng=rng,
        hands=piles_hands,
    )
    finished = Hand.objects.filter(table__club=club_setup.club, finished_at__isnull=False)
    # one result row per player of every finished hand, written when its transaction committed
    assert HandResult.objects.filter(club=club_setup.club).count() == sum(len(h.players) for h in finished)
    assert _compare(club_setup.club) >= 2
    # and over a period: the later half of the hands
    times = sorted(h.finished_at for h in finished)
    _compare(club_setup.club, Period(date_from=times[len(times) // 2]))
    # periods that take whole weeks from the week rows and the part-weeks from the hands
    now, day = timezone.now(), timedelta(days=9)
    _compare(club_setup.club, Period(date_from=now - day))
    _compare(club_setup.club, Period(date_to=now + day))
    _compare(club_setup.club, Period(date_from=now - day, date_to=now + day))


@pytest.mark.django_db(transaction=True)
def test_a_hand_still_in_play_has_no_result_and_a_rolled_back_finish_writes_none(club_setup) -> None:
    a, b = club_setup.members[:2]
    rng = random.Random(7)
    table = play_table(
        club=club_setup.club,
        organiser=club_setup.organiser,
        players=[a, b],
        rules=engine.PilesRules(),
        rng=rng,
        hands=1,
    )
    live = Hand.objects.filter(table=table, finished_at__isnull=True).first()
    assert live is not None and not HandResult.objects.filter(hand=live).exists()
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.execute("UPDATE games_hand SET finished_at = now() WHERE id = %s", [live.pk])
        cursor.execute("ROLLBACK")
    assert not HandResult.objects.filter(hand=live).exists()


@pytest.mark.django_db(transaction=True)
def test_a_voided_hand_leaves_the_statistics(club_setup) -> None:
    from games.demo.simulate import simulation_run
    from games.services.voiding import hand_void

    played = simulation_run(club=club_setup.club, players=club_setup.everyone, hands=4, seed=21)
    before = sum(line.hands for line in stat_lines(club=club_setup.club))
    last = played[-1].hand
    hand_void(hand=last, reason="Misdeal: Rob is right", ruled_by=club_setup.organiser)
    after = stat_lines(club=club_setup.club)
    assert sum(line.hands for line in after) == before - len(last.players)
    _compare(club_setup.club)
