"""Malformed club imports answered 500, and rows the site's forms would refuse came in unchecked.

Of 22 malformed uploads, 9 answered 500 (a list for a manifest, no club file, a 40-character or unknown
currency, a member line that is not an object, an unbalanced posting); duplicate ids, bad salts or states
(whose pages then answered 500) and names with control characters came in. Each is now refused, with a 400
at once or by the import job (clubdata/jobs.py) on the club's data page, naming the file and the line, and
the club stays empty."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from clubdata.archive import club_is_empty
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.clubdata.import_jobs import run_queued_imports
from tests.clubdata.test_club_archive import busy_club  # noqa: F401 - the fixture

from .club_files import export_of, rewritten, rows_of, without

pytestmark = pytest.mark.django_db


def _first(change):
    """A change of a JSON-lines file's first row."""

    def apply(rows):
        change(rows[0])
        return rows

    return apply


def _unbalance(rows):
    rows[0]["amount"] += 1
    return rows


def _twice(rows):
    return [rows[0], rows[0], *rows[1:]]


def _not_an_object(rows):
    return [[1, 2], *rows[1:]]


def _club(**changes):
    def apply(data: bytes) -> bytes:
        import io
        import zipfile

        row = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("data/club.json"))
        return rewritten(data, {"data/club.json": json.dumps({**row, **changes}).encode()})

    return apply


#: (what, how the genuine file is changed, what the refusal names)
CASES = [
    ("a list for a manifest", lambda d: rewritten(d, {"manifest.json": b"[1, 2]"}), "manifest.json"),
    ("no club file", lambda d: without(d, "data/club.json"), "data/club.json"),
    ("a 40-character currency", _club(currency="X" * 40), "data/club.json"),
    ("an unknown currency", _club(currency="1$€"), "data/club.json"),
    (
        "a member line that is not an object",
        lambda d: rewritten(d, {"data/members.jsonl": _not_an_object}),
        "data/members.jsonl, line 1",
    ),
    (
        "a member line without its fields",
        lambda d: rewritten(d, {"data/members.jsonl": _first(lambda r: r.pop("username"))}),
        "data/members.jsonl, line 1",
    ),
    (
        "a line that is not JSON",
        lambda d: rewritten(d, {"data/tables.jsonl": b'{"id": 1,\n'}),
        "data/tables.jsonl, line 1",
    ),
    (
        "an unbalanced posting",
        lambda d: rewritten(d, {"data/postings.jsonl": _unbalance}),
        "data/postings.jsonl, line 1",
    ),
    ("a member given twice", lambda d: rewritten(d, {"data/members.jsonl": _twice}), "data/members.jsonl, line 2"),
    ("a table given twice", lambda d: rewritten(d, {"data/tables.jsonl": _twice}), "data/tables.jsonl, line 2"),
    (
        "a hand with bad salts",
        lambda d: rewritten(d, {"data/hands.jsonl": _first(lambda r: r.update(salts=["zz"] * 52))}),
        "data/hands.jsonl, line 1",
    ),
    (
        "a hand with a state the engine cannot read",
        lambda d: rewritten(
            d, {"data/hands.jsonl": _first(lambda r: r.update(state={"game": "piranha", "seats": "all"}))}
        ),
        "data/hands.jsonl, line 1",
    ),
    (
        "a hand whose state seats someone it does not name",
        lambda d: rewritten(
            d, {"data/hands.jsonl": _first(lambda r: r.update(players={"1": next(iter(r["players"].values()))}))}
        ),
        "data/hands.jsonl, line 1",
    ),
    (
        "a hand with a card twice",
        lambda d: rewritten(d, {"data/hands.jsonl": _first(lambda r: r.update(deck=[r["deck"][0]] * 52))}),
        "data/hands.jsonl, line 1",
    ),
    (
        "a hand still being played",
        lambda d: rewritten(d, {"data/hands.jsonl": _first(lambda r: r.update(finished_at=None))}),
        "data/hands.jsonl, line 1",
    ),
    (
        "a table name with a text-direction override",
        lambda d: rewritten(d, {"data/tables.jsonl": _first(lambda r: r.update(name="\u202enaB"))}),
        "data/tables.jsonl, line 1",
    ),
    (
        "a display name with a line break",
        lambda d: rewritten(d, {"data/members.jsonl": _first(lambda r: r.update(display_name="Ann\nOrganiser"))}),
        "data/members.jsonl, line 1",
    ),
    (
        "a chat line with a control character",
        lambda d: rewritten(d, {"data/chat.jsonl": _first(lambda r: r.update(text="hi\x07"))}),
        "data/chat.jsonl, line 1",
    ),
    (
        "rules the rules form refuses",
        lambda d: rewritten(d, {"data/rule_versions.jsonl": _first(lambda r: r["rules"].update(ante=-5))}),
        "data/rule_versions.jsonl, line 1",
    ),
    (
        "a settlement state the site does not know",
        lambda d: rewritten(d, {"data/settlements.jsonl": _first(lambda r: r.update(status="paid twice"))}),
        "data/settlements.jsonl, line 1",
    ),
    (
        "a table state the site does not know",
        lambda d: rewritten(d, {"data/tables.jsonl": _first(lambda r: r.update(status="burning"))}),
        "data/tables.jsonl, line 1",
    ),
    (
        "an id beyond any id",
        lambda d: rewritten(d, {"data/tables.jsonl": _first(lambda r: r.update(id=2**70))}),
        "data/tables.jsonl, line 1",
    ),
    (
        "a reference to a record the file does not hold",
        lambda d: rewritten(d, {"data/seats.jsonl": _first(lambda r: r.update(table_id=999_999))}),
        "data/seats.jsonl, line 1",
    ),
    (
        "an amount beyond any amount",
        lambda d: rewritten(d, {"data/postings.jsonl": _first(lambda r: r.update(amount=2**64))}),
        "data/postings.jsonl, line 1",
    ),
]


def test_each_malformed_file_is_refused_with_a_400_naming_the_file_and_line(busy_club, client_for):  # noqa: F811
    genuine = export_of(busy_club.club)
    organiser = busy_club.outsider
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=organiser, role="organiser")
    client = client_for(organiser)
    wrong = []
    for what, change, named in CASES:
        response = client.post(
            f"/clubs/{club.pk}/data/import/",
            {"file": SimpleUploadedFile("club.zip", change(genuine), content_type="application/zip")},
        )
        page, refused = response.content.decode(), response.status_code == 400
        if response.status_code == 302:  # queued: the import job refuses it, and the page says why
            assert [job.state for job in run_queued_imports()] == ["failed"], what
            page = client.get(f"/clubs/{club.pk}/data/").content.decode()
            refused = 'role="alert" class="errorlist"' in page
        if not refused or named not in page:
            wrong.append(f"{what}: {named!r} not in the page" if refused else f"{what}: {response.status_code}")
        assert club_is_empty(club=club) == "", what
    assert wrong == []
    # The genuine file still comes in.
    response = client.post(
        f"/clubs/{club.pk}/data/import/",
        {"file": SimpleUploadedFile("club.zip", genuine, content_type="application/zip")},
    )
    assert response.status_code == 302
    assert [job.state for job in run_queued_imports()] == ["done"]
    assert rows_of(genuine, "data/tables.jsonl")
