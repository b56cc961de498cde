"""Notices in the browser: a member's notification settings (Web Push per kind, this browser's sound and
notification), the subscribe/unsubscribe endpoints of the page's script (static/js/notify.js), and the web
app's manifest and service worker at the site root (its push messages)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from games.views.common import member
from kernel.errors import DomainError
from notices.forms import PushChoiceForm
from notices.selectors import push_browser_count, push_choice_of
from notices.services.push import push_choice_set, push_subscribe, push_unsubscribe
from notices.webpush import vapid_public_key

MAX_BODY = 4096  # a subscription is well under 1 KB


@login_required
def notifications(request: HttpRequest) -> HttpResponse:
    user = member(request)
    choice = push_choice_of(user=user)
    form = PushChoiceForm(request.POST or None, instance=choice)
    if request.method == "POST" and form.is_valid():
        push_choice_set(
            user=user,
            turn=form.cleaned_data["turn"],
            reminder=form.cleaned_data["reminder"],
            digest=form.cleaned_data["digest"],
        )
        messages.success(request, "Push choices saved.")
        return redirect("notices:notifications")
    return render(
        request,
        "games/notifications.html",
        {
            "title": "Notifications",
            "form": form,
            "vapid_public_key": vapid_public_key() or "",
            "browsers": push_browser_count(user=user),
        },
    )


def _json_body(request: HttpRequest) -> dict[str, Any]:
    if len(request.body) > MAX_BODY:
        raise DomainError("That request is too large.")
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):
        raise DomainError("That request was not valid JSON.") from None
    if not isinstance(data, dict):
        raise DomainError("That request was not valid JSON.")
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@login_required
@require_POST
def push_subscribe_view(request: HttpRequest) -> JsonResponse:
    """This browser's PushSubscription (its ``toJSON()``: endpoint and keys) for the member."""
    try:
        data = _json_body(request)
        raw_keys = data.get("keys")
        keys: dict[str, Any] = raw_keys if isinstance(raw_keys, dict) else {}
        if vapid_public_key() is None:
            raise DomainError("Push notifications are not set up on this site.")
        push_subscribe(
            user=member(request),
            endpoint=_text(data.get("endpoint")),
            p256dh=_text(keys.get("p256dh")),
            auth=_text(keys.get("auth")),
        )
    except DomainError as exc:
        return JsonResponse({"error": exc.message}, status=400)
    return JsonResponse({"ok": True, "browsers": push_browser_count(user=member(request))}, status=201)


@login_required
@require_POST
def push_unsubscribe_view(request: HttpRequest) -> JsonResponse:
    try:
        data = _json_body(request)
        removed = push_unsubscribe(user=member(request), endpoint=_text(data.get("endpoint")))
    except DomainError as exc:
        return JsonResponse({"error": exc.message}, status=400)
    return JsonResponse({"ok": True, "removed": removed})


@require_GET
@cache_control(max_age=3600, public=True)
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest (application/manifest+json)."""
    data = {
        "name": "Home club",
        "short_name": "Home club",
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#14532d",
        "theme_color": "#14532d",
        "description": "Your club's poker tables, turn by turn.",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {
                "src": static("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")


@require_GET
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/js/sw.js served at /sw.js, so its scope is the whole site."""
    path = finders.find("js/sw.js")
    if not path:
        raise Http404
    with open(str(path), "rb") as handle:
        response = HttpResponse(handle.read(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response
