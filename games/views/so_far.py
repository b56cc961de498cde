"""The hand so far: while a hand is played, its steps up to now (games/history/replay.py's ``hand_so_far``), as a
plain page (``?step=N``) and as JSON for static/js/so-far.js, which shows them over the live table.

Who may open them is who may watch the table now (``table_may_watch``); each step is what this viewer may
see now: their own cards only, sealed decisions as "decided". A finished hand has its replay instead.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.access import club_access
from games.history.replay import ReplayMismatch, ReplayStep, hand_so_far
from games.selectors.hands import hand_get
from games.selectors.tables import table_may_watch
from games.views.common import forbidden, member
from games.views.replay import NO_REPLAY, step_page, steps_answer

logger = logging.getLogger(__name__)


def _steps(request: HttpRequest, hand_id: int, *, as_json: bool) -> tuple[Any, Any, list[ReplayStep]] | HttpResponse:
    hand = hand_get(hand_id=hand_id)
    if hand is None:
        raise Http404("No such hand.")
    access = club_access(request, hand.table.club_id)
    if not table_may_watch(table=hand.table, user=member(request), hand=hand):
        return forbidden(request, hand.table, access)
    if hand.is_finished:
        replay = reverse("games:hand_replay", args=[hand.pk])
        if as_json:
            return JsonResponse({"error": "That hand has finished.", "replay": replay}, status=409)
        return redirect(replay)
    try:
        steps = hand_so_far(hand=hand, user=member(request), currency=access.club.currency)
    except ReplayMismatch:
        logger.exception("hand %s cannot be stepped through", hand.pk)
        if as_json:
            return JsonResponse({"error": NO_REPLAY}, status=409)
        return redirect("games:table", table_id=hand.table_id)
    return hand, access, steps


@login_required
@require_GET
def hand_so_far_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    response = step_page(request, _steps(request, hand_id, as_json=False), "games/hand_so_far.html", so_far=" so far")
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def hand_so_far_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    return steps_answer(request, _steps(request, hand_id, as_json=True))
