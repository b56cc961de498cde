"""The cut's JSON endpoints (docs/fairness.md "Protocol" 5, 6, 9, 10): the coming deals and their closed lists,
a cut signed by the member's device (the same answer as over the table's socket), the history of the deals'
cuts that browsers check their receipts against, and a member's complaint. There is no cut without
JavaScript: a cut is signed by a key the browser keeps."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse

from games.selectors.cuts import HISTORY_MAX, cut_history, decks_coming
from games.selectors.tables import table_may_watch
from games.services.cuts import EVIDENCE_MAX, CutRefused, cut_complaint_file, cut_take
from games.views.common import SPECTATORS_OUT, member, table_access
from kernel.errors import DomainError
from kernel.query import BadQuery, query_key

BODY_MAX = 2 * 1024  # a cut: a deal number, a fingerprint and a 512-digit signature
COMPLAINT_BODY_MAX = EVIDENCE_MAX + 1024
PLAYERS_ONLY = SPECTATORS_OUT


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response


def _json_body(request: HttpRequest, limit: int) -> dict[str, Any] | None:
    if len(request.body) > limit:
        return None
    try:
        data = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


@login_required
def deal_cut(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET: the coming deals, each with its closed list (JSON). POST: a cut signed by the member's device."""
    table, _ = table_access(request, table_id)
    user = member(request)
    if request.method == "GET":
        if not table_may_watch(table=table, user=user):
            return _no_store(JsonResponse({"error": PLAYERS_ONLY}, status=403))
        return _no_store(JsonResponse({"table": table.pk, "user": user.pk, "deals": decks_coming(table=table)}))
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    data = _json_body(request, BODY_MAX)
    if data is None:
        refused = {"type": "cut.refused", "deal": None, "error": "A cut is JSON: {deal, device, signature}."}
        return _no_store(JsonResponse(refused, status=400))
    deal = data.get("deal")
    try:
        receipt = cut_take(
            table_id=table.pk, user=user, number=deal, device=data.get("device"), signature=data.get("signature")
        )
    except DomainError as exc:
        answer = {"type": "cut.refused", "deal": deal if type(deal) is int else None, "error": str(exc)}
        return _no_store(JsonResponse(answer, status=400))
    return _no_store(JsonResponse({"type": "cut.ok", "receipt": receipt.to_dict()}))


@login_required
def deal_cuts_history(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET ?since=N: the closed lists of deals N and after (at most HISTORY_MAX), to who may watch the table."""
    table, _ = table_access(request, table_id)
    if request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET"})
    if not table_may_watch(table=table, user=member(request)):
        return _no_store(JsonResponse({"error": PLAYERS_ONLY}, status=403))
    try:
        since = query_key(request, "since", message="?since= takes a deal number.") or 1
    except BadQuery as exc:
        return _no_store(JsonResponse({"error": str(exc)}, status=400))
    return _no_store(
        JsonResponse({"table": table.pk, "max": HISTORY_MAX, "deals": cut_history(table=table, since=since)})
    )


@login_required
def cut_complaint(request: HttpRequest, table_id: int) -> HttpResponse:
    """POST a complaint about a deal this member's browser cut, with its evidence; kept for the organisers."""
    table, _ = table_access(request, table_id)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "POST"})
    user = member(request)
    if not table_may_watch(table=table, user=user):
        return JsonResponse({"error": PLAYERS_ONLY}, status=403)
    data = _json_body(request, COMPLAINT_BODY_MAX)
    if data is None:
        return JsonResponse({"error": "A complaint is JSON: {deal, kind, evidence}, at most 16 KB."}, status=400)
    try:
        row = cut_complaint_file(
            table_id=table.pk, user=user, deal=data.get("deal"), kind=data.get("kind"), evidence=data.get("evidence")
        )
    except CutRefused as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return JsonResponse(
        {
            "id": row.pk,
            "message": f"Your complaint about deal {row.deal} is kept with its evidence; the club's organisers see "
            "it on the hand's page and can open the hand by a ruling.",
        },
        status=201,
    )
