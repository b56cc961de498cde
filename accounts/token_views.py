"""API keys on the profile page: make one (its key is shown once) or revoke one."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .models import ApiToken, User
from .tokens import api_token_create, api_token_revoke

MAX_LIVE_TOKENS = 10


def _me(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


@login_required
@require_POST
def api_key_create(request: HttpRequest) -> HttpResponse:
    me = _me(request)
    if ApiToken.objects.filter(user=me, revoked_at__isnull=True).count() >= MAX_LIVE_TOKENS:
        messages.error(request, f"You have {MAX_LIVE_TOKENS} API keys already: revoke one first.")
        return redirect("profile")
    token, key = api_token_create(user=me, name=request.POST.get("name", ""))
    response = render(
        request,
        "accounts/api_key_made.html",
        {
            "title": "Your new API key",
            "token": token,
            "key": key,
            "schema_url": request.build_absolute_uri(reverse("games:api_schema")),
            "example_url": request.build_absolute_uri(reverse("games:api_clubs")),
        },
    )
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def api_key_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = api_token_revoke(user=_me(request), token_id=token_id)
    if token is None:
        messages.error(request, "There is no such API key.")
    else:
        messages.success(request, f"API key \u201c{token.name}\u201d revoked: it reads nothing any more.")
    return redirect("profile")
