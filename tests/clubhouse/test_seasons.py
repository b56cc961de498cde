"""Seasons: organisers open and close them; results read per season; the close shows who owed whom then."""

from __future__ import annotations

import pytest
from django.db.models import Sum
from django.utils import timezone

from clubhouse import selectors, services
from clubhouse.models import HandResult, Season
from clubhouse.selectors import Period
from games.demo.simulate import simulation_run
from ledger.models import Account, Posting
from ledger.selectors import balances_as_of, settle_up_plan


@pytest.mark.django_db
def test_an_organiser_opens_and_closes_one_season_at_a_time(club_setup) -> None:
    club, organiser = club_setup.club, club_setup.organiser
    spring = services.season_open(club=club, user=organiser, name="  Spring  ")
    assert spring.name == "Spring" and spring.is_open
    with pytest.raises(services.SeasonRefused, match="Close the season that is open"):
        services.season_open(club=club, user=organiser, name="Summer")
    with pytest.raises(services.SeasonRefused, match="Only the club's organisers"):
        services.season_close(club=club, user=club_setup.members[0], season_id=spring.pk)
    with pytest.raises(services.SeasonRefused, match="Give the season a name"):
        services.season_open(club=club, user=organiser, name="   ")
    closed = services.season_close(club=club, user=organiser, season_id=spring.pk)
    assert closed.closed_at is not None and closed.closed_by == organiser
    with pytest.raises(services.SeasonRefused, match="was closed already"):
        services.season_close(club=club, user=organiser, season_id=spring.pk)
    other = club_setup.outsider.clubs.get()
    with pytest.raises(services.SeasonRefused):
        services.season_close(club=other, user=organiser, season_id=spring.pk)
    assert services.season_open(club=club, user=organiser, name="Summer").is_open


@pytest.mark.django_db
def test_the_season_pages_open_and_close_through_forms(club_setup, client_for) -> None:
    club = club_setup.club
    organiser = client_for(club_setup.organiser)
    response = organiser.post(f"/clubs/{club.pk}/seasons/", {"name": "Autumn"})
    season = Season.objects.get(club=club)
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.pk}/seasons/{season.pk}/"
    again = organiser.post(f"/clubs/{club.pk}/seasons/", {"name": "Winter"})
    assert again.status_code == 400 and "Close the season that is open" in again.content.decode()
    member = client_for(club_setup.members[0])
    assert member.post(f"/clubs/{club.pk}/seasons/{season.pk}/close/").status_code == 403
    assert "Close Autumn now" not in member.get(f"/clubs/{club.pk}/seasons/").content.decode()
    assert organiser.post(f"/clubs/{club.pk}/seasons/{season.pk}/close/").status_code == 302
    season.refresh_from_db()
    assert not season.is_open


def _balances_by_sum(club, as_of) -> dict[int, int]:
    rows = (
        Posting.objects.filter(account__club=club, account__kind=Account.Kind.MEMBER, created_at__lt=as_of)
        .values("account__user")
        .annotate(total=Sum("amount"))
    )
    return {r["account__user"]: int(r["total"]) for r in rows}


@pytest.mark.django_db(transaction=True)
def test_closing_a_season_shows_who_owed_whom_then_and_its_results(club_setup, client_for) -> None:
    club, organiser = club_setup.club, club_setup.organiser
    simulation_run(club=club, players=club_setup.everyone, hands=4, seed=11)  # before the season
    season = services.season_open(club=club, user=organiser, name="Spring")
    simulation_run(club=club, players=club_setup.everyone, hands=6, seed=12)
    season = services.season_close(club=club, user=organiser, season_id=season.pk)
    assert season.closed_at is not None
    at_close = _balances_by_sum(club, season.closed_at)
    simulation_run(club=club, players=club_setup.everyone, hands=6, seed=13)  # after it: not counted
    assert balances_as_of(club=club, as_of=season.closed_at) == at_close
    assert balances_as_of(club=club, as_of=timezone.now()) == _balances_by_sum(club, timezone.now())
    settle = selectors.settle_up_as_of(club=club, as_of=season.closed_at)
    assert settle.transfers == settle_up_plan(at_close)
    page = client_for(club_setup.members[0]).get(f"/clubs/{club.pk}/seasons/{season.pk}/").content.decode()
    assert "Who owes whom at the close" in page
    for t in settle.transfers:
        assert f"<strong>{settle.users[t.payer_id].shown_name}</strong> pays" in page
    # the season's results count only the hands that finished inside it
    inside = HandResult.objects.filter(club=club, finished_at__gte=season.opened_at, finished_at__lt=season.closed_at)
    lines = selectors.stat_lines(club=club, period=Period.of_season(season))
    assert sum(line.hands for line in lines) == inside.count() > 0
    assert sum(line.net for line in lines) == sum(inside.values_list("net", flat=True))
    assert sum(line.hands for line in selectors.stat_lines(club=club)) > inside.count()
    results = client_for(club_setup.members[0]).get(f"/clubs/{club.pk}/results/?season={season.pk}")
    assert results.status_code == 200 and "Season Spring" in results.content.decode()
