"""Practice pages: open a practice table from the lobby, and ask the coach at one (games/services/practice.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from accounts.access import club_access
from games.forms import PracticeForm
from games.services import practice
from games.views.common import member, table_access
from kernel.errors import DomainError


@login_required
@require_POST
def practice_new(request: HttpRequest, club_id: int) -> HttpResponse:
    """Open a practice table and go to it; a refusal goes back to the lobby as a message."""
    access = club_access(request, club_id)
    form = PracticeForm(request.POST, club_id=access.club.pk)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("games:lobby", club_id=access.club.pk)
    version = form.cleaned_data["rule_version"]
    try:
        table = practice.practice_open(
            club=access.club,
            user=member(request),
            game=form.cleaned_data["game"],
            computers=form.cleaned_data["computers"],
            strength=form.cleaned_data["strength"],
            rule_version_id=version.pk if version is not None else None,
        )
    except DomainError as exc:
        messages.error(request, str(exc))
        return redirect("games:lobby", club_id=access.club.pk)
    messages.success(request, "Your practice table is dealt. No money moves here.")
    return redirect("games:table", table_id=table.pk)


@login_required
@require_POST
def practice_coach(request: HttpRequest, table_id: int) -> HttpResponse:
    """The coach's word on the member's decision, shown on the table page. Refused (403) at a money table."""
    table, _access = table_access(request, table_id)
    if not table.practice:
        raise PermissionDenied("The coach helps at practice tables only.")
    try:
        coaching = practice.practice_coach(table_id=table.pk, user=member(request))
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, coach_words(coaching), extra_tags="coach")
    return redirect("games:table", table_id=table.pk)


def coach_words(coaching: practice.Coaching) -> str:
    """The coach's message: the strong player's choice and why, with the member's equity in it (high and low
    apart in Piles: engine/players/advice.py)."""
    return f"Coach: {coaching.advice.sentence}"
