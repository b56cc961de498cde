"""/healthz: 200 only when PostgreSQL and Redis both answer."""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


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
