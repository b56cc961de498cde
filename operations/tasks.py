"""The nightly backup (Celery beat, ``BACKUP_HOUR`` UTC), keeping ``BACKUP_KEEP`` of them."""

from __future__ import annotations

from pathlib import Path

from celery import shared_task
from django.conf import settings

from operations.backup import backup_create


@shared_task(acks_late=True)
def nightly_backup() -> str:
    """Write a backup into ``BACKUP_DIR`` and prune the oldest; returns the dump's path."""
    return str(backup_create(directory=Path(settings.BACKUP_DIR), keep=settings.BACKUP_KEEP))
