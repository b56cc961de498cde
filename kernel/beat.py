"""Celery beat's health: a heartbeat file that beat rewrites each time it has handed a task to Redis,
and the check of its age (``manage.py beat_health``, the beat container's health check).

Beat sends the turn sweep every ``TURN_SWEEP_SECONDS``, so a heartbeat older than a few sweeps means
beat is hung, dead, or cannot reach Redis: the health check fails and the container is restarted.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler
from django.conf import settings


def heartbeat_path() -> Path:
    return Path(settings.BEAT_HEARTBEAT_FILE)


def heartbeat_write(*, path: Path | None = None) -> None:
    """Record "now" atomically (write a sibling file, then rename), so a reader never sees half a line."""
    path = path or heartbeat_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(f"{time.time():.3f}\n")
    partial.replace(path)


def heartbeat_age(*, path: Path | None = None) -> float | None:
    """Seconds since beat last handed a task to Redis; None when it never did (or the file is unreadable)."""
    try:
        written = float((path or heartbeat_path()).read_text().strip())
    except (OSError, ValueError):
        return None
    return max(0.0, time.time() - written)


class HeartbeatScheduler(PersistentScheduler):
    """The default scheduler (schedule kept in a shelve file) that also beats after each task it sent
    and once at start-up."""

    def setup_schedule(self) -> None:
        super().setup_schedule()
        heartbeat_write()

    def apply_async(self, entry: Any, producer: Any = None, advance: bool = True, **kwargs: Any) -> Any:
        result = super().apply_async(entry, producer=producer, advance=advance, **kwargs)  # raises if not sent
        heartbeat_write()
        return result
