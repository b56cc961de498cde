"""Since you were last here: hands finished, what you won and lost, tables waiting, chat missed."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db.models import Sum
from django.utils import timezone

import engine
from clubhouse import selectors
from clubhouse.models import ClubVisit, HandResult
from games.models import Hand
from games.services.chat import chat_hide, chat_post
from tests.clubhouse.play import play_table
from tests.games.helpers import make_table


@pytest.mark.django_db(transaction=True)
def test_the_summary_counts_what_happened_since_the_last_visit(club_setup, client_for) -> None:
    club, (a, b, _) = club_setup.club, club_setup.members
    ClubVisit.objects.create(club=club, user=a, seen_at=timezone.now() - timedelta(hours=1))
    play_table(
        club=club,
        organiser=club_setup.organiser,
        players=[a, b],
        rules=engine.PilesRules(),
        rng=random.Random(5),
        hands=2,
    )
    live = make_table(club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    from games import services

    services.table_start(table_id=live.pk, user=a)  # the drop awaits both
    chat_post(table_id=live.pk, user=b, text="your move, Ann")
    chat_post(table_id=live.pk, user=a, text="mine is not news to me")
    hidden = chat_post(table_id=live.pk, user=b, text="hidden line")
    chat_hide(message_id=hidden.pk, user=club_setup.organiser)

    summary = selectors.summary_since(club=club, user=a, since=selectors.last_seen(club=club, user=a))
    mine = HandResult.objects.filter(club=club, user=a)
    assert summary.hands_finished == mine.count() >= 2
    assert summary.net == mine.aggregate(n=Sum("net"))["n"]
    assert summary.won == mine.aggregate(n=Sum("won"))["n"] and summary.won - summary.lost == summary.net
    assert [t.pk for t in summary.waiting] == [live.pk]
    assert [(m.table.pk, m.count, [x.text for x in m.latest]) for m in summary.chat] == [
        (live.pk, 1, ["your move, Ann"])
    ]

    client = client_for(a)
    page = client.get(f"/clubs/{club.pk}/since/").content.decode()
    assert "your move, Ann" in page and "hidden line" not in page and f"/tables/{live.pk}/" in page
    assert client.post(f"/clubs/{club.pk}/since/seen/").status_code == 302
    after = selectors.summary_since(club=club, user=a, since=selectors.last_seen(club=club, user=a))
    assert after.hands_finished == 0 and after.chat == [] and [t.pk for t in after.waiting] == [live.pk]
    assert Hand.objects.filter(table=live, finished_at__isnull=True).exists()


@pytest.mark.django_db
def test_chat_at_a_table_closed_to_spectators_is_not_shown_to_other_members(club_setup) -> None:
    club, (a, b, c) = club_setup.club, club_setup.members
    closed = make_table(club, club_setup.organiser, engine.PiranhaRules(), players=[a, b], spectators_allowed=False)
    chat_post(table_id=closed.pk, user=a, text="players only")
    since = timezone.now() - timedelta(days=1)
    assert selectors.summary_since(club=club, user=c, since=since).chat == []
    assert [m.count for m in selectors.summary_since(club=club, user=b, since=since).chat] == [1]
