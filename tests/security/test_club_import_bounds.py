"""One club import took the site down.

A 0.2 MB zip whose members file is one 200 MB line took the web process from 151 MB to 1.38 GB (compose caps
it at 512 MB: an out-of-memory kill). A hand with the id 9,000,000,000,000,000,000 kept its id, and moving
the id sequence past it ran ``generate_series(1, ~9e18)``: one backend at full CPU writing gigabytes of
temporary files, still running after the client left. Now the zip is read as a stream with limits on the
upload, each file, each line and the whole (clubdata/importing.py ``UPLOAD_LIMITS``), a hand keeps its id
only near the sequence, and every statement of the site has a timeout. Both run against the real site
(uvicorn on the real PostgreSQL), whose memory is read from /proc."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from accounts.models import Membership
from clubdata.importing import UPLOAD_LIMITS
from clubdata.models import ClubImport
from games.models import Hand
from tests.accounts.factories import PASSWORD, ClubFactory, MembershipFactory, UserFactory
from tests.clubdata.import_jobs import run_queued_imports
from tests.clubdata.test_club_archive import busy_club  # noqa: F401 - the fixture
from tests.games.celery_worker import start_worker, wait_until

from .club_files import export_of, log_in, rewritten, upload
from .site import running_site

pytestmark = pytest.mark.django_db(transaction=True)

HUGE_ID = 9_000_000_000_000_000_000
MB = 1024 * 1024


def _memory(pid: int) -> dict[str, int]:
    """The process's resident and peak resident memory, in bytes (/proc/<pid>/status)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


def _organiser_of_an_empty_club() -> int:
    dan = UserFactory(username="dan", email="dan@example.com")
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=dan, role=Membership.Role.ORGANISER)
    return club.pk


def _memory_bomb() -> bytes:
    """A small zip whose data/members.jsonl is one line of 200 MB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("manifest.json", json.dumps({"format": "home-club-export", "format_version": 1}))
        archive.writestr(
            "data/club.json",
            json.dumps({"id": 1, "name": "Bomb", "currency": "USD", "credit_limit": 0, "settlement_max": None}),
        )
        with archive.open("data/members.jsonl", "w") as members:
            members.write(b'{"id": 1, "username": "')
            block = b"a" * MB
            for _ in range(200):
                members.write(block)
    return out.getvalue()


def test_a_small_zip_with_a_200_mb_line_is_refused_within_the_web_process_memory(tmp_path):
    bomb = _memory_bomb()
    assert len(bomb) < 0.5 * MB
    club_id = _organiser_of_an_empty_club()
    with running_site(tmp_path, CLUB_IMPORT_QUEUE=settings.CLUB_IMPORT_QUEUE) as site:
        browser = log_in(site.port, "dan", PASSWORD)
        status, _, _ = upload(browser, club_id, export_free := b"not a zip")  # warms the import's code path
        assert status == 400 and export_free
        before = _memory(site.process.pid)
        status, _, page = upload(browser, club_id, bomb)  # stored and queued: the imports worker reads it
        after = _memory(site.process.pid)
        assert status == 302, page[:500]
        worker = start_worker(tmp_path, queue=settings.CLUB_IMPORT_QUEUE)
        try:
            job = ClubImport.objects.get(club_id=club_id)
            wait_until(lambda: ClubImport.objects.get(pk=job.pk).finished, 120, "the import did not finish")
            read = _memory(worker.popen.pid)
        finally:
            worker.stop()
        job.refresh_from_db()
        _, _, page = browser.request("GET", f"/clubs/{club_id}/data/")
    grew = after["VmHWM"] - before["VmRSS"]
    print(
        f"web process: {before['VmRSS'] / MB:.0f} MB before, peak {after['VmHWM'] / MB:.0f} MB, grew {grew / MB:.0f} MB;"
        f" the worker that read it peaked at {read['VmHWM'] / MB:.0f} MB"
    )
    assert job.state == ClubImport.State.FAILED
    assert "data/members.jsonl, line 1: longer than 1,024 KB" in job.message and "longer than 1,024 KB" in page
    assert grew < 64 * MB, grew / MB  # was about 1.2 GB
    assert after["VmHWM"] < 512 * MB  # docker-compose.yml caps the web service at 512 MB
    assert read["VmHWM"] < 512 * MB  # and the worker too


def test_a_hand_with_a_huge_id_takes_a_new_one_and_the_sequence_stays_where_it_was(busy_club, tmp_path):  # noqa: F811
    data = export_of(busy_club.club)
    first = Hand.objects.filter(table__club=busy_club.club).order_by("pk").first()
    assert first is not None

    def huge(rows):
        for row in rows:
            for key in ("id", "hand_id"):
                if row.get(key) == first.pk and (key == "hand_id" or "deck" in row):
                    row[key] = HUGE_ID
        return rows

    forged = rewritten(
        data, {f"data/{name}.jsonl": huge for name in ("hands", "hand_actions", "disputes", "rulings", "entries")}
    )
    club_id = _organiser_of_an_empty_club()
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value FROM games_hand_id_seq")
        sequence_before = cursor.fetchone()[0]
    try:
        with running_site(tmp_path) as site:
            started = time.monotonic()
            status, _, page = upload(log_in(site.port, "dan", PASSWORD), club_id, forged, timeout=60)
            jobs = run_queued_imports()  # as the imports worker runs it
            took = time.monotonic() - started
            assert [job.state for job in jobs] == ["done"], [job.message for job in jobs]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE %s AND pid <> pg_backend_pid()",
                ["%generate_series%"],
            )
            running = cursor.fetchone()[0]
            cursor.execute("SELECT last_value FROM games_hand_id_seq")
            sequence_after = cursor.fetchone()[0]
    finally:  # a statement left running by a failing run would burn a core for hours
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query ILIKE %s AND pid <> pg_backend_pid()",
                ["%generate_series(1%"],
            )
    print(f"import took {took:.1f} s; the hand id sequence went from {sequence_before} to {sequence_after}")
    assert status == 302, page[:2000]
    assert running == 0
    assert sequence_after - sequence_before < UPLOAD_LIMITS.hand_id_ahead
    imported = Hand.objects.filter(table__club_id=club_id)
    assert imported.count() == Hand.objects.filter(table__club=busy_club.club).count()
    assert max(imported.values_list("pk", flat=True)) < 2**31


def test_an_upload_larger_than_the_limit_is_refused_before_it_is_read(client_for):
    club_id = _organiser_of_an_empty_club()
    from accounts.models import User

    client = client_for(User.objects.get(username="dan"))
    response = client.post(
        f"/clubs/{club_id}/data/import/",
        data=b"x",
        content_type="multipart/form-data; boundary=b",
        CONTENT_LENGTH=str(UPLOAD_LIMITS.upload_bytes + 1),
    )
    assert response.status_code == 413 and "larger than 64 MB" in response.content.decode()


def test_a_zip_listing_thousands_of_files_is_refused_before_they_are_listed(client_for):
    """zipfile keeps an object per listed file: a small upload can list millions."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from accounts.models import User

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for n in range(5000):
            archive.writestr(f"{n}", b"")
    club_id = _organiser_of_an_empty_club()
    response = client_for(User.objects.get(username="dan")).post(
        f"/clubs/{club_id}/data/import/",
        {"file": SimpleUploadedFile("club.zip", out.getvalue(), content_type="application/zip")},
    )
    assert response.status_code == 400 and "lists more files than a club export holds" in response.content.decode()


def test_the_proxy_cuts_a_body_just_above_an_imports_limit():
    """A chunked upload says no length: the proxy counts it (Caddy's request_body, sizes in MiB)."""
    caddyfile = (Path(__file__).resolve().parents[2] / "deploy" / "Caddyfile").read_text()
    size = re.search(r"request_body \{\s*max_size (\d+)MiB\s*\}", caddyfile)
    assert size is not None
    assert UPLOAD_LIMITS.upload_bytes < int(size.group(1)) * MB <= UPLOAD_LIMITS.upload_bytes + 2 * MB


@pytest.mark.django_db
def test_an_import_step_past_its_statement_timeout_is_refused_with_a_reason(busy_club, monkeypatch):  # noqa: F811
    from clubdata import importing

    from .club_files import export_of as export

    data = export(busy_club.club)
    club_id = _organiser_of_an_empty_club()
    from accounts.models import Club, User

    def slow_step(**kwargs):  # one step of the import that runs past the limit, whatever the machine's speed
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.5)")

    monkeypatch.setattr(importing, "UPLOAD_STATEMENT_TIMEOUT", "200ms")
    monkeypatch.setattr("clubhouse.results.hand_results_backfill", slow_step)
    with pytest.raises(importing.ArchiveError, match="took longer than this site allows a step of it"):
        importing.club_import_upload(
            source=io.BytesIO(data), into=Club.objects.get(pk=club_id), by=User.objects.get(username="dan")
        )
