"""How often a stranger may try: log-ins, password-reset mails, invitation mails.

Log-ins have three tiers, all counted over the failures django-axes records (its AccessAttempt rows,
one per username, address and browser, each with the time of its last failure):

- django-axes itself locks a (username, address) pair after AXES_FAILURE_LIMIT failures;
- `login_refusal` locks an address after LOGIN_ADDRESS_FAILURE_LIMIT failures for any usernames;
- and slows a username down after LOGIN_SLOWDOWN_AFTER failures from any addresses: one try per
  delay (5 s, doubling up to LOGIN_SLOWDOWN_MAX_SECONDS).

A browser that logged in to that account before (it carries a signed "known device" cookie naming it) is
neither held by the address lock nor slowed, so guessers behind the same address (a household, a
carrier's NAT) or anywhere cannot keep the member out; it still counts its own failures, and django-axes'
(username, address) lock still stops a guesser who has that browser. A new browser waits at most the
longest delay, or until the address lock expires.

The address is REMOTE_ADDR: the connecting peer, or the client a trusted proxy named (the web server
believes forwarded headers only from FORWARDED_ALLOW_IPS; config/serve.py). Never a raw header.

Mail limits are fixed-window counters in the cache (Redis), shared by every web process.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime, timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse

from .models import User

DEVICE_COOKIE = "club_device"
_DEVICE_SALT = "accounts.throttle.device"


def client_address(request: HttpRequest) -> str | None:
    """The client's address as the web server computed it (django-axes' AXES_CLIENT_IP_CALLABLE)."""
    address = request.META.get("REMOTE_ADDR")
    return str(address) if address else None


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
    if username and is_known_device(request=request, username=username):
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


def hit(*, kind: str, value: str, limit: int, window_seconds: int = _HOUR) -> bool:
    """Count one use of `kind` by `value` in the current window; False once it is over `limit`.

    The window starts at the first use (the key's lifetime), so a burst cannot straddle two windows.
    """
    key = _key(kind, value)
    cache.add(key, 0, timeout=window_seconds)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window_seconds)
        count = 1
    return int(count) <= limit
