"""The cut's pages: the roots of a table's coming deals as JSON (static/js/cut.js reads them) and the plain
form that cuts a coming deal without JavaScript."""

from __future__ import annotations

import hashlib

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

import engine
from games.selectors.cuts import decks_coming
from games.selectors.tables import table_may_watch
from games.services.cuts import CutRefused, cut_take
from games.views.common import forbidden, member, table_access
from kernel.errors import DomainError

WORDS_MAX = 200


def cut_from_words(words: str) -> str:
    """A form's cut: 32 hex digits as typed, or any other words turned into 128 bits by SHA-256."""
    words = words.strip()
    if len(words) > WORDS_MAX or not words:
        raise CutRefused(f"Type a few words (at most {WORDS_MAX} characters) to cut with.")
    return words.lower() if engine.is_cut_value(words.lower()) else hashlib.sha256(words.encode()).hexdigest()[:32]


@login_required
def deal_cut(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET: the coming deals' roots (JSON). POST: cut one of them (a seated member's plain form)."""
    table, access = table_access(request, table_id)
    if request.method == "GET":
        if not table_may_watch(table=table, user=member(request)):
            return forbidden(request, table, access)
        response = JsonResponse({"table": table.pk, "deals": decks_coming(table=table)})
        response["Cache-Control"] = "no-store"
        return response
    if request.method != "POST":
        return HttpResponse(status=405)
    try:
        deal = int(request.POST.get("deal", "")[:12])
        receipt = cut_take(
            table_id=table.pk, user=member(request), number=deal, value=cut_from_words(request.POST.get("cut", ""))
        )
    except ValueError:
        messages.error(request, "Choose one of the coming deals to cut.")
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Deal {receipt.number} is cut with {receipt.cut}, received {receipt.at}.")
    return redirect(reverse("games:table", kwargs={"table_id": table.pk}) + "#coming-deals")
