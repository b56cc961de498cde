"""Club import benchmark: member rows per second of an organiser's upload, before and after the import became a
job with batched inserts.

    .venv/bin/python bench/imports.py              # 20,000 member rows
    .venv/bin/python bench/imports.py 5000 20000   # other sizes

Runs against its own database `bench_imports` on the embedded PostgreSQL, rebuilt each run. In one run, on
the same files (tests/clubdata/member_files.py: N members, nothing else):

- before: ``club_import_upload`` of the code before the job (git BASELINE, read from git into a module of
  its own): one placeholder account a statement, inside the web request;
- after: the site's path today, in process: the upload stored in parts, then the job (clubdata/jobs.py
  ``club_import_run``) reading it back, importing in batches, sending the invitations and the notice.

Each attempt imports into a fresh empty club; every attempt is printed and the median kept: three of the
new path, BEFORE_ATTEMPTS of the old one (minutes each on a loaded machine). The target is 20,000 member rows
in under 5 s; the verdict fails when the median misses it. Not a timed test.
"""

from __future__ import annotations

import importlib.util
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.django_setup import setup_bench_django  # noqa: E402

DB_NAME = "bench_imports"
BASELINE = "57ac8c2"  # the last commit whose upload ran in the request, one statement a placeholder
ATTEMPTS = 3
BEFORE_ATTEMPTS = int(os.environ.get("BENCH_BEFORE_ATTEMPTS", "1"))
TARGET_ROWS, TARGET_SECONDS = 20_000, 5.0


def _baseline_module() -> ModuleType:
    """clubdata/importing.py as it was at BASELINE, loaded beside today's (its relative imports resolve)."""
    source = subprocess.run(
        ["git", "show", f"{BASELINE}:clubdata/importing.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    spec = importlib.util.spec_from_loader("clubdata._importing_baseline", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "clubdata"
    sys.modules[spec.name] = module
    exec(compile(source, f"{BASELINE}:clubdata/importing.py", "exec"), module.__dict__)  # noqa: S102
    return module


def _empty_club(n: int):  # noqa: ANN202 - (Club, User)
    from accounts.models import Club, Membership, User

    stamp = time.monotonic_ns()
    by = User.objects.create(username=f"organiser-{n}-{stamp}", email=f"o{n}-{stamp}@example.com")
    club = Club.objects.create(name=f"Bench club {time.monotonic_ns()}", currency="EUR")
    Membership.objects.create(club=club, user=by, role=Membership.Role.ORGANISER)
    return club, by


def _before(baseline: ModuleType, data: bytes) -> float:
    club, by = _empty_club(len(data))
    started = time.perf_counter()
    baseline.club_import_upload(source=io.BytesIO(data), into=club, by=by)
    return time.perf_counter() - started


def _after(data: bytes) -> float:
    from clubdata import jobs
    from clubdata.models import ClubImport, ClubImportPart

    club, by = _empty_club(len(data))
    started = time.perf_counter()
    job = ClubImport.objects.create(club=club, uploaded_by=by, size=len(data))  # what the page stores
    for number, at in enumerate(range(0, len(data), ClubImportPart.PART_BYTES)):
        ClubImportPart.objects.create(club_import=job, number=number, data=data[at : at + ClubImportPart.PART_BYTES])
    jobs.club_import_run(import_id=job.pk, site_url="http://127.0.0.1:8000/")
    seconds = time.perf_counter() - started
    job.refresh_from_db()
    assert job.state == ClubImport.State.DONE, job.message
    return seconds


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [TARGET_ROWS]
    setup_bench_django(DB_NAME, rebuild=True)
    os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
    from django.conf import settings
    from django.core.management import call_command

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # the notice, not sent anywhere
    call_command("migrate", verbosity=0)
    from tests.clubdata.member_files import members_export

    baseline = _baseline_module()
    verdict = 0
    print(f"club import, member rows per second (median; before = git {BASELINE}, load {os.getloadavg()[0]:.1f})")
    for rows in sizes:
        data = members_export(rows)
        before = [_before(baseline, data) for _ in range(BEFORE_ATTEMPTS)]
        after = [_after(data) for _ in range(ATTEMPTS)]
        b, a = statistics.median(before), statistics.median(after)
        print(f"  {rows:>7,} rows, {len(data) / 1e6:.2f} MB")
        print(f"    before: {', '.join(f'{s:.2f}' for s in before)} s -> {rows / b:,.0f} rows/s")
        print(f"    after:  {', '.join(f'{s:.2f}' for s in after)} s -> {rows / a:,.0f} rows/s")
        print(f"    ratio:  {b / a:.1f}x faster")
        if rows == TARGET_ROWS:
            ok = a < TARGET_SECONDS
            verdict |= 0 if ok else 1
            print(
                f"    target: {TARGET_ROWS:,} rows in under {TARGET_SECONDS:g} s: {'met' if ok else 'MISSED'} ({a:.2f} s)"
            )
    return verdict


if __name__ == "__main__":
    raise SystemExit(main())
