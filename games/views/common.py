"""What the games' pages share: the member making the request, who may open a table or a finished
hand (the answer instead when they may not), a table's one-button posts, the deck's colours, and the
Settle up message tag."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render

from accounts.access import ClubAccess, club_access
from accounts.models import User
from games.errors import BelowCreditLimit
from games.models import Hand, Table
from games.selectors.hands import hand_get
from games.selectors.tables import table_get, table_may_watch
from kernel.errors import DomainError

FOUR_COLOUR_COOKIE = "deck_colours"
APPEARANCE_COOKIE = "theme"  # templates/base.html reads it: html[data-theme] (static/css/site.css)
SETTLE_UP_TAG = "settle-up"  # message tag: base.html links the club's Settle up page (ledger:settle)
SPECTATORS_OUT = "The house rules of this table keep spectators out: only its players may watch."


def member(request: HttpRequest) -> User:
    """The logged-in member (behind ``login_required``)."""
    assert isinstance(request.user, User)
    return request.user


def deck_context(request: HttpRequest) -> dict[str, Any]:
    return {"four_colour": request.COOKIES.get(FOUR_COLOUR_COOKIE) == "four"}


def table_access(request: HttpRequest, table_id: int) -> tuple[Table, ClubAccess]:
    """The table and the member's access to its club; 404 for no such table or a non-member."""
    table = table_get(table_id=table_id)
    if table is None:
        raise Http404("No such table.")
    return table, club_access(request, table.club_id)


def forbidden(request: HttpRequest, table: Table, access: ClubAccess) -> HttpResponse:
    """The 403 page of a table whose house rules keep spectators out."""
    return render(
        request,
        "games/forbidden.html",
        {
            "club": access.club,
            "access": access,
            "table": table,
            "message": SPECTATORS_OUT,
            "title": "Players only",
        },
        status=403,
    )


def finished_hand(request: HttpRequest, hand_id: int) -> tuple[Hand, ClubAccess] | HttpResponse:
    """The finished hand and the member's access, or the page to answer instead (403, or the table
    while the hand is being played); 404 for no such hand or a non-member."""
    hand = hand_get(hand_id=hand_id)
    if hand is None:
        raise Http404("No such hand.")
    access = club_access(request, hand.table.club_id)
    table = hand.table
    if not table_may_watch(table=table, user=member(request), hand=hand):
        return forbidden(request, table, access)
    if not hand.is_finished:
        messages.info(request, "That hand is still being played; its history opens when it ends.")
        return redirect("games:table", table_id=table.pk)
    return hand, access


def settle_up_tag(exc: DomainError) -> str:
    """The message tag of a refusal: below the credit limit, base.html offers the club's Settle up page."""
    return SETTLE_UP_TAG if isinstance(exc, BelowCreditLimit) else ""


def table_post(request: HttpRequest, table_id: int, call: Callable[..., object], done: str) -> HttpResponse:
    """A one-button post at a table (start, sit out, sit in, leave): ``call(table_id=, user=)``, then
    the table page with ``done`` or the refusal as a message."""
    table, _access = table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        call(table_id=table.pk, user=member(request))
        messages.success(request, done)
    except DomainError as exc:
        messages.error(request, str(exc), extra_tags=settle_up_tag(exc))
    return redirect("games:table", table_id=table.pk)
