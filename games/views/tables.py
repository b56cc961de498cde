"""Table pages: the lobby, a new table, the table itself, starting it, the next game, closing it, and the
next table where it is the member's turn."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from accounts.access import club_access
from accounts.money import money
from games import services
from games.forms import TableForm
from games.models import Table
from games.presentation.mine import my_tables_shown
from games.presentation.presenters import hand_page
from games.selectors.hands import hand_current
from games.selectors.mine import tables_my_turn
from games.selectors.tables import table_list_finished, table_list_open, table_may_watch
from games.services import practice
from games.views.common import deck_context, forbidden, member, settle_up_tag, table_access, table_post
from games.views.practice import PracticeForm
from kernel.errors import DomainError
from ledger import selectors as ledger_selectors


@login_required
def lobby(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    form = TableForm(club_id=access.club.pk, initial={"name": "Table"})
    return render(
        request,
        "games/lobby.html",
        {
            "club": access.club,
            "access": access,
            "rows": table_list_open(club=access.club, user=member(request)),
            "finished": table_list_finished(club=access.club, user=member(request)),
            "form": form,
            "title": "Tables",
            # Its own element ids: the page's other form has a rule_version select too, and each label names its own.
            "practice_form": PracticeForm(club_id=access.club.pk, auto_id="practice_%s"),
            **_my_tables_context(request),
        },
    )


def _my_tables_context(request: HttpRequest) -> dict[str, Any]:
    """The My tables block's rows, and the clubs whose lobby sockets tell it when to re-fetch."""
    rows = my_tables_shown(user=member(request))
    return {"my_rows": rows, "my_club_ids": " ".join(sorted({str(r.table.club_id) for r in rows}))}


def tables_waiting(request: HttpRequest) -> int:
    """The header's count (games/presentation/context.py reads the same selector)."""
    return len(tables_my_turn(user=member(request)))


@login_required
@require_GET
def my_tables_page(request: HttpRequest) -> HttpResponse:
    """Every table of the member's clubs where they sit, what needs them first."""
    return render(request, "games/my_tables.html", {"title": "My tables", **_my_tables_context(request)})


@login_required
@require_GET
def my_tables_block(request: HttpRequest) -> HttpResponse:
    """The My tables block and the header's count of tables waiting: static/js/lobby.js re-fetches them when a
    lobby socket says a table changed, static/js/table.js when the table shown moves."""
    return render(
        request,
        "games/my_tables_block.html",
        {**_my_tables_context(request), "tables_waiting": tables_waiting(request)},
    )


@login_required
def table_new(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    form = TableForm(request.POST or None, club_id=access.club.pk, initial={"name": "Table"})
    if request.method == "POST" and form.is_valid():
        try:
            table = services.table_create(
                club=access.club,
                user=member(request),
                name=form.cleaned_data["name"],
                rule_version_id=form.cleaned_data["rule_version"].pk,
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{table.name} is open. Take a seat.")
            return redirect("games:table", table_id=table.pk)
    return render(
        request,
        "games/table_new.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "title": "New table",
        },
    )


@login_required
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table, access = table_access(request, table_id)
    user = member(request)
    hand = hand_current(table=table)
    if not table_may_watch(table=table, user=user, hand=hand):
        return forbidden(request, table, access)
    if table.practice:
        practice.practice_wake(table=table)
    context = hand_page(table=table, hand=hand, user=user, currency=access.club.currency)
    closing = ledger_selectors.table_closing(table_id=table.pk) if table.status == Table.Status.FINISHED else None
    return render(
        request,
        "games/table.html",
        {
            **context,
            "club": access.club,
            "access": access,
            "table": table,
            "title": table.name,
            "closing": closing,
            **deck_context(request),
        },
    )


@login_required
def table_start(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_post(request, table_id, services.table_start, "The first hand is dealt.")


@login_required
def table_new_game(request: HttpRequest, table_id: int) -> HttpResponse:
    """A player of a finished game deals the next one at the same table, everyone seated staying seated."""
    table, _access = table_access(request, table_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        services.table_new_game(table_id=table.pk, user=member(request))
    except DomainError as exc:
        messages.error(request, str(exc), extra_tags=settle_up_tag(exc))
        return redirect("games:table", table_id=table.pk)
    messages.success(request, "A new game is dealt: everyone seated plays on.")
    return redirect("games:table", table_id=table.pk)


@login_required
def table_close(request: HttpRequest, table_id: int) -> HttpResponse:
    """An organiser closes a table: a page that says who gets the pot back, then the ruling. A practice table
    is its member's own: they close it with one post (no ruling, nothing to give back); nobody else may."""
    table, access = table_access(request, table_id)
    if table.practice:
        return _practice_close(request, table)
    if not access.is_organiser:
        raise PermissionDenied("Only the club's organisers can close a table.")
    error = ""
    reason = ""
    if request.method == "POST":
        reason = request.POST.get("reason", "")[:500]
        try:
            ruling = services.table_close(table_id=table.pk, user=member(request), reason=reason)
        except DomainError as exc:
            error = str(exc)
        else:
            returned = money(ruling.amount or 0, access.club.currency)
            messages.success(request, f"{table.name} is closed; {returned} went back to the members who paid it.")
            return redirect("games:table", table_id=table.pk)
    balance, shares = ledger_selectors.table_pot_shares(table_id=table.pk)
    return render(
        request,
        "games/table_close.html",
        {
            "club": access.club,
            "access": access,
            "table": table,
            "balance": balance,
            "shares": shares,
            "playing": hand_current(table=table) is not None and table.status == Table.Status.RUNNING,
            "error": error,
            "reason": reason,
            "title": f"Close {table.name}",
        },
        status=400 if error else 200,
    )


def _practice_close(request: HttpRequest, table: Table) -> HttpResponse:
    if table.created_by_id != member(request).pk:
        raise PermissionDenied("A practice table is its member's own: only they can close it.")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        practice.practice_close(table_id=table.pk, user=member(request))
    except DomainError as exc:
        messages.error(request, str(exc))
        return redirect("games:table", table_id=table.pk)
    messages.success(request, f"{table.name} is closed.")
    return redirect("games:lobby", club_id=table.club_id)


@login_required
@require_GET
def next_turn(request: HttpRequest) -> HttpResponse:
    """To the next table of the member's clubs where they are to act: the one after ``?after=<table id>``
    in the list (round again at its end), else the first; a message when none waits for them."""
    tables = tables_my_turn(user=member(request))
    if not tables:
        messages.info(request, "No table is waiting for you: it is nobody's turn but others' for now.")
        return redirect("home")
    after = request.GET.get("after", "")
    ids = [t.pk for t in tables]
    index = 0
    if after.isascii() and after.isdigit() and len(after) < 12 and int(after) in ids:
        index = (ids.index(int(after)) + 1) % len(ids)
    return redirect("games:table", tables[index].pk)
