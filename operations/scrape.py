"""GET /metrics: the Prometheus scrape, for a token or an allowed address only.

Answered by a middleware placed before host validation (Prometheus asks for ``web:8000``, a host
``ALLOWED_HOSTS`` rightly does not list). Access: ``Authorization: Bearer <METRICS_TOKEN>`` when
that setting is set, or a client address in ``METRICS_ALLOWED_IPS`` (default: loopback only).
Behind the proxy the client address is the visitor's (forwarded headers are trusted from the
proxy only), so the public never matches; the proxy also refuses /metrics itself.

Besides the instruments of ``kernel/metrics.py`` (added up over the processes of this host when
``PROMETHEUS_MULTIPROC_DIR`` is set), each scrape reads: the Celery queue's depth, the turns
overdue beyond the sweep's reach, the timeouts applied by their own task and by the sweep, and
the latest ledger verification (a beat task, ``LEDGER_VERIFY_SECONDS``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from kernel import metrics as instruments

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LEDGER_KEY = "ledger"


def overdue_grace() -> timedelta:
    """How late a turn may be before it counts as overdue: two sweeps and a margin."""
    return timedelta(seconds=2 * float(settings.TURN_SWEEP_SECONDS) + 10)


def ledger_status_store(*, ok: bool, problems: int, summary: str) -> None:
    """Keep the latest verification of the books for the scrape (Redis, shared by every process)."""
    client = instruments.redis_client()
    try:
        client.set(
            instruments._redis_key(LEDGER_KEY),
            json.dumps({"ok": ok, "problems": problems, "summary": summary, "at": time.time()}),
        )
    finally:
        client.close()


def ledger_status() -> dict[str, Any] | None:
    client = instruments.redis_client()
    try:
        raw = client.get(instruments._redis_key(LEDGER_KEY))
    finally:
        client.close()
    return json.loads(raw) if raw else None


class ClubCollector(Collector):
    """What is read at scrape time. A part whose service does not answer is left out (and logged)."""

    def collect(self) -> Iterator[Metric]:
        yield from self._guarded(self._queue)
        yield from self._guarded(self._overdue)
        yield from self._guarded(self._shared)

    def _guarded(self, part: Callable[[], list[Metric]]) -> Iterator[Metric]:
        try:
            yield from part()
        except Exception:  # a scrape reports what it can
            log.warning("Metrics: %s not available", part.__name__, exc_info=True)

    def _queue(self) -> list[Metric]:
        queues = [str(settings.CELERY_TASK_DEFAULT_QUEUE), str(settings.PUSH_QUEUE)]
        client = instruments.redis_client()
        try:
            waiting = [int(client.llen(queue)) for queue in queues]
            reserved = int(client.hlen("unacked"))  # kombu's hash of delivered, unacknowledged messages
        finally:
            client.close()
        depth = GaugeMetricFamily("club_celery_queue_depth", "Tasks waiting in a Celery queue.", labels=["queue"])
        for queue, count in zip(queues, waiting, strict=True):
            depth.add_metric([queue], count)
        held = GaugeMetricFamily(
            "club_celery_reserved", "Tasks delivered to a worker and not yet done (turn clocks waiting for their time)."
        )
        held.add_metric([], reserved)
        return [depth, held]

    def _overdue(self) -> list[Metric]:
        from games.models import Hand

        count = Hand.objects.filter(
            deadline__lt=timezone.now() - overdue_grace(), finished_at__isnull=True, voided_at__isnull=True
        ).count()
        return [
            GaugeMetricFamily(
                "club_overdue_turns", "Turns whose clock ran out more than two sweeps ago (should be 0).", value=count
            )
        ]

    def _shared(self) -> list[Metric]:
        counts = instruments.shared_counts()
        timeouts = CounterMetricFamily(
            "club_timeouts_applied", "Timeouts applied, by their own task or by the sweep.", labels=["by"]
        )
        for by, value in counts.items():
            timeouts.add_metric([by], value)
        metrics: list[Metric] = [timeouts]
        status = ledger_status()
        ok = GaugeMetricFamily(
            "club_ledger_ok",
            "1 when the latest ledger verification found the books balanced, 0 when it found "
            "problems, -1 before the first verification.",
            value=-1 if status is None else int(bool(status["ok"])),
        )
        metrics.append(ok)
        if status is not None:
            metrics.append(
                GaugeMetricFamily(
                    "club_ledger_problems",
                    "Problems the latest ledger verification found.",
                    value=int(status["problems"]),
                )
            )
            metrics.append(
                GaugeMetricFamily(
                    "club_ledger_verified_timestamp_seconds",
                    "When the latest ledger verification ran (Unix time).",
                    value=float(status["at"]),
                )
            )
        return metrics


def scrape() -> bytes:
    """The exposition text of this host's processes and the scrape-time readings."""
    extra = CollectorRegistry(auto_describe=True)
    extra.register(ClubCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        MultiProcessCollector(processes)
        return generate_latest(processes) + generate_latest(extra)
    return generate_latest(REGISTRY) + generate_latest(extra)


def metrics_allowed(request: HttpRequest) -> bool:
    token = str(getattr(settings, "METRICS_TOKEN", "") or "")
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].encode(), token.encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    for allowed in getattr(settings, "METRICS_ALLOWED_IPS", []):
        try:
            if address in ipaddress.ip_network(allowed, strict=False):
                return True
        except ValueError:
            log.warning("METRICS_ALLOWED_IPS: %r is not an address or network", allowed)
    return False


class MetricsMiddleware:
    """Answer GET /metrics before any other middleware looks at the Host header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path != "/metrics":
            return self.get_response(request)
        if not metrics_allowed(request):
            return HttpResponse(
                "Metrics need the metrics token or an allowed address.\n",
                status=403,
                content_type="text/plain; charset=utf-8",
            )
        response = HttpResponse(scrape(), content_type=CONTENT_TYPE)
        response["Cache-Control"] = "no-store"
        return response
