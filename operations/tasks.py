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


@shared_task(acks_late=True)
def verify_books() -> bool:
    """Check the whole books (as ``manage.py ledger_verify``) and keep the outcome for the metrics."""
    from django.db import connection, transaction

    from ledger.verify import ledger_problems
    from operations.scrape import ledger_status_store

    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:  # one snapshot of the whole books
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        problems, summary = ledger_problems(club_id=None)
    ledger_status_store(ok=not problems, problems=len(problems), summary=str(summary))
    return not problems
