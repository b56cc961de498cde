"""One-time log-in links: a member whose new browser is held by someone else's failed log-ins (the network's
lock, the account's slowdown; accounts/throttle.py) asks for a link by email; opening it marks that browser
as spared for that account (a signed cookie, LOGIN_LINK_SPARES_SECONDS), and the password still decides.

The link is good once and for LOGIN_LINK_SECONDS; it carries a random nonce kept in the cache, deleted when
used. Opening it is a button press (a mail scanner's GET uses nothing). Asking never says whether the
account exists; an account gets at most LOGIN_LINKS_PER_HOUR mails an hour, a network asks at most
PASSWORD_RESET_REQUESTS_PER_CLIENT times an hour.
"""

from __future__ import annotations

import logging
import secrets

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from . import throttle
from .models import User

log = logging.getLogger(__name__)

_LINK_SALT = "accounts.login-pass.link"


def _nonce_key(nonce: str) -> str:
    return f"{settings.RATE_LIMIT_PREFIX}:login-link:{nonce}"


def login_link_send(*, username: str, site_url: str) -> None:
    """Mail a one-time log-in link to the account named `username`, if it exists, is active, has an address
    and is under its hourly cap; silently nothing otherwise (the page says the same either way)."""
    user = User.objects.filter(username=username, is_active=True).exclude(email="").first()
    if user is None or not throttle.hit(
        kind="login-link-account", value=str(user.pk), limit=settings.LOGIN_LINKS_PER_HOUR
    ):
        return
    nonce = secrets.token_urlsafe(18)
    cache.set(_nonce_key(nonce), user.pk, timeout=settings.LOGIN_LINK_SECONDS)
    token = signing.dumps({"u": user.pk, "n": nonce}, salt=_LINK_SALT)
    url = site_url.rstrip("/") + reverse("login_link_open", args=[token])
    minutes = max(1, round(settings.LOGIN_LINK_SECONDS / 60))
    try:
        send_mail(
            subject="Your one-time log-in link",
            message=(
                f"Someone (we hope you) asked to log in to {user.username} from a browser that failed log-ins "
                f"from its network are holding back.\n\nOpen this link in that browser within {minutes} minutes, "
                f"then log in with your password as usual:\n{url}\n\nIt works once. If you did not ask, ignore "
                f"this mail: without your password the link lets nobody in.\n"
            ),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[user.email],
        )
    except OSError:
        log.warning("a one-time log-in link was not sent", exc_info=True)


def login_link_use(*, token: str) -> User | None:
    """The account a still-unused, unexpired link was mailed to, using it up; None for any other link."""
    try:
        data = signing.loads(token, salt=_LINK_SALT, max_age=settings.LOGIN_LINK_SECONDS)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("n"), str) or not isinstance(data.get("u"), int):
        return None
    key = _nonce_key(data["n"])
    if cache.get(key) != data["u"] or not cache.delete(key):  # delete: only one of two at once gets True
        return None
    return User.objects.filter(pk=data["u"], is_active=True).first()


@require_http_methods(["GET", "POST"])
def login_link_request(request: HttpRequest) -> HttpResponse:
    """Ask for a link: the same answer whether or not the account exists."""
    context = {"title": "A one-time log-in link", "username": "", "sent": False, "error": ""}
    if request.method == "POST":
        username = str(request.POST.get("username") or "").strip()[:150]
        context["username"] = username
        if not username:
            context["error"] = "Enter your username."
            return render(request, "accounts/login_link.html", context, status=400)
        if not throttle.hit(
            kind="login-link-client",
            value=throttle.client_address(request) or "",
            limit=settings.PASSWORD_RESET_REQUESTS_PER_CLIENT,
        ):
            context["error"] = "Too many log-in links asked for from your network. Try again in an hour."
            return render(request, "accounts/login_link.html", context, status=429)
        login_link_send(username=username, site_url=request.build_absolute_uri("/"))
        context["sent"] = True
    else:
        context["username"] = str(request.GET.get("username") or "")[:150]
    return render(request, "accounts/login_link.html", context)


@require_http_methods(["GET", "POST"])
def login_link_open(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a button (so a mail scanner's visit uses nothing up); POST: use the link in this browser."""
    context = {"title": "Log in from this browser", "token": token, "error": ""}
    if request.method == "GET":
        return render(request, "accounts/login_link_open.html", context)
    user = login_link_use(token=token)
    if user is None:
        context["error"] = "This link has been used or has expired. Ask for a new one on the log-in page."
        return render(request, "accounts/login_link_open.html", context, status=400)
    messages.success(
        request,
        f"This browser may now log in to {user.username} whatever failed log-ins others made; log in with your password.",
    )
    response = redirect("login")
    throttle.set_login_pass(response=response, user=user)
    return response
