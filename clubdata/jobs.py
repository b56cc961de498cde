"""An organiser's club import as a job: the page stores the upload (streamed into PostgreSQL, bounded) and
queues it; a task on the imports queue (CLUB_IMPORT_QUEUE) reads it within the site's time budget
(CLUB_IMPORT_BUDGET_SECONDS), all or nothing, and the organiser is told by email when it is over. The page
shows how far it got (records read, kept in the cache while the import's own transaction is open) and the
result.

The worker that reads the imports queue also reads the clocks' queue: at most CLUB_IMPORTS_AT_ONCE imports
run at a time (a later one waits its turn in the queue), so the worker's other threads stay free for clocks.
"""

from __future__ import annotations

import logging
import tempfile
import time
from datetime import timedelta
from typing import IO

from django.conf import settings
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.models import Club, User
from kernel.errors import DomainError
from kernel.task_ref import TaskRef

from . import archive, importing
from .models import ClubImport, ClubImportPart

log = logging.getLogger(__name__)

CLUB_IMPORT_RUN = TaskRef("clubdata.tasks.club_import_run")
STALE_AFTER = 2  # a job "running" longer than this many budgets lost its worker: it is marked failed
ADVISORY_LOCK = 0x636C7562696D  # "clubim": held while a job decides whether it may start
WAIT_SECONDS = 5  # a job over the CLUB_IMPORTS_AT_ONCE cap looks again after this long


class ImportUnderWay(DomainError):
    pass


def _progress_key(pk: int) -> str:
    return f"club-import:{pk}:progress"


def club_import_queue(*, club: Club, by: User, source: IO[bytes], site_url: str) -> ClubImport:
    """Store ``source`` (already ``importing.upload_check``-ed) for an import into ``club`` and queue it once
    committed. Raises ArchiveError when the club is not empty, ImportUnderWay when an import of it is
    queued or running."""
    with transaction.atomic():
        Club.objects.select_for_update().get(pk=club.pk)  # one upload of a club at a time
        if ClubImport.objects.filter(club=club, state__in=[ClubImport.State.QUEUED, ClubImport.State.RUNNING]).exists():
            raise ImportUnderWay("An import of this club is already under way: its progress is shown below.")
        refusal = archive.club_is_empty(club=club)
        if refusal:
            raise archive.ArchiveError(refusal)
        job = ClubImport.objects.create(club=club, uploaded_by=by, size=0)
        size, number = 0, 0
        source.seek(0)
        while part := source.read(ClubImportPart.PART_BYTES):
            ClubImportPart.objects.create(club_import=job, number=number, data=part)
            size += len(part)
            number += 1
        ClubImport.objects.filter(pk=job.pk).update(size=size)
        job.size = size
        transaction.on_commit(lambda: _enqueue(job.pk, site_url))
    return job


def _enqueue(pk: int, site_url: str, countdown: float = 0) -> None:
    CLUB_IMPORT_RUN.apply_async(
        args=[pk], kwargs={"site_url": site_url}, queue=settings.CLUB_IMPORT_QUEUE, countdown=countdown
    )


def club_import_progress(*, job: ClubImport) -> int | None:
    """Records read so far by a running import (None: not known yet)."""
    value = cache.get(_progress_key(job.pk))
    return int(value) if isinstance(value, int) else None


def club_import_latest(*, club: Club) -> ClubImport | None:
    return ClubImport.objects.filter(club=club).order_by("-pk").first()


def club_import_run(*, import_id: int, site_url: str) -> str:
    """Run a queued import: a no-op for one that has started or finished (the task is delivered at least
    once), unless it has been "running" past ``STALE_AFTER`` budgets, its worker lost, when it is marked
    failed. Returns the job's state."""
    budget_seconds = settings.CLUB_IMPORT_BUDGET_SECONDS
    with transaction.atomic():
        job = ClubImport.objects.select_for_update().filter(pk=import_id).first()
        if job is None:
            return "gone"
        if job.state == ClubImport.State.RUNNING and job.started_at is not None:
            if timezone.now() - job.started_at > timedelta(seconds=STALE_AFTER * budget_seconds + 60):
                _finish(job, ClubImport.State.FAILED, "The import was interrupted (the site restarted). Upload again.")
            return str(job.state)
        if job.state != ClubImport.State.QUEUED:
            return str(job.state)
        with connection.cursor() as cursor:  # one job at a time counts the running ones
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADVISORY_LOCK])
        if ClubImport.objects.filter(state=ClubImport.State.RUNNING).count() >= settings.CLUB_IMPORTS_AT_ONCE:
            transaction.on_commit(lambda: _enqueue(import_id, site_url, countdown=WAIT_SECONDS))
            return "waiting"
        job.state, job.started_at = ClubImport.State.RUNNING, timezone.now()
        job.save(update_fields=["state", "started_at"])
    _run(job, budget_seconds, site_url)
    return str(job.state)


def _run(job: ClubImport, budget_seconds: float, site_url: str) -> None:
    started = time.monotonic()
    budget = importing.ImportBudget(
        deadline=started + budget_seconds,
        seconds=budget_seconds,
        progress=lambda rows, _: cache.set(_progress_key(job.pk), rows, timeout=int(budget_seconds) + 600),
    )
    club = job.club
    by = job.uploaded_by
    try:
        with tempfile.SpooledTemporaryFile(max_size=8 * ClubImportPart.PART_BYTES) as spool:
            for data in (
                ClubImportPart.objects.filter(club_import=job).order_by("number").values_list("data", flat=True)
            ):
                spool.write(bytes(data))
            spool.seek(0)
            if by is None:
                raise archive.ArchiveError("The organiser who uploaded the file has left the site.")
            result = importing.club_import_upload(source=spool, into=club, by=by, budget=budget)
    except archive.ArchiveError as exc:
        _finish(job, ClubImport.State.FAILED, str(exc))
        _tell(job, by)
        return
    except Exception:
        log.exception("club import %s failed", job.pk)
        _finish(job, ClubImport.State.FAILED, "The import failed on the site's side; nothing of it was kept.")
        _tell(job, by)
        raise
    seconds = time.monotonic() - started
    lines = ["Imported: " + ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in result.counts.items() if n) + "."]
    if result.placeholders:
        lines.append(
            f"The others named in the file came in as named placeholders, not as anyone's account: "
            f"{', '.join(result.placeholders[:20])}{' and more' if len(result.placeholders) > 20 else ''}."
        )
    invited, skipped = importing.import_invitations_send(club=club, by=by, emails=result.invite, site_url=site_url)
    if invited:
        lines.append(
            f"{invited} member{'s' if invited != 1 else ''} of the file {'were' if invited != 1 else 'was'} "
            f"invited to join, at their own address."
        )
    if skipped:
        lines.append("Not invited: " + "; ".join(skipped[:5]) + (" and more" if len(skipped) > 5 else ""))
    job.counts = result.counts
    job.rows = sum(result.counts.values())
    _finish(job, ClubImport.State.DONE, "\n".join(lines))
    log.info("club import %s: %s records in %.1f s", job.pk, job.rows, seconds)
    _tell(job, by)


def _finish(job: ClubImport, state: str, message: str) -> None:
    """Record the outcome and drop the stored upload (the club's records now hold what it brought)."""
    job.state, job.message, job.finished_at = state, message, timezone.now()
    try:
        with transaction.atomic():
            job.save(update_fields=["state", "message", "finished_at", "counts", "rows"])
            ClubImportPart.objects.filter(club_import=job).delete()
    except IntegrityError:  # pragma: no cover - the row is this job's own
        log.exception("club import %s: the outcome was not recorded", job.pk)
    cache.delete(_progress_key(job.pk))


def _tell(job: ClubImport, by: User | None) -> None:
    """The organiser's notice: an email to the uploader, when they have an address."""
    if by is None or not by.email:
        return
    done = job.state == ClubImport.State.DONE
    subject = f"{job.club.name}: the import is {'done' if done else 'over: nothing came in'}"
    link = f"{settings.SITE_URL}/clubs/{job.club_id}/data/"
    try:
        send_mail(
            subject=subject.replace("\n", " ")[:150],
            message=f"{job.message}\n\nThe club's data page: {link}\n",
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[by.email],
        )
    except OSError:
        log.warning("club import %s: the notice mail was not sent", job.pk, exc_info=True)
