"""The chat's plain form posts, for pages without JavaScript: post a line, hide a line."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.access import club_access
from games.selectors.chat import chat_message_place
from games.selectors.tables import table_get
from games.services.chat import chat_hide, chat_post
from games.views.common import member
from kernel.errors import DomainError


@login_required
@require_POST
def chat_send(request: HttpRequest, table_id: int) -> HttpResponse:
    table = table_get(table_id=table_id)
    if table is None:
        raise Http404("No such table.")
    club_access(request, table.club_id)
    try:
        chat_post(table_id=table.pk, user=member(request), text=request.POST.get("text", ""))
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect(reverse("games:table", kwargs={"table_id": table.pk}) + "#chat")


@login_required
@require_POST
def chat_hide_view(request: HttpRequest, message_id: int) -> HttpResponse:
    row = chat_message_place(message_id=message_id)
    if row is None:
        raise Http404("No such message.")
    club_access(request, row[1])
    try:
        chat_hide(message_id=message_id, user=member(request))
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect(reverse("games:table", kwargs={"table_id": row[0]}) + "#chat")
