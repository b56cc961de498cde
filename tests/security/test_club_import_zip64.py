"""A club export with a ZIP64 entry was imported, though the reader says ZIP64 is refused: Python's zipfile
marks an entry ZIP64 in its local header only (``force_zip64``), where the directory check never looked. Now
any ZIP64 mark (an entry's extra field in the directory or its local header, or the ZIP64 end of directory)
is refused before a record is read, and the club stays empty."""

from __future__ import annotations

import io
import zipfile

import pytest

from accounts.models import User
from clubdata.archive import ArchiveError, club_is_empty
from clubdata.importing import ZIP64_REFUSAL, club_import_upload
from tests.accounts.factories import ClubFactory, MembershipFactory

from .club_files import export_of

pytestmark = pytest.mark.django_db


def with_a_zip64_entry(data: bytes, name: str) -> bytes:
    """The same files, ``name`` written as a ZIP64 entry (its local header carries the ZIP64 extra field)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename == name:
                with archive.open(info.filename, "w", force_zip64=True) as entry:
                    entry.write(source.read(info))
            else:
                archive.writestr(info.filename, source.read(info))
    return out.getvalue()


def test_a_zip64_entry_is_refused_and_the_club_stays_empty(club_setup) -> None:
    genuine = export_of(club_setup.club)
    zip64 = with_a_zip64_entry(genuine, "data/members.jsonl")
    assert zipfile.ZipFile(io.BytesIO(zip64)).read("data/members.jsonl")  # a real, readable ZIP64 file
    organiser = club_setup.outsider
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=organiser, role="organiser")
    people = User.objects.count()
    with pytest.raises(ArchiveError, match="ZIP64"):
        club_import_upload(source=io.BytesIO(zip64), into=club, by=organiser)
    assert User.objects.count() == people and club_is_empty(club=club) == ""
    result = club_import_upload(source=io.BytesIO(genuine), into=club, by=organiser)  # without it, it comes in
    assert result.counts["members"] == 4 and User.objects.count() == people + 4


def test_a_zip64_end_of_directory_is_refused() -> None:
    """A ZIP64 end of central directory record and its locator, as writers add for archives past 65,535 files."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("manifest.json", b"{}")
    data = out.getvalue()
    end = data.rindex(b"PK\x05\x06")
    directory_at = int.from_bytes(data[end + 16 : end + 20], "little")
    record = (
        b"PK\x06\x06"
        + (44).to_bytes(8, "little")
        + (45).to_bytes(2, "little") * 2
        + bytes(8)
        + (1).to_bytes(8, "little") * 2
        + (end - directory_at).to_bytes(8, "little")
        + directory_at.to_bytes(8, "little")
    )
    locator = b"PK\x06\x07" + bytes(4) + end.to_bytes(8, "little") + (1).to_bytes(4, "little")
    zip64 = data[:end] + record + locator + data[end:]
    assert zipfile.ZipFile(io.BytesIO(zip64)).read("manifest.json") == b"{}"
    with pytest.raises(ArchiveError) as refused:
        club_import_upload(source=io.BytesIO(zip64), into=ClubFactory(), by=None)  # type: ignore[arg-type]
    assert str(refused.value) == ZIP64_REFUSAL
