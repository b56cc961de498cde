"""/healthz: 200 only when PostgreSQL and Redis both answer.

Served by a middleware placed first, before host validation: a container's health check asks
for http://127.0.0.1:8000/healthz, a host that ALLOWED_HOSTS rightly does not list.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse


def _postgres_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return bool(cursor.fetchone() == (1,))
    except Exception:
        return False


def _redis_ok() -> bool:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        try:
            return client.ping() is True
        finally:
            client.close()
    except Exception:
        return False


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"postgres": _postgres_ok(), "redis": _redis_ok()}
    healthy = all(checks.values())
    return JsonResponse({"ok": healthy, **checks}, status=200 if healthy else 503)


class HealthCheckMiddleware:
    """Answer GET /healthz before any other middleware looks at the Host header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == "/healthz":
            return healthz(request)
        return self.get_response(request)
