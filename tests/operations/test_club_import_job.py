"""A club import ran inside the web request with no time limit: about 1.25 ms and one new account a member
row, so 20,000 rows (a 0.18 MB upload) held a request 25 s and the 1,000,000-row cap about 21 minutes, and
anyone may create a club and upload. Now the page stores the upload and a real Celery worker imports it from
a queue of its own (clubdata/jobs.py): the page shows it waiting, then the result, without any script (it
reloads itself); the organiser gets an email; an import past its time budget stops, is rolled back and says
why; and the worker's clocks do not wait for an import."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import Membership, User
from clubdata.models import ClubImport, ClubImportPart
from kernel.task_ref import TaskRef
from tests.accounts.factories import ClubFactory, MembershipFactory, UserFactory
from tests.clubdata.member_files import members_export
from tests.games.celery_worker import queue_name, start_worker, wait_until

pytestmark = [pytest.mark.celery, pytest.mark.timeout(420), pytest.mark.django_db(transaction=True)]


def _organiser_of_an_empty_club() -> tuple[User, int]:
    dan = UserFactory(username="dan", email="dan@example.com")
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=dan, role=Membership.Role.ORGANISER)
    return dan, club.pk


def _upload(client, club_id: int, data: bytes):
    return client.post(
        f"/clubs/{club_id}/data/import/", {"file": SimpleUploadedFile("club.zip", data, content_type="application/zip")}
    )


def _mails(folder: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in folder.glob("*")) if folder.exists() else ""


def test_an_upload_is_imported_by_the_worker_and_the_organiser_is_told(client_for, procs, tmp_path) -> None:
    dan, club_id = _organiser_of_an_empty_club()
    client = client_for(dan)
    started = time.monotonic()
    response = _upload(client, club_id, members_export(20_000))
    assert response.status_code == 302 and time.monotonic() - started < 10  # the request only stores the file
    job = ClubImport.objects.get(club_id=club_id)
    assert job.state == ClubImport.State.QUEUED and job.size > 0 and ClubImportPart.objects.filter(club_import=job)
    page = client.get(f"/clubs/{club_id}/data/").content.decode()
    assert "Waiting for its turn" in page and '<meta http-equiv="refresh"' in page  # reloads itself, no script
    assert 'type="file"' not in page  # no second upload while one is under way
    again = _upload(client, club_id, members_export(3))
    assert again.status_code == 409 and "already under way" in again.content.decode()

    mail = tmp_path / "mail"
    procs.append(start_worker(tmp_path, queue=settings.CLUB_IMPORT_QUEUE, EMAIL_FILE_PATH=str(mail)))
    wait_until(lambda: ClubImport.objects.get(pk=job.pk).finished, 300, "the import did not finish")
    job.refresh_from_db()
    assert job.state == ClubImport.State.DONE, job.message
    assert job.counts["members"] == 20_000 and User.objects.filter(username__startswith="imported-").count() == 20_000
    assert not ClubImportPart.objects.filter(club_import=job).exists()  # the stored upload is gone
    page = client.get(f"/clubs/{club_id}/data/").content.decode()
    assert "Imported: 20000 members." in page and '<meta http-equiv="refresh"' not in page
    wait_until(lambda: "the import is done" in _mails(mail), 30, "no notice mail")
    assert "dan@example.com" in _mails(mail) and "Imported: 20000 members." in _mails(mail)


def test_an_import_past_its_budget_stops_rolls_back_and_says_why(client_for, procs, tmp_path) -> None:
    dan, club_id = _organiser_of_an_empty_club()
    people = User.objects.count()
    client = client_for(dan)
    assert _upload(client, club_id, members_export(60_000)).status_code == 302
    mail = tmp_path / "mail"
    procs.append(
        start_worker(
            tmp_path, queue=settings.CLUB_IMPORT_QUEUE, EMAIL_FILE_PATH=str(mail), CLUB_IMPORT_BUDGET_SECONDS="0.5"
        )
    )
    job = ClubImport.objects.get(club_id=club_id)
    wait_until(lambda: ClubImport.objects.get(pk=job.pk).finished, 300, "the import did not finish")
    job.refresh_from_db()
    assert job.state == ClubImport.State.FAILED
    assert job.message.startswith("The import stopped after 0.5 seconds, the longest this site gives one import")
    assert "Nothing of it was kept" in job.message
    assert User.objects.count() == people  # rolled back: not one placeholder
    page = client.get(f"/clubs/{club_id}/data/").content.decode()
    assert "The import stopped after 0.5 seconds" in page and 'type="file"' in page  # and may be tried again
    wait_until(lambda: "nothing came in" in _mails(mail), 30, "no notice mail")


def test_the_clocks_do_not_wait_for_an_import(client_for, procs, tmp_path) -> None:
    """One worker reading the clocks' queue and the imports queue, as the site runs it: a sweep of the turn
    clocks queued while a long import runs is done at once, not after it."""
    dan, club_id = _organiser_of_an_empty_club()
    assert _upload(client_for(dan), club_id, members_export(30_000)).status_code == 302
    worker = start_worker(tmp_path, queue=f"{queue_name()},{settings.CLUB_IMPORT_QUEUE}")
    procs.append(worker)
    job = ClubImport.objects.get(club_id=club_id)
    wait_until(lambda: ClubImport.objects.get(pk=job.pk).state != ClubImport.State.QUEUED, 60, "not started")
    sent = time.monotonic()
    TaskRef("games.tasks.sweep_overdue_turns").apply_async()
    wait_until(lambda: "sweep_overdue_turns[" in worker.text() and "succeeded" in worker.text(), 30, worker.text())
    swept_after = time.monotonic() - sent
    assert ClubImport.objects.get(pk=job.pk).state == ClubImport.State.RUNNING, "the import ended first: too short"
    assert swept_after < 3, f"the sweep waited {swept_after:.1f} s"
    wait_until(lambda: ClubImport.objects.get(pk=job.pk).finished, 300, "the import did not finish")
