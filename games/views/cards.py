"""How the site looks in this browser: the deck's colours (two or four suits' colours) and the appearance
(light, dark, or as the system says). Each a cookie of this browser, no account setting."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from games.views.common import APPEARANCE_COOKIE, FOUR_COLOUR_COOKIE


def _remember(request: HttpRequest, cookie: str, choice: str) -> HttpResponse:
    """Back to the page the switch was on (``next``, when it is this site's), with ``choice`` kept for a year."""
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = HttpResponseRedirect(target)
    response.set_cookie(
        cookie, choice, max_age=365 * 24 * 3600, samesite="Lax", secure=request.is_secure(), httponly=True
    )
    return response


@login_required
@require_POST
def deck_colours(request: HttpRequest) -> HttpResponse:
    """Switch between the two-colour and the four-colour deck (a cookie; no account needed)."""
    return _remember(request, FOUR_COLOUR_COOKIE, "four" if request.POST.get("colours") == "four" else "two")


@require_POST
def appearance(request: HttpRequest) -> HttpResponse:
    """Light, dark, or as the system says (``system``, the default): the page's ``html[data-theme]``."""
    choice = request.POST.get("theme")
    return _remember(request, APPEARANCE_COOKIE, choice if choice in ("light", "dark") else "system")
