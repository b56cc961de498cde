"""How often a stranger may try: log-ins, password-reset mails, invitation mails.

Log-in failures are counted per account and per network: an IPv4 address, or an IPv6 address's /64 (one
household or machine gets a whole /64, so address by address would give a guesser unlimited tries). Three
tiers, over the failures django-axes records (its AccessAttempt rows, one per username, network and
browser, each with the time of its last failure):

- django-axes itself locks a (username, network) pair after AXES_FAILURE_LIMIT failures;
- `login_refusal` locks a network after LOGIN_ADDRESS_FAILURE_LIMIT failures for any usernames;
- and slows a username down after LOGIN_SLOWDOWN_AFTER failures from any networks: one try per
  delay (5 s, doubling up to LOGIN_SLOWDOWN_MAX_SECONDS).

A spared browser is held by none of them, so nobody else's failures (a household, a carrier's NAT, a
guesser at the member's own username) can keep the member out: one that logged in to that account before
(a signed "known device" cookie naming it), or one that opened a one-time log-in link mailed to the
account's address (accounts/login_pass.py; a signed cookie naming it, for LOGIN_LINK_SPARES_SECONDS). It counts
its own failures: after AXES_FAILURE_LIMIT of them it is spared no more (a thief holding it is treated as
anyone else). A new browser waits at most the longest delay or until the locks expire, or asks for a link.

The address is REMOTE_ADDR: the connecting peer, or the client a trusted proxy named (the web server
believes forwarded headers only from FORWARDED_ALLOW_IPS; config/serve.py). Never a raw header.

Mail limits are fixed-window counters in the cache (Redis), shared by every web process.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
from datetime import datetime, timedelta
from typing import Any

from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse

from .models import User

DEVICE_COOKIE = "club_device"
_DEVICE_SALT = "accounts.throttle.device"
LINK_COOKIE = "club_login_pass"  # set by a one-time log-in link (accounts/login_pass.py)
_LINK_SALT = "accounts.throttle.login-pass"


def client_address(request: HttpRequest) -> str | None:
    """The client's network as the web server computed its address (django-axes' AXES_CLIENT_IP_CALLABLE): an
    IPv4 address itself (/32), an IPv6 address's /64, which one household or one machine is given whole
    (keyed address by address, a /64 would give a guesser 2^64 fresh addresses)."""
    address = request.META.get("REMOTE_ADDR")
    return network_key(str(address)) if address else None


def network_key(address: str) -> str:
    """``address``'s network as failures are counted: "192.0.2.7" -> itself, "2001:db8:1:2:a:b:c:d" ->
    "2001:db8:1:2::", an IPv4-mapped IPv6 address -> its IPv4 address. Anything else is kept as given."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False).network_address)
    return str(ip)


def _window() -> timedelta:
    return timedelta(hours=float(settings.AXES_COOLOFF_TIME))


def _failures(*, since: datetime, **match: str) -> tuple[int, datetime | None]:
    found = AccessAttempt.objects.filter(attempt_time__gte=since, **match).aggregate(
        failures=Sum("failures_since_start"),
        last=Max("attempt_time"),
    )
    return int(found["failures"] or 0), found["last"]


def slowdown_seconds(failures: int) -> int:
    """The wait before the next try at a username that failed `failures` times (0 below the threshold)."""
    over = failures - int(settings.LOGIN_SLOWDOWN_AFTER)
    if over < 0:
        return 0
    return int(min(5 * 2 ** min(over, 16), int(settings.LOGIN_SLOWDOWN_MAX_SECONDS)))


def login_refusal(*, request: HttpRequest, username: str, now: datetime) -> str | None:
    """Why this log-in attempt is refused before the password is even checked, or None to go on.

    Reads the recorded failures (no write): an attempt refused here is not a failure, so it neither
    extends an address lock nor a username's delay.
    """
    if username and browser_spared(request=request, username=username):
        return None  # the member's own browser: a household or carrier NAT full of guessers can't lock it out
    since = now - _window()
    address = client_address(request)
    address_failures, _ = _failures(since=since, ip_address=address) if address else (0, None)
    if address_failures >= int(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        minutes = max(1, round(_window().total_seconds() / 60))
        return (
            f"Too many failed log-ins from your network. Logging in from here is paused for up to "
            f"{minutes} minutes; you can reset your password meanwhile."
        )
    if not username:
        return None
    name_failures, last = _failures(since=since, username=username)
    delay = slowdown_seconds(name_failures)
    if delay and last is not None:
        wait = (last + timedelta(seconds=delay) - now).total_seconds()
        if wait > 0:
            seconds = math.ceil(wait)
            return (
                f"This account had many failed log-ins, so it takes one try every few seconds. "
                f"Wait {seconds} second{'s' if seconds != 1 else ''} and try again."
            )
    return None


def is_known_device(*, request: HttpRequest, username: str) -> bool:
    """Whether this browser logged in to `username` before (a signed cookie, valid for some months)."""
    value = request.get_signed_cookie(
        DEVICE_COOKIE, default=None, salt=_DEVICE_SALT, max_age=timedelta(days=settings.LOGIN_DEVICE_COOKIE_DAYS)
    )
    if not value:
        return False
    return User.objects.filter(pk=int(value) if value.isdigit() else 0, username=username).exists()


def has_login_pass(*, request: HttpRequest, username: str) -> bool:
    """Whether this browser opened a one-time log-in link mailed to `username` (accounts/login_pass.py) lately."""
    value = request.get_signed_cookie(
        LINK_COOKIE, default=None, salt=_LINK_SALT, max_age=timedelta(seconds=settings.LOGIN_LINK_SPARES_SECONDS)
    )
    if not value:
        return False
    return User.objects.filter(pk=int(value) if value.isdigit() else 0, username=username).exists()


def set_login_pass(*, response: HttpResponse, user: User) -> None:
    response.set_signed_cookie(
        LINK_COOKIE,
        str(user.pk),
        salt=_LINK_SALT,
        max_age=int(settings.LOGIN_LINK_SPARES_SECONDS),
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def _own_failures_key(request: HttpRequest, username: str) -> str:
    """The browser's own failures at `username`: keyed by its cookies (each signed, so each names it alone)."""
    cookies = f"{request.COOKIES.get(DEVICE_COOKIE, '')}|{request.COOKIES.get(LINK_COOKIE, '')}"
    return _key("login-own", f"{username}|{cookies}")


def browser_spared(*, request: HttpRequest, username: str) -> bool:
    """Whether this browser is held only by its own failures at `username`, never by others': it logged in
    to that account before (a known device) or opened a one-time link mailed to it, and it has failed
    fewer than AXES_FAILURE_LIMIT times itself (a thief holding it is then treated as anyone else)."""
    if not (is_known_device(request=request, username=username) or has_login_pass(request=request, username=username)):
        return False
    return int(cache.get(_own_failures_key(request, username)) or 0) < int(settings.AXES_FAILURE_LIMIT)


def spared_browser_failed(*, request: HttpRequest, username: str) -> None:
    """Count a failure of a spared browser against itself (django-axes records none for it)."""
    hit(
        kind="login-own",
        value="",
        limit=0,
        window_seconds=int(_window().total_seconds()),
        key=_own_failures_key(request, username),
    )


def axes_spares(request: HttpRequest, credentials: dict[str, Any] | None) -> bool:
    """django-axes' AXES_WHITELIST_CALLABLE: a spared browser (``browser_spared``) is neither held by the
    (username, network) lock nor recorded in it; its own failures are counted by ``spared_browser_failed``."""
    username = str((credentials or {}).get("username") or request.POST.get("username") or "")
    return bool(username) and browser_spared(request=request, username=username)


def remember_device(*, response: HttpResponse, user: User) -> None:
    """Mark this browser as one that logged in to `user`, exempting it from the username slowdown."""
    response.set_signed_cookie(
        DEVICE_COOKIE,
        str(user.pk),
        salt=_DEVICE_SALT,
        max_age=int(timedelta(days=settings.LOGIN_DEVICE_COOKIE_DAYS).total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


# --- mail limits -----------------------------------------------------------------------------------

_HOUR = 3600


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"{settings.RATE_LIMIT_PREFIX}:{kind}:{digest}"


def hit(*, kind: str, value: str, limit: int, window_seconds: int = _HOUR, key: str = "") -> bool:
    """Count one use of `kind` by `value` (or under `key`) in the current window; False once it is over `limit`.

    The window starts at the first use (the key's lifetime), so a burst cannot straddle two windows.
    """
    key = key or _key(kind, value)
    cache.add(key, 0, timeout=window_seconds)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window_seconds)
        count = 1
    return int(count) <= limit
