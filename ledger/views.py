"""Ledger pages. Each checks access with `club_access`, parses a form, calls one service.

Members see the balance sheet, the settle-up page, the chart and their own
statement; organisers see every statement, the journal and the rulings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.access import ClubAccess, club_access
from accounts.models import User
from accounts.money import units_from_cents
from accounts.selectors import club_member_get
from kernel.errors import DomainError
from kernel.query import BadQuery, query_key

from . import exports, selectors, services
from .forms import AdjustmentForm, SettlementForm, SettlementLimitForm, StatementFilterForm
from .selectors import StatementFilter
from .signals import rulings_page_forms


def _me(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _member_of(access: ClubAccess, user_id: int) -> User:
    """The member `user_id` of the club, or 404 (a forged or foreign id reveals nothing)."""
    membership = club_member_get(club=access.club, user_id=user_id)
    if membership is None:
        raise Http404("No such member in this club.")
    return membership.user


def _statement_access(request: HttpRequest, club_id: int, user_id: int) -> tuple[ClubAccess, User]:
    access = club_access(request, club_id)
    if user_id != _me(request).pk and not access.is_organiser:
        raise PermissionDenied("You can see only your own statement.")
    return access, _member_of(access, user_id)


def _filters(request: HttpRequest, access: ClubAccess) -> tuple[StatementFilterForm, StatementFilter | None]:
    form = StatementFilterForm(request.GET, club=access.club)
    if form.is_valid():
        return form, form.to_filter()
    return form, None


def _query_without_cursor(request: HttpRequest) -> str:
    return urlencode([(k, v) for k, v in request.GET.items() if k != "before" and v])


# --- balance sheet, statements, journal -------------------------------------------


@login_required
@require_GET
def balance_sheet(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    rows = selectors.balance_sheet(club=access.club)
    return render(
        request,
        "ledger/balance_sheet.html",
        {
            "club": access.club,
            "access": access,
            "rows": rows,
            "ups": [r for r in rows if r.balance > 0],
            "downs": [r for r in rows if r.balance < 0],
            "pots": selectors.pots_total(club=access.club),
            "pot_tables": selectors.pots_by_table(club=access.club),
            "title": f"Balance sheet · {access.club.name}",
        },
    )


@login_required
@require_GET
def my_statement(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return redirect("ledger:statement", club_id=access.club.pk, user_id=_me(request).pk)


@login_required
@require_GET
def statement(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    access, member = _statement_access(request, club_id, user_id)
    form, flt = _filters(request, access)
    account = selectors.member_account(club=access.club, user=member)
    page = None
    if flt is not None and account is not None:
        page = selectors.statement_page(account=account, flt=flt, before=form.cleaned_data.get("before"))
    query = _query_without_cursor(request)
    return render(
        request,
        "ledger/statement.html",
        {
            "club": access.club,
            "access": access,
            "member": member,
            "account": account,
            "form": form,
            "page": page,
            "query": query,
            "is_me": member.pk == _me(request).pk,
            "balance": account.balance if account else 0,
            "export_url": reverse("ledger:statement_export", args=[access.club.pk, member.pk])
            + (f"?{query}" if query else ""),
            "title": f"Statement of {member.shown_name}",
        },
        status=200 if flt is not None else 400,
    )


@login_required
@require_GET
def journal(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    form, flt = _filters(request, access)
    page = selectors.journal_page(club=access.club, flt=flt, before=form.cleaned_data.get("before")) if flt else None
    query = _query_without_cursor(request)
    return render(
        request,
        "ledger/journal.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "page": page,
            "query": query,
            "export_url": reverse("ledger:journal_export", args=[access.club.pk]) + (f"?{query}" if query else ""),
            "title": f"Journal · {access.club.name}",
        },
        status=200 if flt is not None else 400,
    )


# --- CSV exports (streamed) ---------------------------------------------------------


def _streamed_csv(request: HttpRequest, lines: Iterator[bytes], filename: str) -> StreamingHttpResponse:
    """A sync iterator under WSGI, an async one under ASGI (Django would otherwise read it all
    into memory first); either way PostgreSQL's COPY streams the rows and memory stays flat."""
    if isinstance(request, ASGIRequest):

        def next_chunk() -> bytes | None:
            return next(lines, None)

        async def chunks() -> AsyncIterator[bytes]:
            while (chunk := await sync_to_async(next_chunk)()) is not None:
                yield chunk

        response = StreamingHttpResponse(chunks(), content_type="text/csv; charset=utf-8")
    else:
        response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def statement_export(request: HttpRequest, club_id: int, user_id: int) -> HttpResponseBase:
    access, member = _statement_access(request, club_id, user_id)
    form, flt = _filters(request, access)
    if flt is None:
        return HttpResponse(
            "The filters are not valid: " + "; ".join(str(e) for errors in form.errors.values() for e in errors),
            status=400,
            content_type="text/plain",
        )
    account = selectors.member_account(club=access.club, user=member)
    stamp = timezone.localdate().isoformat()
    return _streamed_csv(
        request,
        exports.statement_csv(account=account, flt=flt),
        f"statement-{access.club.pk}-{member.username}-{stamp}.csv",
    )


@login_required
@require_GET
def journal_export(request: HttpRequest, club_id: int) -> HttpResponseBase:
    access = club_access(request, club_id, organiser=True)
    form, flt = _filters(request, access)
    if flt is None:
        return HttpResponse("The filters are not valid.", status=400, content_type="text/plain")
    return _streamed_csv(
        request,
        exports.journal_csv(club=access.club, flt=flt),
        f"journal-{access.club.pk}-{timezone.localdate().isoformat()}.csv",
    )


# --- chart ----------------------------------------------------------------------------

CHART_PERIODS = {"30": 30, "90": 90, "365": 365, "all": None}
CHART_MIN_DAYS = 3  # fewer days with entries than this: the balance chart has a point per entry


def entry_labels(moments: Sequence[datetime]) -> list[str]:
    """A label for each entry on the chart's time axis, no two alike: to the minute; to the second where
    entries share a minute; numbered '(2 of 3)' where they share a second too (one hand's ante and award)."""
    local = [timezone.localtime(m) for m in moments]
    minutes = Counter(m.strftime("%Y-%m-%d %H:%M") for m in local)
    labels = [
        m.strftime("%Y-%m-%d %H:%M" if minutes[m.strftime("%Y-%m-%d %H:%M")] == 1 else "%Y-%m-%d %H:%M:%S")
        for m in local
    ]
    totals, seen = Counter(labels), Counter[str]()
    out = []
    for label in labels:
        seen[label] += 1
        out.append(label if totals[label] == 1 else f"{label} ({seen[label]} of {totals[label]})")
    return out


@login_required
@require_GET
def chart(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    me = _me(request)
    member = me
    if request.GET.get("member"):
        try:
            member_id = int(request.GET["member"])
        except ValueError as exc:
            raise Http404("No such member in this club.") from exc
        if member_id != me.pk and not access.is_organiser:
            raise PermissionDenied("You can see only your own balance over time.")
        member = _member_of(access, member_id)
    period = request.GET.get("days", "365")
    if period not in CHART_PERIODS:
        period = "365"
    days = CHART_PERIODS[period]
    account = selectors.member_account(club=access.club, user=member)
    history = selectors.balance_history(account=account, days=days)
    by_entry = 0 < len(history) < CHART_MIN_DAYS
    if by_entry:
        # One point a day on a day or two draws no line: plot each entry at its time instead.
        entries = selectors.balance_by_entry(account=account, days=days)
        history = list(zip(entry_labels([at for at, _ in entries]), [balance for _, balance in entries], strict=True))
    movers = selectors.biggest_movements(club=access.club, days=days or 3650)
    return render(
        request,
        "ledger/chart.html",
        {
            "club": access.club,
            "access": access,
            "member": member,
            "period": period,
            "periods": list(CHART_PERIODS),
            "history": history,
            "by_entry": by_entry,
            "movers": movers,
            "members": selectors.balance_sheet(club=access.club) if access.is_organiser else [],
            "chart_data": {
                "currency": access.club.currency,
                "history": {"labels": [d for d, _ in history], "values": [b / 100 for _, b in history]},
                "movers": {"labels": [m.user.shown_name for m in movers], "values": [m.change / 100 for m in movers]},
            },
            "title": f"Balance over time · {member.shown_name}",
        },
    )


# --- settle up ------------------------------------------------------------------------


def _settle_context(access: ClubAccess, me: User, **extra: Any) -> dict[str, Any]:
    rows = selectors.balance_sheet(club=access.club)
    users = {r.user.pk: r.user for r in rows}
    balances = {r.user.pk: r.balance for r in rows}
    plan = selectors.settle_up_plan(balances)
    left = selectors.settle_up_left(balances, plan)
    return {
        "club": access.club,
        "access": access,
        "rows": rows,
        "plan": [(users[t.payer_id], users[t.payee_id], t.amount) for t in plan],
        "left": [
            (users[user_id], "down" if amount < 0 else "up", abs(amount))
            for user_id, amount in sorted(left.items(), key=lambda kv: kv[1])
        ],
        "pots": selectors.pots_total(club=access.club),
        "pot_tables": selectors.pots_by_table(club=access.club),
        "settlements": selectors.settlement_list(club=access.club, user=None if access.is_organiser else me),
        "limit": services.ledger_settings_for(club=access.club).settlement_max,
        "form": extra.pop("form", None) or SettlementForm(club=access.club, initial={"payer": me.pk}),
        "limit_form": extra.pop("limit_form", None)
        or SettlementLimitForm(
            initial={"settlement_max": units_from_cents(services.ledger_settings_for(club=access.club).settlement_max)}
        ),
        "me": me,
        "title": f"Settle up · {access.club.name}",
        **extra,
    }


@login_required
@require_http_methods(["GET", "POST"])
def settle(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    me = _me(request)
    if request.method == "POST":
        form = SettlementForm(request.POST, club=access.club)
        if form.is_valid():
            data = form.cleaned_data
            try:
                settlement = services.settlement_record(
                    club=access.club,
                    payer=data["payer"],
                    payee=data["payee"],
                    amount=data["amount"],
                    paid_on=data["paid_on"],
                    note=data["note"],
                    recorded_by=me,
                )
            except DomainError as exc:
                form.add_error(None, str(exc))
            else:
                if settlement.status == settlement.Status.CONFIRMED:
                    messages.success(request, "Settlement recorded in the books.")
                else:
                    messages.success(
                        request,
                        f"Settlement recorded; it goes into the books when {settlement.payee.shown_name} confirms it.",
                    )
                return redirect("ledger:settle", club_id=access.club.pk)
        return render(request, "ledger/settle.html", _settle_context(access, me, form=form), status=400)
    return render(request, "ledger/settle.html", _settle_context(access, me))


def _settlement_decision(request: HttpRequest, club_id: int, settlement_id: int, confirm: bool) -> HttpResponse:
    access = club_access(request, club_id)
    try:
        if confirm:
            services.settlement_confirm(club=access.club, settlement_id=settlement_id, user=_me(request))
            messages.success(request, "Settlement confirmed and posted to the books.")
        else:
            services.settlement_decline(club=access.club, settlement_id=settlement_id, user=_me(request))
            messages.success(request, "Settlement declined; the books are unchanged.")
    except DomainError as exc:
        messages.error(request, str(exc))
        return render(request, "ledger/settle.html", _settle_context(access, _me(request)), status=400)
    return redirect("ledger:settle", club_id=access.club.pk)


@login_required
@require_POST
def settlement_confirm(request: HttpRequest, club_id: int, settlement_id: int) -> HttpResponse:
    return _settlement_decision(request, club_id, settlement_id, confirm=True)


@login_required
@require_POST
def settlement_decline(request: HttpRequest, club_id: int, settlement_id: int) -> HttpResponse:
    return _settlement_decision(request, club_id, settlement_id, confirm=False)


@login_required
@require_POST
def settlement_limit(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    form = SettlementLimitForm(request.POST)
    if form.is_valid():
        try:
            services.ledger_settings_update(
                club=access.club, settlement_max=form.cleaned_data["settlement_max"], by=_me(request)
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Settlement limit saved.")
            return redirect("ledger:settle", club_id=access.club.pk)
    return render(request, "ledger/settle.html", _settle_context(access, _me(request), limit_form=form), status=400)


# --- rulings --------------------------------------------------------------------------


def _rulings_before(request: HttpRequest) -> tuple[int | None, bool]:
    """The rulings page's cursor (``?before=``) and whether the link was broken (then the newest page,
    with a message, answered 400)."""
    try:
        return query_key(request, "before"), False
    except BadQuery as exc:
        messages.error(request, str(exc))
        return None, True


def rulings_context(
    request: HttpRequest, access: ClubAccess, *, before: int | None = None, **forms: Any
) -> dict[str, Any]:
    rulings, next_before = selectors.ruling_list(club=access.club, before=before)
    context: dict[str, Any] = {
        "club": access.club,
        "access": access,
        "rulings": rulings,
        "next_before": next_before,
        "adjust_form": AdjustmentForm(club=access.club),
        "title": f"Rulings · {access.club.name}",
    }
    # The forms of the apps above the ledger (games: "void a hand"), then the bound ones given back.
    for _receiver, more in rulings_page_forms.send(sender=rulings_context, club=access.club):
        if isinstance(more, dict):
            context.update(more)
    context.update(forms)
    return context


@login_required
@require_GET
def rulings(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    before, broken = _rulings_before(request)
    return render(
        request, "ledger/rulings.html", rulings_context(request, access, before=before), status=400 if broken else 200
    )


@login_required
@require_POST
def ruling_adjust(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    form = AdjustmentForm(request.POST, club=access.club)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.ruling_adjust(
                club=access.club,
                from_user=data["from_user"],
                to_user=data["to_user"],
                amount=data["amount"],
                reason=data["reason"],
                ruled_by=_me(request),
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Ruling recorded and posted to the books.")
            return redirect("ledger:rulings", club_id=access.club.pk)
    return render(request, "ledger/rulings.html", rulings_context(request, access, adjust_form=form), status=400)
