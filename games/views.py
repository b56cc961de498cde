"""Pages of the games app: house rules, the lobby, seating, the table and hand history.

Every view checks permission with ``club_access`` (404 for non-members, 403 for
members on organiser-only pages), parses a form, calls one service and
redirects; a DomainError becomes a message to that member only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.access import ClubAccess, club_access
from accounts.models import User
from accounts.money import money
from config.errors import DomainError
from config.query import BadQuery, query_key
from games import engine, selectors, services
from games.errors import BelowCreditLimit
from games.forms import FORMS, SeatForm, TableForm, act_request_parse, rules_form_initial
from games.models import Game, Hand, Table
from games.outcomes import showdown_rows
from games.presenters import hand_page, hand_story, piles_board, rules_words
from ledger import selectors as ledger_selectors

FOUR_COLOUR_COOKIE = "deck_colours"
SETTLE_UP_TAG = "settle-up"  # message tag: base.html links the club's Settle up page (ledger:settle)


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _deck_context(request: HttpRequest) -> dict[str, Any]:
    return {"four_colour": request.COOKIES.get(FOUR_COLOUR_COOKIE) == "four"}


# ---- house rules ------------------------------------------------------------------------------

@login_required
def rule_set_list(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return render(request, "games/rule_set_list.html", {
        "club": access.club, "access": access, "rule_sets": selectors.rule_sets_for(club=access.club),
        "games": Game.choices, "title": "House rules",
    })


def _game_or_404(game: str) -> str:
    if game not in Game.values:
        raise Http404("No such game.")
    return game


@login_required
def rule_set_new(request: HttpRequest, club_id: int, game: str) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    game = _game_or_404(game)
    form_class = FORMS[game]
    form = form_class(request.POST or None, currency=access.club.currency,
                      initial=rules_form_initial(game, name=f"{Game(game).label} house rules"))
    if request.method == "POST" and form.is_valid():
        try:
            rule_set = services.rule_set_create(
                club=access.club, user=_user(request), name=form.cleaned_data["name"], rules=form.rules,
                max_seats=form.cleaned_data["max_seats"], spectators_allowed=form.cleaned_data["spectators_allowed"])
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "House rules saved as version 1.")
            return redirect("games:rule_set_detail", club_id=access.club.pk, rule_set_id=rule_set.pk)
    return render(request, "games/rule_set_form.html", {
        "club": access.club, "access": access, "form": form, "game": Game(game),
        "title": f"New {Game(game).label} house rules",
    })


def _rule_set_or_404(access: ClubAccess, rule_set_id: int) -> Any:
    rule_set = selectors.rule_set_get(club=access.club, rule_set_id=rule_set_id)
    if rule_set is None:
        raise Http404("No such house rules.")
    return rule_set


@login_required
def rule_set_detail(request: HttpRequest, club_id: int, rule_set_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    rule_set = _rule_set_or_404(access, rule_set_id)
    versions = list(selectors.rule_set_versions(rule_set=rule_set))
    latest = versions[0] if versions else None
    return render(request, "games/rule_set_detail.html", {
        "club": access.club, "access": access, "rule_set": rule_set, "versions": versions, "latest": latest,
        "words": rules_words(latest, access.club.currency) if latest else [], "title": rule_set.name,
    })


@login_required
def rule_set_edit(request: HttpRequest, club_id: int, rule_set_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    rule_set = _rule_set_or_404(access, rule_set_id)
    latest = selectors.rule_set_versions(rule_set=rule_set).first()
    form_class = FORMS[rule_set.game]
    initial = rules_form_initial(
        rule_set.game, rules=engine.rules_from_dict(latest.rules) if latest else None,
        max_seats=latest.max_seats if latest else None,
        spectators_allowed=latest.spectators_allowed if latest else True, name=rule_set.name)
    form = form_class(request.POST or None, currency=access.club.currency, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            version = services.rule_set_edit(
                rule_set_id=rule_set.pk, user=_user(request), name=form.cleaned_data["name"], rules=form.rules,
                max_seats=form.cleaned_data["max_seats"], spectators_allowed=form.cleaned_data["spectators_allowed"])
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"House rules saved as version {version.number}.")
            return redirect("games:rule_set_detail", club_id=access.club.pk, rule_set_id=rule_set.pk)
    return render(request, "games/rule_set_form.html", {
        "club": access.club, "access": access, "form": form, "game": Game(rule_set.game), "rule_set": rule_set,
        "frozen": bool(latest and latest.is_frozen), "title": f"Edit {rule_set.name}",
    })


@login_required
def rule_version_detail(request: HttpRequest, club_id: int, version_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    version = selectors.rule_version_get(club=access.club, version_id=version_id)
    if version is None:
        raise Http404("No such house rules.")
    return render(request, "games/rule_version_detail.html", {
        "club": access.club, "access": access, "version": version,
        "words": rules_words(version, access.club.currency),
        "title": f"{version.rule_set.name}, version {version.number}",
    })


# ---- lobby and tables -------------------------------------------------------------------------

@login_required
def lobby(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    form = TableForm(club_id=access.club.pk, initial={"name": "Table"})
    return render(request, "games/lobby.html", {
        "club": access.club, "access": access, "rows": selectors.table_list_open(club=access.club, user=_user(request)),
        "finished": selectors.table_list_finished(club=access.club), "form": form, "title": "Tables",
    })


@login_required
def table_new(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    form = TableForm(request.POST or None, club_id=access.club.pk, initial={"name": "Table"})
    if request.method == "POST" and form.is_valid():
        try:
            table = services.table_create(club=access.club, user=_user(request), name=form.cleaned_data["name"],
                                          rule_version_id=form.cleaned_data["rule_version"].pk)
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{table.name} is open. Take a seat.")
            return redirect("games:table", table_id=table.pk)
    return render(request, "games/table_new.html", {
        "club": access.club, "access": access, "form": form, "title": "New table",
    })


def _table_access(request: HttpRequest, table_id: int) -> tuple[Table, ClubAccess]:
    table = selectors.table_get(table_id=table_id)
    if table is None:
        raise Http404("No such table.")
    return table, club_access(request, table.club_id)


SPECTATORS_OUT = "The house rules of this table keep spectators out: only its players may watch."


def _forbidden(request: HttpRequest, table: Table, access: ClubAccess) -> HttpResponse:
    return render(request, "games/forbidden.html", {
        "club": access.club, "access": access, "table": table, "message": SPECTATORS_OUT, "title": "Players only",
    }, status=403)


@login_required
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table, access = _table_access(request, table_id)
    user = _user(request)
    hand = selectors.hand_current(table=table)
    if not selectors.table_may_watch(table=table, user=user, hand=hand):
        return _forbidden(request, table, access)
    context = hand_page(table=table, hand=hand, user=user, currency=access.club.currency)
    closing = ledger_selectors.table_closing(table_id=table.pk) if table.status == Table.Status.FINISHED else None
    return render(request, "games/table.html", {
        **context, "club": access.club, "access": access, "table": table, "title": table.name, "closing": closing,
        **_deck_context(request),
    })


@login_required
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    table, access = _table_access(request, table_id)
    free = selectors.free_seats(table=table)
    settle_up = False  # refused below the credit limit: the page offers the Settle up page
    form = SeatForm(request.POST or None, free_seats=free,
                    initial={"version": table.rule_version_id, "number": free[0] if free else None})
    if request.method == "POST" and form.is_valid():
        try:
            services.seat_take(table_id=table.pk, user=_user(request), number=form.cleaned_data["number"],
                               version_id=form.cleaned_data["version"])
        except DomainError as exc:
            form.add_error(None, str(exc))
            settle_up = isinstance(exc, BelowCreditLimit)
        else:
            messages.success(request, f"You sit at seat {form.cleaned_data['number']}.")
            return redirect("games:table", table_id=table.pk)
    return render(request, "games/seat_take.html", {
        "club": access.club, "access": access, "table": table, "form": form, "free": free,
        "version": table.rule_version, "words": rules_words(table.rule_version, access.club.currency),
        "settle_up": settle_up, "title": f"Sit at {table.name}",
    })


def _table_post(request: HttpRequest, table_id: int, action: str) -> HttpResponse:
    table, _access = _table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    user = _user(request)
    calls = {
        "sit_out": (services.seat_sit_out, "You will sit out from the next hand."),
        "sit_in": (services.seat_sit_in, "You will be dealt in from the next hand."),
        "leave": (services.seat_leave, "You have left the table."),
    }
    try:
        if action == "start":
            services.table_start(table_id=table.pk, user=user)
            messages.success(request, "The first hand is dealt.")
        else:
            func, done = calls[action]
            func(table_id=table.pk, user=user)
            messages.success(request, done)
    except DomainError as exc:
        # A distinct tag lets base.html offer the club's Settle up page beside the message.
        messages.error(request, str(exc), extra_tags=SETTLE_UP_TAG if isinstance(exc, BelowCreditLimit) else "")
    return redirect("games:table", table_id=table.pk)


@login_required
def table_start(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "start")


@login_required
def seat_sit_out(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "sit_out")


@login_required
def seat_sit_in(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "sit_in")


@login_required
def seat_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "leave")


@login_required
def table_new_game(request: HttpRequest, table_id: int) -> HttpResponse:
    """A player of a finished game opens the next one and sits in their old seat."""
    table, _access = _table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        new = services.table_new_game(table_id=table.pk, user=_user(request))
    except DomainError as exc:
        messages.error(request, str(exc), extra_tags=SETTLE_UP_TAG if isinstance(exc, BelowCreditLimit) else "")
        return redirect("games:table", table_id=table.pk)
    messages.success(request, f"{new.name} is open. The others can take their seats from the old table's page.")
    return redirect("games:table", table_id=new.pk)


@login_required
def table_close(request: HttpRequest, table_id: int) -> HttpResponse:
    """An organiser closes a table: a page that says who gets the pot back, then the ruling."""
    table, access = _table_access(request, table_id)
    if not access.is_organiser:
        raise PermissionDenied("Only the club's organisers can close a table.")
    error = ""
    reason = ""
    if request.method == "POST":
        reason = request.POST.get("reason", "")[:500]
        try:
            ruling = services.table_close(table_id=table.pk, user=_user(request), reason=reason)
        except DomainError as exc:
            error = str(exc)
        else:
            returned = money(ruling.amount or 0, access.club.currency)
            messages.success(request, f"{table.name} is closed; {returned} went back to the members who paid it.")
            return redirect("games:table", table_id=table.pk)
    balance, shares = ledger_selectors.table_pot_shares(table_id=table.pk)
    return render(request, "games/table_close.html", {
        "club": access.club, "access": access, "table": table, "balance": balance, "shares": shares,
        "playing": selectors.hand_current(table=table) is not None and table.status == Table.Status.RUNNING,
        "error": error, "reason": reason, "title": f"Close {table.name}",
    }, status=400 if error else 200)


@login_required
def hand_act(request: HttpRequest, table_id: int) -> HttpResponse:
    """One action as a plain form post: hand id, the version it was made against, the action."""
    table, _access = _table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        act = act_request_parse(hand=request.POST.get("hand"), version=request.POST.get("version"),
                                action=request.POST.get("action", ""), amount=request.POST.get("amount"))
        services.hand_act(table_id=table.pk, hand_id=act.hand_id, user=_user(request), action=act.action,
                          version=act.version)
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect("games:table", table_id=table.pk)


@login_required
@require_POST
def deck_colours(request: HttpRequest) -> HttpResponse:
    """Switch between the two-colour and the four-colour deck (a cookie; no account needed)."""
    choice = "four" if request.POST.get("colours") == "four" else "two"
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = "/"
    response = HttpResponseRedirect(target)
    response.set_cookie(FOUR_COLOUR_COOKIE, choice, max_age=365 * 24 * 3600, samesite="Lax",
                        secure=request.is_secure(), httponly=True)
    return response


# ---- history ----------------------------------------------------------------------------------

@login_required
def hand_history(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table's finished hands, a page at a time (``?before=<hand number>``). Where spectators are kept
    out, a former player (not seated now) sees the hands they were dealt into, as on each hand's page."""
    table, access = _table_access(request, table_id)
    user = _user(request)
    dealt_to = None if selectors.table_may_watch(table=table, user=user) else user
    if dealt_to is not None and not selectors.hand_history(table=table, dealt_to=dealt_to, size=1)[0]:
        return _forbidden(request, table, access)
    status = 200
    try:
        before = query_key(request, "before")
    except BadQuery as exc:  # a broken or forged page link: the newest page, and why
        messages.error(request, str(exc))
        before, status = None, 400
    hands, next_before = selectors.hand_history(table=table, dealt_to=dealt_to, before=before)
    return render(request, "games/hand_history.html", {
        "club": access.club, "access": access, "table": table, "hands": hands, "next_before": next_before,
        "title": f"{table.name}: hands played",
    }, status=status)


def _finished_hand(request: HttpRequest, hand_id: int) -> tuple[Hand, ClubAccess] | HttpResponse:
    """The finished hand and the member's access, or the page to answer instead (403, or the table
    while the hand is being played); 404 for no such hand or a non-member."""
    hand = selectors.hand_get(hand_id=hand_id)
    if hand is None:
        raise Http404("No such hand.")
    access = club_access(request, hand.table.club_id)
    table = hand.table
    if not selectors.table_may_watch(table=table, user=_user(request), hand=hand):
        return _forbidden(request, table, access)
    if not hand.is_finished:
        messages.info(request, "That hand is still being played; its history opens when it ends.")
        return redirect("games:table", table_id=table.pk)
    return hand, access


@login_required
def hand_detail(request: HttpRequest, hand_id: int) -> HttpResponse:
    found = _finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    table = hand.table
    currency = access.club.currency
    names = selectors.hand_player_names(hand=hand)
    view = selectors.hand_view_for(hand=hand, user=None)  # the public view: the board as it stood at the end
    result = view.result
    proof = selectors.hand_proof_for(hand=hand, user=_user(request), is_organiser=access.is_organiser)
    return render(request, "games/hand_detail.html", {
        "club": access.club, "access": access, "table": table, "hand": hand, "view": view,
        "piles_board": piles_board(view),
        "story": hand_story(hand=hand, names=names, currency=currency),
        "result": result, "names": names, "shown": showdown_rows(result, names),
        "winners": [names.get(s, s) for s in result.winners] if result else [],
        "entries": selectors.hand_ledger_entries(hand=hand), "proof": proof, "proof_data": proof.export(),
        "exports": selectors.hand_exports(hand=hand),
        "deck_text": " ".join(hand.deck) if proof.scheme == engine.SCHEME_DECK else "",
        "voiding": ledger_selectors.hand_voiding(hand_id=hand.pk) if hand.voided_at else None,
        "title": f"{table.name}: hand {hand.number}", "version_url": reverse(
            "games:rule_version", kwargs={"club_id": access.club.pk, "version_id": hand.rule_version_id}),
        **_deck_context(request),
    })


@login_required
def hand_proof_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The hand's proof as JSON (the openings this member may have), for ``python -m games.engine.verify``."""
    found = _finished_hand(request, hand_id)
    if isinstance(found, HttpResponse):
        return found
    hand, access = found
    proof = selectors.hand_proof_for(hand=hand, user=_user(request), is_organiser=access.is_organiser)
    response = JsonResponse(proof.export(), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="hand-{hand.pk}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def hand_dispute(request: HttpRequest, hand_id: int) -> HttpResponse:
    """An organiser opens every card of a finished hand to its players, with a reason (a logged ruling)."""
    hand = selectors.hand_get(hand_id=hand_id)
    if hand is None:
        raise Http404("No such hand.")
    club_access(request, hand.table.club_id, organiser=True)
    try:
        services.hand_dispute_open(hand_id=hand.pk, user=_user(request), reason=request.POST.get("reason", ""))
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The hand is opened to its players, with your reason.")
    return redirect(reverse("games:hand_detail", args=[hand.pk]) + "#proof")
