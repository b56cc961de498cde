"""The deck's colours: two or four suits' colours, a cookie of this browser (no account setting)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from games.views.common import FOUR_COLOUR_COOKIE


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
