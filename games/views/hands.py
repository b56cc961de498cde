"""Hands: one action as a plain form post, a table's hand history, a finished hand's page, its proof
as JSON, and an organiser's ruling that opens every card of it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.access import club_access
from games import services
from games.forms import act_request_parse
from games.history.story import hand_story
from games.presentation.presenters import piles_board
from games.presentation.reasons import showdown_rows
from games.selectors.cuts import complaints_for
from games.selectors.hands import (
    hand_exports,
    hand_get,
    hand_ledger_entries,
    hand_player_names,
    hand_view_for,
)
from games.selectors.hands import (
    hand_history as hand_history_page,
)
from games.selectors.proof import hand_proof_for
from games.selectors.tables import table_may_watch
from games.views.common import deck_context, finished_hand, forbidden, member, table_access
from kernel.errors import DomainError
from kernel.query import BadQuery, query_key
from ledger import selectors as ledger_selectors


@login_required
def hand_act(request: HttpRequest, table_id: int) -> HttpResponse:
    """One action as a plain form post: hand id, the version it was made against, the action."""
    table, _access = table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        act = act_request_parse(
            hand=request.POST.get("hand"),
            version=request.POST.get("version"),
            action=request.POST.get("action", ""),
            amount=request.POST.get("amount"),
        )
        services.hand_act(
            table_id=table.pk, hand_id=act.hand_id, user=member(request), action=act.action, version=act.version
        )
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect("games:table", table_id=table.pk)


@login_required
def hand_history(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table's finished hands, a page at a time (``?before=<hand number>``). Where spectators are kept
    out, a former player (not seated now) sees the hands they were dealt into, as on each hand's page."""
    table, access = table_access(request, table_id)
    user = member(request)
    dealt_to = None if table_may_watch(table=table, user=user) else user
    if dealt_to is not None and not hand_history_page(table=table, dealt_to=dealt_to, size=1)[0]:
        return forbidden(request, table, access)
    status = 200
    try:
        before = query_key(request, "before")
    except BadQuery as exc:  # a broken or forged page link: the newest page, and why
        messages.error(request, str(exc))
        before, status = None, 400
    hands, next_before = hand_history_page(table=table, dealt_to=dealt_to, before=before)
    return render(
        request,
        "games/hand_history.html",
        {
            "club": access.club,
            "access": access,
            "table": table,
            "hands": hands,
            "next_before": next_before,
            "title": f"{table.name}: hands played",
        },
        status=status,
    )


@login_required
def hand_detail(request: HttpRequest, hand_id: int) -> HttpResponse:
    found = finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    table = hand.table
    currency = access.club.currency
    names = hand_player_names(hand=hand)
    view = hand_view_for(hand=hand, user=None)  # the public view: the board as it stood at the end
    result = view.result
    proof = hand_proof_for(hand=hand, user=member(request), is_organiser=access.is_organiser)
    return render(
        request,
        "games/hand_detail.html",
        {
            "club": access.club,
            "access": access,
            "table": table,
            "hand": hand,
            "view": view,
            "piles_board": piles_board(view),
            "story": hand_story(hand=hand, names=names, currency=currency),
            "result": result,
            "names": names,
            "shown": showdown_rows(result, names),
            "winners": [names.get(s, s) for s in result.winners] if result else [],
            "entries": hand_ledger_entries(hand=hand),
            "proof": proof,
            "proof_data": proof.export(),
            "exports": hand_exports(hand=hand),
            # docs/fairness.md "Protocol" 10: the members' complaints about this deal, for its organisers
            "cut_complaints": complaints_for(table=table, deal=hand.number) if access.is_organiser else [],
            "deck_text": " ".join(hand.deck) if proof.deck_shown else "",
            "voiding": ledger_selectors.hand_voiding(hand_id=hand.pk) if hand.voided_at else None,
            "title": f"{table.name}: hand {hand.number}",
            "version_url": reverse(
                "games:rule_version", kwargs={"club_id": access.club.pk, "version_id": hand.rule_version_id}
            ),
            **deck_context(request),
        },
    )


@login_required
def hand_proof_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The hand's proof as JSON (the openings this member may have), for ``python -m engine.verify``."""
    found = finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    proof = hand_proof_for(hand=hand, user=member(request), is_organiser=access.is_organiser)
    response = JsonResponse(proof.export(), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="hand-{hand.pk}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def hand_dispute(request: HttpRequest, hand_id: int) -> HttpResponse:
    """An organiser opens every card of a finished hand to its players, with a reason (a logged ruling)."""
    hand = hand_get(hand_id=hand_id)
    if hand is None:
        raise Http404("No such hand.")
    club_access(request, hand.table.club_id, organiser=True)
    try:
        services.hand_dispute_open(hand_id=hand.pk, user=member(request), reason=request.POST.get("reason", ""))
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The hand is opened to its players, with your reason.")
    return redirect(reverse("games:hand_detail", args=[hand.pk]) + "#proof")
