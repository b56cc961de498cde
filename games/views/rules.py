"""House rules pages: a club's agreements, a new one, its versions, an edit that makes the next version."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

import engine
from accounts.access import ClubAccess, club_access
from games import services
from games.forms import FORMS, rules_form_initial
from games.models import Game, RuleSet
from games.presentation.presenters import rules_words
from games.selectors.rules import rule_set_get, rule_set_versions, rule_sets_for, rule_version_get, rule_version_newest
from games.views.common import member
from kernel.errors import DomainError


@login_required
def rule_set_list(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return render(
        request,
        "games/rule_set_list.html",
        {
            "club": access.club,
            "access": access,
            "rule_sets": rule_sets_for(club=access.club),
            "games": Game.choices,
            "title": "House rules",
        },
    )


def _game_or_404(game: str) -> str:
    if game not in Game.values:
        raise Http404("No such game.")
    return game


@login_required
def rule_set_new(request: HttpRequest, club_id: int, game: str) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    game = _game_or_404(game)
    form_class = FORMS[game]
    form = form_class(
        request.POST or None,
        currency=access.club.currency,
        initial=rules_form_initial(game, name=f"{Game(game).label} house rules"),
    )
    if request.method == "POST" and form.is_valid():
        try:
            rule_set = services.rule_set_create(
                club=access.club,
                user=member(request),
                name=form.cleaned_data["name"],
                rules=form.rules,
                max_seats=form.cleaned_data["max_seats"],
                spectators_allowed=form.cleaned_data["spectators_allowed"],
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "House rules saved as version 1.")
            return redirect("games:rule_set_detail", club_id=access.club.pk, rule_set_id=rule_set.pk)
    return render(
        request,
        "games/rule_set_form.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "game": Game(game),
            "title": f"New {Game(game).label} house rules",
        },
    )


def _rule_set_or_404(access: ClubAccess, rule_set_id: int) -> RuleSet:
    rule_set = rule_set_get(club=access.club, rule_set_id=rule_set_id)
    if rule_set is None:
        raise Http404("No such house rules.")
    return rule_set


@login_required
def rule_set_detail(request: HttpRequest, club_id: int, rule_set_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    rule_set = _rule_set_or_404(access, rule_set_id)
    versions = list(rule_set_versions(rule_set=rule_set))
    latest = versions[0] if versions else None
    return render(
        request,
        "games/rule_set_detail.html",
        {
            "club": access.club,
            "access": access,
            "rule_set": rule_set,
            "versions": versions,
            "latest": latest,
            "words": rules_words(latest, access.club.currency) if latest else [],
            "title": rule_set.name,
        },
    )


@login_required
def rule_set_edit(request: HttpRequest, club_id: int, rule_set_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    rule_set = _rule_set_or_404(access, rule_set_id)
    latest = rule_version_newest(rule_set=rule_set)
    form_class = FORMS[rule_set.game]
    initial = rules_form_initial(
        rule_set.game,
        rules=engine.rules_from_dict(latest.rules) if latest else None,
        max_seats=latest.max_seats if latest else None,
        spectators_allowed=latest.spectators_allowed if latest else True,
        name=rule_set.name,
    )
    form = form_class(request.POST or None, currency=access.club.currency, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            version = services.rule_set_edit(
                rule_set_id=rule_set.pk,
                user=member(request),
                name=form.cleaned_data["name"],
                rules=form.rules,
                max_seats=form.cleaned_data["max_seats"],
                spectators_allowed=form.cleaned_data["spectators_allowed"],
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"House rules saved as version {version.number}.")
            return redirect("games:rule_set_detail", club_id=access.club.pk, rule_set_id=rule_set.pk)
    return render(
        request,
        "games/rule_set_form.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "game": Game(rule_set.game),
            "rule_set": rule_set,
            "frozen": bool(latest and latest.is_frozen),
            "title": f"Edit {rule_set.name}",
        },
    )


@login_required
def rule_version_detail(request: HttpRequest, club_id: int, version_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    version = rule_version_get(club=access.club, version_id=version_id)
    if version is None:
        raise Http404("No such house rules.")
    return render(
        request,
        "games/rule_version_detail.html",
        {
            "club": access.club,
            "access": access,
            "version": version,
            "words": rules_words(version, access.club.currency),
            "title": f"{version.rule_set.name}, version {version.number}",
        },
    )
