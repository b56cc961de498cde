"""Celery tasks of club data (docs/style.md "Tasks are thin and idempotent").

==========================  ====================================================================
club_import_run             one organiser's upload, on ``CLUB_IMPORT_QUEUE``: read within the time budget,
                            all or nothing (clubdata/jobs.py); a second delivery changes nothing
==========================  ====================================================================
"""

from __future__ import annotations

from celery import shared_task


@shared_task(name="clubdata.tasks.club_import_run", acks_late=True)
def club_import_run(import_id: int, site_url: str = "") -> str:
    from clubdata.jobs import club_import_run as run  # tasks import services in the body

    return run(import_id=import_id, site_url=site_url)
