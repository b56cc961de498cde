"""GET/POST /profile/devices/ (docs/fairness.md "Protocol" 3): a member's own device keys as JSON, and the
registration of this browser's key (static/js/device.js sends it with the CSRF header)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from .devices import DeviceRefused, device_list, device_register, device_retire, device_to_dict
from .models import User

BODY_MAX = 4096  # a 2048-bit key and a label fit many times over


@login_required
def devices(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    if request.method == "GET":
        response = JsonResponse({"user": user.pk, "devices": [device_to_dict(d) for d in device_list(user=user)]})
        response["Cache-Control"] = "no-store"
        return response
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    if len(request.body) > BODY_MAX:
        return JsonResponse({"error": "That is too long for a device key."}, status=400)
    try:
        data = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        return JsonResponse({"error": 'Send JSON {"n": hex, "e": 65537, "label": words}.'}, status=400)
    try:
        done = device_register(user=user, n=data.get("n"), e=data.get("e"), label=data.get("label", ""))
    except DeviceRefused as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    body = {k: v for k, v in device_to_dict(done.device).items() if k in ("fingerprint", "label", "registered_at")}
    return JsonResponse(body, status=201 if done.new else 200)


@login_required
@require_POST
def device_retire_view(request: HttpRequest) -> HttpResponse:
    """The profile page's button: retire one of my devices (it cuts no more; it stays listed)."""
    user = request.user
    assert isinstance(user, User)
    try:
        device = device_retire(user=user, fingerprint=request.POST.get("fingerprint", "")[:64])
    except DeviceRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Device {device.short} is retired: it no longer cuts your deals.")
    return redirect("/profile/#devices")
