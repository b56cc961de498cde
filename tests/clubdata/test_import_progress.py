"""The club data page while an import runs: how far it got (records read, reported by the import every
thousand records) and that it reloads itself; the budget's report comes from the reader itself."""

from __future__ import annotations

import io
import time

import pytest
from django.core.cache import cache

from clubdata import jobs
from clubdata.importing import ImportBudget, club_import_upload
from clubdata.models import ClubImport
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.clubdata.member_files import members_export

pytestmark = pytest.mark.django_db


def test_the_import_reports_how_far_it_got(club_setup) -> None:
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=club_setup.outsider, role="organiser")
    seen: list[tuple[int, str]] = []
    budget = ImportBudget(deadline=time.monotonic() + 600, seconds=600, progress=lambda n, f: seen.append((n, f)))
    club_import_upload(source=io.BytesIO(members_export(3_000)), into=club, by=club_setup.outsider, budget=budget)
    assert seen[:3] == [(1000, "data/members.jsonl"), (2000, "data/members.jsonl"), (3000, "data/members.jsonl")]


def test_the_page_shows_a_running_import_and_reloads_itself(club_setup, client_for) -> None:
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=club_setup.outsider, role="organiser")
    job = ClubImport.objects.create(club=club, uploaded_by=club_setup.outsider, size=10, state="running")
    cache.set(jobs._progress_key(job.pk), 12_000)
    page = client_for(club_setup.outsider).get(f"/clubs/{club.pk}/data/").content.decode()
    assert "12000 records read so far" in page and '<meta http-equiv="refresh" content="3">' in page
    assert 'type="file"' not in page
    other = client_for(club_setup.members[0]).get(f"/clubs/{club.pk}/data/")
    assert other.status_code in (403, 404)  # only the club's organisers see it
