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

from games.history.replay import ReplayMismatch, ReplayStep, hand_replay, step_context
from games.views.common import deck_context, finished_hand, member

logger = logging.getLogger(__name__)
_STEP = re.compile(r"[0-9]{1,4}")


NO_REPLAY = "This hand's record does not play back step by step; its page tells it in full."


def _steps(
    request: HttpRequest, hand_id: int, *, as_json: bool = False
) -> tuple[Any, Any, list[ReplayStep]] | HttpResponse:
    found = finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    try:
        steps = hand_replay(
            hand=hand, user=member(request), is_organiser=access.is_organiser, currency=access.club.currency
        )
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
    return step_page(request, _steps(request, hand_id), "games/hand_replay.html")


@login_required
def hand_replay_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    return steps_answer(request, _steps(request, hand_id, as_json=True))


def step_page(
    request: HttpRequest, found: tuple[Any, Any, list[ReplayStep]] | HttpResponse, template: str, *, so_far: str = ""
) -> HttpResponse:
    """The page of the step ``?step=N`` asks for (or the answer ``found`` is already)."""
    if isinstance(found, HttpResponse):
        return found
    hand, access, steps = found
    index, error, status = step_asked(request, len(steps))
    step = steps[index]
    return render(
        request,
        template,
        {
            **step_context(step),
            "club": access.club,
            "access": access,
            "table": hand.table,
            "hand": hand,
            "count": len(steps),
            "last": len(steps) - 1,
            "error": error,
            "title": f"{hand.table.name}: hand {hand.number}{so_far}, step {index}",
            **deck_context(request),
        },
        status=status,
    )


def steps_answer(request: HttpRequest, found: tuple[Any, Any, list[ReplayStep]] | HttpResponse) -> HttpResponse:
    """Every step as {index, kind, title, html} (the html is the step's table picture as the page draws it),
    or the answer ``found`` is already."""
    if isinstance(found, HttpResponse):
        return found
    _hand, access, steps = found
    response = JsonResponse(
        {
            "steps": [
                {"index": s.index, "kind": s.kind, "title": s.title, "html": _step_html(request, s, access.club)}
                for s in steps
            ]
        }
    )
    response["Cache-Control"] = "private, no-store"
    return response


def step_asked(request: HttpRequest, count: int) -> tuple[int, str, int]:
    """The step ``?step=N`` asks for among ``count``: (index, error for the page, status); 404 past the last."""
    raw = request.GET.get("step")
    if raw is None:
        return 0, "", 200
    if not _STEP.fullmatch(raw):
        return 0, f"“Step” must be a whole number from 0 to {count - 1}; here is the deal.", 400
    if int(raw) >= count:
        raise Http404(f"This hand has steps 0 to {count - 1}.")
    return int(raw), "", 200
