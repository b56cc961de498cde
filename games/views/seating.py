"""Seating: take a seat (with the house rules to read first), sit out, sit in, leave."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from games import services
from games.errors import BelowCreditLimit
from games.forms import SeatForm
from games.presentation.presenters import rules_words
from games.selectors.seating import free_seats
from games.views.common import member, table_access, table_post
from kernel.errors import DomainError


@login_required
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    table, access = table_access(request, table_id)
    free = free_seats(table=table)
    settle_up = False  # refused below the credit limit: the page offers the Settle up page
    form = SeatForm(
        request.POST or None,
        free_seats=free,
        initial={"version": table.rule_version_id, "number": free[0] if free else None},
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.seat_take(
                table_id=table.pk,
                user=member(request),
                number=form.cleaned_data["number"],
                version_id=form.cleaned_data["version"],
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
            settle_up = isinstance(exc, BelowCreditLimit)
        else:
            messages.success(request, f"You sit at seat {form.cleaned_data['number']}.")
            return redirect("games:table", table_id=table.pk)
    return render(
        request,
        "games/seat_take.html",
        {
            "club": access.club,
            "access": access,
            "table": table,
            "form": form,
            "free": free,
            "version": table.rule_version,
            "words": rules_words(table.rule_version, access.club.currency),
            "settle_up": settle_up,
            "title": f"Sit at {table.name}",
        },
    )


@login_required
def seat_sit_out(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_post(request, table_id, services.seat_sit_out, "You will sit out from the next hand.")


@login_required
def seat_sit_in(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_post(request, table_id, services.seat_sit_in, "You will be dealt in from the next hand.")


@login_required
def seat_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_post(request, table_id, services.seat_leave, "You have left the table.")
