"""Pages of the clubhouse: results and statistics, seasons, the night's summary, how to play.

Every page checks club membership with ``club_access`` (404 for non-members, 403 for members
on organiser-only actions); writes are form posts that call one service and redirect.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.utils import timezone

from accounts.access import ClubAccess, club_access
from accounts.models import User
from accounts.selectors import club_member_get
from games.models import Game
from kernel.errors import DomainError
from kernel.query import BadQuery, query_key

from . import examples, selectors, services
from .forms import PeriodForm, SeasonForm
from .selectors import Period, StatLine

SUMMARY_DEFAULT_DAYS = 7  # a member who never caught up sees the last week


def _me(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _by_game(lines: list[StatLine]) -> list[tuple[str, str, list[StatLine]]]:
    return [
        (g, label, [line for line in lines if line.game == g])
        for g, label in Game.choices
        if any(line.game == g for line in lines)
    ]


NO_SUCH_SEASON = "No such season in this club."


def _season_param(access: ClubAccess, request: HttpRequest) -> Any:
    try:
        season_id = query_key(request, "season", message=NO_SUCH_SEASON)
    except BadQuery as exc:  # "²" and other non-ASCII digits, or a number past any key
        raise Http404(str(exc)) from None
    if season_id is None:
        return None
    season = selectors.season_of(club=access.club, season_id=season_id)
    if season is None:
        raise Http404(NO_SUCH_SEASON)
    return season


@login_required
def results(request: HttpRequest, club_id: int) -> HttpResponse:
    """The club's table: each member's results per game over a period or a season."""
    access = club_access(request, club_id)
    season = _season_param(access, request)
    form = PeriodForm(request.GET or None)
    period = Period.of_season(season) if season is not None else form.period()
    game = form.chosen_game()
    lines = selectors.stat_lines(club=access.club, period=period, game=game)
    return render(
        request,
        "clubhouse/results.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "season": season,
            "game": game,
            "seasons": selectors.season_list(club=access.club),
            "by_game": _by_game(lines),
            "title": f"Results · {access.club.name}",
        },
        status=400 if form.is_bound and not form.is_valid() else 200,
    )


@login_required
def member_results(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    """One member's results per game and their net over time (a chart with the same numbers in a table)."""
    access = club_access(request, club_id)
    membership = club_member_get(club=access.club, user_id=user_id)
    if membership is None:
        raise Http404("No such member in this club.")
    member = membership.user
    season = _season_param(access, request)
    form = PeriodForm(request.GET or None)
    period = Period.of_season(season) if season is not None else form.period()
    game = form.chosen_game()
    lines = selectors.stat_lines(club=access.club, period=period, game=game, user=member)
    history = selectors.net_over_time(club=access.club, user=member, period=period, game=game)
    return render(
        request,
        "clubhouse/member_results.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "season": season,
            "member": member,
            "lines": lines,
            "history": history,
            "by_day": selectors.by_day(period),
            "seasons": selectors.season_list(club=access.club),
            "chart_data": {
                "currency": access.club.currency,
                "history": {"labels": [d.isoformat() for d, _ in history], "values": [net / 100 for _, net in history]},
            },
            "title": f"Results · {member.shown_name}",
        },
        status=400 if form.is_bound and not form.is_valid() else 200,
    )


@login_required
def seasons(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    form = SeasonForm()
    if request.method == "POST":
        access = club_access(request, club_id, organiser=True)
        form = SeasonForm(request.POST)
        if form.is_valid():
            try:
                season = services.season_open(club=access.club, user=_me(request), name=form.cleaned_data["name"])
            except DomainError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"{season.name} is open: results from now on count for it.")
                return redirect("clubhouse:season", club_id=access.club.pk, season_id=season.pk)
    all_seasons = selectors.season_list(club=access.club)
    return render(
        request,
        "clubhouse/seasons.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "seasons": all_seasons,
            "open_season": next((s for s in all_seasons if s.is_open), None),
            "title": f"Seasons · {access.club.name}",
        },
        status=400 if form.is_bound and not form.is_valid() else 200,
    )


@login_required
def season_detail(request: HttpRequest, club_id: int, season_id: int) -> HttpResponse:
    """A season's leaderboard; once closed, who owes whom as the books stood when it closed."""
    access = club_access(request, club_id)
    season = selectors.season_of(club=access.club, season_id=season_id)
    if season is None:
        raise Http404("No such season in this club.")
    lines = selectors.stat_lines(club=access.club, period=Period.of_season(season))
    settle = selectors.settle_up_as_of(club=access.club, as_of=season.closed_at) if season.closed_at else None
    return render(
        request,
        "clubhouse/season.html",
        {
            "club": access.club,
            "access": access,
            "season": season,
            "by_game": _by_game(lines),
            "leaders": _leaderboard(lines),
            "settle": settle,
            "plan": [(settle.users[t.payer_id], settle.users[t.payee_id], t.amount) for t in settle.transfers]
            if settle
            else [],
            "title": f"{season.name} · {access.club.name}",
        },
    )


def _leaderboard(lines: list[StatLine]) -> list[tuple[User | None, int, int, int]]:
    """(member, net, hands, wins) over both games, best net first."""
    totals: dict[int, list[Any]] = {}
    for line in lines:
        row = totals.setdefault(line.user_id, [line.user, 0, 0, 0])
        row[1] += line.net
        row[2] += line.hands
        row[3] += line.wins
    rows = [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in totals.values()]
    return sorted(rows, key=lambda r: (-r[1], r[0].shown_name if r[0] else ""))


@login_required
def season_close(request: HttpRequest, club_id: int, season_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        season = services.season_close(club=access.club, user=_me(request), season_id=season_id)
    except DomainError as exc:
        messages.error(request, str(exc))
        return redirect("clubhouse:seasons", club_id=access.club.pk)
    messages.success(request, f"{season.name} is closed. Below: who owes whom as the books stood then.")
    return redirect("clubhouse:season", club_id=access.club.pk, season_id=season.pk)


@login_required
def summary(request: HttpRequest, club_id: int) -> HttpResponse:
    """Since you were last here: hands finished, won and lost, tables waiting, chat missed."""
    access = club_access(request, club_id)
    me = _me(request)
    seen = selectors.last_seen(club=access.club, user=me)
    since = seen or timezone.now() - timedelta(days=SUMMARY_DEFAULT_DAYS)
    return render(
        request,
        "clubhouse/summary.html",
        {
            "club": access.club,
            "access": access,
            "summary": selectors.summary_since(club=access.club, user=me, since=since),
            "first_time": seen is None,
            "title": f"Since you were last here · {access.club.name}",
        },
    )


@login_required
def summary_seen(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    services.visit_mark_seen(club=access.club, user=_me(request))
    messages.success(request, "All caught up: the summary starts from now next time.")
    return redirect("clubhouse:summary", club_id=access.club.pk)


@login_required
def how_to_play(request: HttpRequest, club_id: int, game: str) -> HttpResponse:
    """The rules of a game in plain words, the club's house rules beside them, and the rule
    document's worked example drawn with cards (each checked by the engine in the tests)."""
    access = club_access(request, club_id)
    if game not in Game.values:
        raise Http404("No such game.")
    from games.presentation.presenters import rules_words
    from games.selectors.rules import rule_versions_latest

    house = [(v, rules_words(v, access.club.currency)) for v in rule_versions_latest(club_id=access.club.pk, game=game)]
    return render(
        request,
        f"clubhouse/how_to_play_{game}.html",
        {
            "club": access.club,
            "access": access,
            "game": game,
            "game_label": Game(game).label,
            "house": house,
            "example": examples.EXAMPLES[game],
            "title": f"How to play {Game(game).label}",
        },
    )
