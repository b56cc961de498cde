"""Plain form posts of advance actions (games/services/advance.py): set one, withdraw them. Each checks the
table, calls one service and redirects to the table; a DomainError becomes a message to that member."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games.presentation.words import advance_words
from games.selectors.hands import hand_in_table
from games.services import advance
from games.views.common import member, table_access
from kernel.errors import DomainError


def _hand_id(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("hand", ""))
    except ValueError:
        return None


@login_required
@require_POST
def advance_set(request: HttpRequest, table_id: int) -> HttpResponse:
    table, access = table_access(request, table_id)
    back = redirect("games:table", table_id=table.pk)
    hand_id = _hand_id(request)
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        version = -1
    if hand_id is None or version < 0 or not hand_in_table(table=table, hand_id=hand_id):
        messages.error(request, "The table moved on; here is the current state.")
        return back
    try:
        row = advance.advance_set(
            hand_id=hand_id, user=member(request), choice=request.POST.get("choice", ""), version=version
        )
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, f"When your turn comes: {advance_words(row, access.club.currency)}. Only you can see this."
        )
    return back


@login_required
@require_POST
def advance_cancel(request: HttpRequest, table_id: int) -> HttpResponse:
    table, _access = table_access(request, table_id)
    hand_id = _hand_id(request)
    if (
        hand_id is not None
        and hand_in_table(table=table, hand_id=hand_id)
        and advance.advance_cancel(hand_id=hand_id, user=member(request))
    ):
        messages.success(request, "Withdrawn: you will choose when your turn comes.")
    return redirect("games:table", table_id=table.pk)
