"""/healthz: 200 only when PostgreSQL and Redis both answer.

Served by a middleware placed first, before host validation: a container's health check asks
for http://127.0.0.1:8000/healthz, a host that ALLOWED_HOSTS rightly does not list. Which part failed is
said only to a request for a loopback host or a name of HEALTH_DETAIL_HOSTS (the proxy's own); anyone
else, the public through the proxy included, reads a bare "ok" or "unavailable" and the status.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from kernel.pools import kept


def _postgres_ok() -> bool:
    """One query on this thread's connection, taken from (and given back to) the process's pool."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return bool(cursor.fetchone() == (1,))
    except Exception:
        return False


def _redis() -> redis.Redis:
    """One client per process (and Redis address), whose connection pool every probe reuses (kernel/pools.py)."""
    url = settings.REDIS_URL
    return kept("health probe", url, lambda: redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2))


def _redis_ok() -> bool:
    try:
        return _redis().ping() is True
    except Exception:
        return False


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _asks_for_details(request: HttpRequest) -> bool:
    """The Host header names loopback or the proxy's own name. Read from the raw header: ``get_host()``
    validates against ALLOWED_HOSTS, which rightly lists neither."""
    host = str(request.META.get("HTTP_HOST", "")).strip().lower()
    if host.startswith("["):  # [::1]:8000
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    host = host.rstrip(".")
    return host in LOOPBACK_HOSTS or host in {h.lower() for h in settings.HEALTH_DETAIL_HOSTS}


def healthz(request: HttpRequest) -> HttpResponse:
    checks = {"postgres": _postgres_ok(), "redis": _redis_ok()}
    healthy = all(checks.values())
    status = 200 if healthy else 503
    if _asks_for_details(request):
        return JsonResponse({"ok": healthy, **checks}, status=status)
    response = HttpResponse("ok\n" if healthy else "unavailable\n", status=status, content_type="text/plain")
    response["Cache-Control"] = "no-store"
    return response


class HealthCheckMiddleware:
    """Answer GET /healthz before any other middleware looks at the Host header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == "/healthz":
            return healthz(request)
        return self.get_response(request)
