"""The organiser's "void this hand" form on the ledger's Rulings page posts here (games/services/voiding.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.access import club_access
from games.forms import VoidHandForm
from games.services.voiding import hand_void
from games.views.common import member
from kernel.errors import DomainError
from ledger.views import rulings_context


@login_required
@require_POST
def ruling_void(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    form = VoidHandForm(request.POST, club=access.club)
    if form.is_valid():
        try:
            entries = hand_void(
                hand=form.cleaned_data["hand"], reason=form.cleaned_data["reason"], ruled_by=member(request)
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Hand voided: {len(entries)} entries reversed.")
            return redirect("ledger:rulings", club_id=access.club.pk)
    return render(request, "ledger/rulings.html", rulings_context(request, access, void_form=form), status=400)
