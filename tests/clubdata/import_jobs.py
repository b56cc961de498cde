"""Run here, one after another, the club imports the page queued (clubdata/jobs.py), as the imports worker
would: for tests whose data a worker process cannot see (inside the test's transaction)."""

from __future__ import annotations

from clubdata.jobs import club_import_run
from clubdata.models import ClubImport


def run_queued_imports() -> list[ClubImport]:
    """Each queued import, run; the jobs as they ended."""
    ran = []
    for pk in ClubImport.objects.filter(state=ClubImport.State.QUEUED).order_by("pk").values_list("pk", flat=True):
        club_import_run(import_id=pk, site_url="http://testserver/")
        ran.append(ClubImport.objects.get(pk=pk))
    return ran
