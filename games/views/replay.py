"""The hand replay pages: one step drawn on the server (``?step=N``, links to the steps either side),
and the same steps as JSON for static/js/replay.js to step through in the page.

Who may open a replay is who may open the hand's page (``games.views.common.finished_hand``): members of the
club, and only a finished hand's players where the house rules keep spectators out.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from games.history.replay import ReplayMismatch, ReplayStep, hand_replay, step_context
from games.views.common import deck_context, finished_hand, member

logger = logging.getLogger(__name__)
_STEP = re.compile(r"[0-9]{1,4}")


NO_REPLAY = "This hand's record does not play back step by step; its page tells it in full."


def _steps(request: HttpRequest, hand_id: int, *, as_json: bool = False
           ) -> tuple[Any, Any, list[ReplayStep]] | HttpResponse:
    found = finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    try:
        steps = hand_replay(hand=hand, user=member(request), is_organiser=access.is_organiser,
                            currency=access.club.currency)
    except ReplayMismatch:
        logger.exception("hand %s cannot be replayed", hand.pk)
        if as_json:
            return JsonResponse({"error": NO_REPLAY}, status=409)
        messages.error(request, NO_REPLAY)
        return redirect("games:hand_detail", hand_id=hand.pk)
    return hand, access, steps


def _step_html(request: HttpRequest, step: ReplayStep, club: Any) -> str:
    return render_to_string("games/_replay_step.html", {**step_context(step), "club": club}, request=request)


@login_required
def hand_replay_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    found = _steps(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access, steps = found
    raw = request.GET.get("step")
    status = 200
    index = 0
    error = ""
    if raw is not None:
        if not _STEP.fullmatch(raw):
            error, status = f"“Step” must be a whole number from 0 to {len(steps) - 1}; here is the deal.", 400
        elif int(raw) >= len(steps):
            raise Http404(f"This hand has steps 0 to {len(steps) - 1}.")
        else:
            index = int(raw)
    step = steps[index]
    return render(request, "games/hand_replay.html", {
        **step_context(step), "club": access.club, "access": access, "table": hand.table, "hand": hand,
        "count": len(steps), "last": len(steps) - 1, "error": error,
        "json_url": reverse("games:hand_replay_json", args=[hand.pk]),
        "title": f"{hand.table.name}: hand {hand.number}, step {index}", **deck_context(request),
    }, status=status)


@login_required
def hand_replay_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    """Every step as {index, kind, title, html}: the html is the step's table picture as the page draws it."""
    found = _steps(request, hand_id, as_json=True)
    if isinstance(found, HttpResponse):
        return found
    _hand, access, steps = found
    response = JsonResponse({"steps": [
        {"index": s.index, "kind": s.kind, "title": s.title, "html": _step_html(request, s, access.club)}
        for s in steps]})
    response["Cache-Control"] = "private, no-store"
    return response
