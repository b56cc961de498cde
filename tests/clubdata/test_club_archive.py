"""The club as a zip: export, import into a fresh club, the books verify and the pages read the same."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import date

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

import engine
from accounts.models import Club, Membership, User
from clubdata.archive import ArchiveError, club_export
from clubdata.importing import club_import
from games import services
from games.demo.simulate import simulation_run
from games.models import Hand, HandAction, Table
from games.selectors.hands import hand_committed_positions
from games.services.chat import chat_post
from games.services.voiding import hand_void
from ledger import services as ledger_services
from ledger.models import Account, JournalEntry, Posting
from ledger.verify import ledger_problems
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.clubdata.import_jobs import run_queued_imports
from tests.conftest import rows_kept_for_module
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_club(club_setup):
    """The busy club, made for the test (other modules' tests import this fixture, transactional ones too)."""
    return _busy_club(club_setup)


# The busy club made once for this module's tests (about 1.5 s each time).
_kept_rows, kept_club = rows_kept_for_module("kept_club", lambda setup: _busy_club(setup))


def _busy_club(setup):
    """Hands at two tables, a voided hand, an adjustment, a confirmed settlement, chat, a seated table."""
    ann, ben, cat = setup.members
    played = simulation_run(club=setup.club, players=setup.everyone, hands=6, seed=11)
    hand_void(hand=played[-1].hand, reason="Misdeal", ruled_by=setup.organiser)
    ledger_services.ruling_adjust(
        club=setup.club, from_user=ann, to_user=ben, amount=150, reason="Lent chips", ruled_by=setup.organiser
    )
    ledger_services.settlement_record(
        club=setup.club,
        payer=cat,
        payee=ann,
        amount=200,
        paid_on=date(2026, 1, 2),
        note="Cash",
        recorded_by=setup.organiser,
    )
    table = make_table(setup.club, setup.organiser, engine.PiranhaRules(), players=[ann, ben])
    hand = services.table_start(table_id=table.pk, user=ann)
    services.hand_act(hand_id=hand.pk, user=ann, action={"type": "in"}, version=0)
    services.hand_act(hand_id=hand.pk, user=ben, action={"type": "out"}, version=1)
    chat_post(table_id=table.pk, user=ann, text="=SUM(A1) good game")
    from clubhouse.services import season_close, season_open
    from games.services.proof import hand_dispute_open

    season = season_open(club=setup.club, user=setup.organiser, name="Autumn")
    season_close(club=setup.club, user=setup.organiser, season_id=season.pk)
    season_open(club=setup.club, user=setup.organiser, name="Winter")
    hand_dispute_open(hand_id=hand.pk, user=setup.organiser, reason="Ben asked to see every card")
    return setup


def _export(club: Club) -> bytes:
    out = io.BytesIO()
    club_export(club=club, out=out, reason="Moving to a new host")
    return out.getvalue()


def _text(html: str, *, proofs: bool = True) -> str:
    """The words of a page: no markup, no ids (in links, or an entry's "#12"), whitespace folded.
    Without ``proofs``, the hashes of the card openings are left out (they bind the hand's id)."""
    if not proofs:
        html = re.sub(r"hand-\d+\.json", "hand-N.json", re.sub(r"\b[0-9a-f]{64}\b", "HASH", html))
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    html = re.sub(r'<input[^>]*name="csrfmiddlewaretoken"[^>]*>', "", html)
    return " ".join(re.sub(r"#\d+", "#N", re.sub(r"<[^>]+>", " ", html)).split())


IMPORTED = (
    "This hand was read from a club export, which holds only the cards opened to everyone and a hash of "
    "each other card: those cards are not on this site, and the paths below use their hashes. "
)


def _statement(club: Club, user: User) -> list[tuple[object, ...]]:
    return list(
        Posting.objects.filter(club=club, account__user=user)
        .order_by("seq")
        .values_list("seq", "kind", "amount", "balance_after", "created_at", "entry__memo", "game")
    )


def test_the_round_trip_keeps_books_pages_and_hands(kept_club, client_for):
    setup = kept_club
    old = setup.club
    reader = MembershipFactory(club=old).user  # dealt into none of the hands: sees them as everyone does
    data = _export(old)
    result = club_import(source=io.BytesIO(data))
    new = result.club
    # The hands' results are written by a trigger when their transaction commits, which a test's never does;
    # the import derives those of its own club only.
    from clubhouse.results import hand_results_backfill

    hand_results_backfill(club_id=old.pk)
    assert new.pk != old.pk and new.name == old.name and new.currency == old.currency
    assert result.new_users == []  # the same people, matched by username and email

    problems, _ = ledger_problems(club_id=new.pk)
    assert problems == []
    call_command("ledger_verify", "--club", str(new.pk))
    assert ledger_problems()[0] == []

    # The books: every member's balance and every statement line, with its running balance and time.
    for user in setup.everyone:
        assert ledger_services.balance_of(club=new, user=user) == ledger_services.balance_of(club=old, user=user)
        assert _statement(new, user) == _statement(old, user)
    assert sorted(Account.objects.filter(club=new, kind="table_pot").values_list("table__name", "balance")) == sorted(
        Account.objects.filter(club=old, kind="table_pot").values_list("table__name", "balance")
    )
    assert JournalEntry.objects.filter(club=new).count() == JournalEntry.objects.filter(club=old).count()
    assert (
        JournalEntry.objects.filter(club=new, reverses__isnull=False).count()
        == JournalEntry.objects.filter(club=old, reverses__isnull=False).count()
        > 0
    )
    assert dict(Membership.objects.filter(club=new).values_list("user__username", "role")) == dict(
        Membership.objects.filter(club=old).values_list("user__username", "role")
    )

    # The pages read the same (ids in links aside): balance sheet, each statement, the journal, each hand.
    organiser = client_for(setup.organiser)
    for path in (
        "/clubs/{}/ledger/",
        "/clubs/{}/ledger/journal/",
        "/clubs/{}/ledger/rulings/",
        "/clubs/{}/ledger/settle/",
        "/clubs/{}/members/",
        "/clubs/{}/results/",
        "/clubs/{}/seasons/",
    ):
        before, after = organiser.get(path.format(old.pk)), organiser.get(path.format(new.pk))
        assert before.status_code == after.status_code == 200, path
        assert _text(after.content.decode()) == _text(before.content.decode()), path
    for user in setup.everyone:
        before = organiser.get(f"/clubs/{old.pk}/ledger/members/{user.pk}/")
        after = organiser.get(f"/clubs/{new.pk}/ledger/members/{user.pk}/")
        assert _text(after.content.decode()) == _text(before.content.decode())
    old_hands = Hand.objects.filter(table__club=old).order_by("table__created_at", "table__pk", "number")
    new_hands = Hand.objects.filter(table__club=new).order_by("table__created_at", "table__pk", "number")
    assert len(old_hands) == len(new_hands) > 0
    replayed = 0
    watcher = client_for(reader)
    for before_hand, after_hand in zip(old_hands, new_hands, strict=True):
        # The file held only the cards opened to everyone: those come back where they were, the others as
        # stand-ins with their leaves, under the root published at the deal.
        opened = hand_committed_positions(hand=before_hand, state=engine.state_from_json(before_hand.state), seat=None)
        closed = {int(p) for p in after_hand.closed_leaves}
        assert closed == set(range(52)) - opened and not before_hand.closed_leaves
        assert [after_hand.deck[i] for i in sorted(opened)] == [before_hand.deck[i] for i in sorted(opened)]
        assert after_hand.commitment == before_hand.commitment
        assert after_hand.started_at == before_hand.started_at
        assert organiser.get(f"/hands/{after_hand.pk}/").status_code == 200
        before = watcher.get(f"/hands/{before_hand.pk}/")
        after = watcher.get(f"/hands/{after_hand.pk}/")
        assert after.status_code == before.status_code == 200
        # In the same site the hand gets a new id, and each opening's path binds the id: the hashes differ.
        assert _text(after.content.decode(), proofs=False).replace(IMPORTED, "") == _text(
            before.content.decode(), proofs=False
        )
        # The replay plays the restored log through the engine: the same steps. (The simulator's hands
        # keep no action log, so they have no replay on either side.)
        replays = [watcher.get(f"/hands/{h.pk}/replay.json") for h in (before_hand, after_hand)]
        assert replays[0].status_code == replays[1].status_code
        assert organiser.get(f"/hands/{after_hand.pk}/replay.json").status_code == replays[0].status_code
        if replays[0].status_code == 200:
            replayed += 1
            assert [_text(s["html"]) for s in replays[1].json()["steps"]] == [
                _text(s["html"]) for s in replays[0].json()["steps"]
            ]
        if before_hand.scheme != engine.SCHEME_DECK:  # each page names the export that took its deck
            assert "Moving to a new host" in after.content.decode()
        assert list(HandAction.objects.filter(hand=after_hand).values_list("sequence", "action", "created_at")) == list(
            HandAction.objects.filter(hand=before_hand).values_list("sequence", "action", "created_at")
        )
    assert replayed >= 1


def test_the_zip_has_a_manifest_and_the_books_as_csv(kept_club):
    archive = zipfile.ZipFile(io.BytesIO(_export(kept_club.club)))
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["format"] == "home-club-export" and manifest["format_version"] == 2
    assert manifest["counts"]["hands"] == Hand.objects.filter(table__club=kept_club.club).count()
    journal = archive.read("books/journal.csv").decode()
    assert journal.splitlines()[0].startswith("entry,date,kind,memo,account,amount_cents")
    assert len(journal.splitlines()) == Posting.objects.filter(club=kept_club.club).count() + 1
    assert "balance_cents" in archive.read("books/balances.csv").decode()
    members = [json.loads(line) for line in archive.read("data/members.jsonl").splitlines()]
    assert {m["username"] for m in members} >= {u.username for u in kept_club.everyone}
    assert all("password" not in m for m in members)
    everything = b"".join(archive.read(name) for name in archive.namelist())
    assert b"pbkdf2" not in everything and b"md5$" not in everything


def test_a_hand_being_played_holds_the_export_back(kept_club):
    ann, ben, _ = kept_club.members
    table = make_table(kept_club.club, kept_club.organiser, engine.PiranhaRules(), players=[ann, ben])
    services.table_start(table_id=table.pk, user=ann)
    with pytest.raises(ArchiveError, match="being played at Test table"):
        _export(kept_club.club)


def test_a_club_with_records_refuses_the_import_and_keeps_them(kept_club):
    data = _export(kept_club.club)
    tables_before = Table.objects.count()
    with pytest.raises(ArchiveError, match="already has rule sets, tables, ledger entries"):
        club_import(source=io.BytesIO(data), into=kept_club.club)
    assert Table.objects.count() == tables_before


def test_an_empty_club_takes_the_import_and_its_organiser_stays(kept_club):
    data = _export(kept_club.club)
    empty = ClubFactory(currency="EUR")
    MembershipFactory(club=empty, user=kept_club.outsider, role=Membership.Role.ORGANISER)
    result = club_import(source=io.BytesIO(data), into=empty)
    assert result.club.pk == empty.pk
    empty.refresh_from_db()
    assert empty.currency == kept_club.club.currency
    assert Membership.objects.get(club=empty, user=kept_club.outsider).role == Membership.Role.ORGANISER
    assert ledger_problems(club_id=empty.pk)[0] == []


def test_a_fresh_site_gets_new_accounts_without_passwords(kept_club):
    data = _export(kept_club.club)
    # Another site's people: same usernames, other email addresses.
    for user in kept_club.everyone:
        User.objects.filter(pk=user.pk).update(email=f"else-{user.pk}@example.org")
    result = club_import(source=io.BytesIO(data))
    assert len(result.new_users) == len(kept_club.everyone) + 0
    for name in result.new_users:
        user = User.objects.get(username=name)
        assert not user.has_usable_password()
        assert Membership.objects.filter(club=result.club, user=user).exists()
    assert ledger_problems(club_id=result.club.pk)[0] == []


def test_a_damaged_or_foreign_file_is_refused_with_a_reason(kept_club):
    with pytest.raises(ArchiveError, match="not a zip file"):
        club_import(source=io.BytesIO(b"hello"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": "home-club-export", "format_version": 99}))
    with pytest.raises(ArchiveError, match="format version 99"):
        club_import(source=io.BytesIO(out.getvalue()))
    clubs = Club.objects.count()
    # Postings cut out: the import stops and leaves nothing behind.
    source = zipfile.ZipFile(io.BytesIO(_export(kept_club.club)))
    cut = io.BytesIO()
    with zipfile.ZipFile(cut, "w") as archive:
        for name in source.namelist():
            content = source.read(name)
            if name == "data/postings.jsonl":
                content = b"\n".join(content.splitlines()[:-1]) + b"\n"
            archive.writestr(name, content)
    with pytest.raises(Exception):  # noqa: B017 - the manifest count or the books' own guard refuses it
        club_import(source=io.BytesIO(cut.getvalue()))
    assert Club.objects.count() == clubs


def test_the_commands_export_and_import(kept_club, tmp_path):
    path = tmp_path / "club.zip"
    call_command("club_export", "--club", str(kept_club.club.pk), "--out", str(path), "--reason", "Backup")
    out = io.StringIO()
    call_command("club_import", str(path), stdout=out)
    assert "Imported into club #" in out.getvalue()
    with pytest.raises(CommandError, match="already has"):
        call_command("club_import", str(path), "--into", str(kept_club.club.pk))


def test_an_organiser_exports_and_imports_through_the_club_data_page(kept_club, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile

    organiser = client_for(kept_club.organiser)
    page = organiser.get(f"/clubs/{kept_club.club.pk}/data/").content.decode()
    assert "Download the club (.zip)" in page and "already has rule sets" in page
    response = organiser.post(f"/clubs/{kept_club.club.pk}/data/export.zip", {"reason": "Moving to a new host"})
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    data = b"".join(response.streaming_content)
    assert json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))["club"]["id"] == kept_club.club.pk

    empty = ClubFactory(name="New home")
    MembershipFactory(club=empty, user=kept_club.outsider, role=Membership.Role.ORGANISER)
    newcomer = client_for(kept_club.outsider)
    assert 'type="file"' in newcomer.get(f"/clubs/{empty.pk}/data/").content.decode()
    refused = newcomer.post(
        f"/clubs/{empty.pk}/data/import/",
        {"file": SimpleUploadedFile("x.zip", b"not a zip", content_type="application/zip")},
    )
    assert refused.status_code == 400 and "not a zip file" in refused.content.decode()
    queued = newcomer.post(
        f"/clubs/{empty.pk}/data/import/",
        {"file": SimpleUploadedFile("club.zip", data, content_type="application/zip")},
        follow=True,
    )
    assert queued.status_code == 200 and "Waiting for its turn" in queued.content.decode()
    assert [job.state for job in run_queued_imports()] == ["done"]  # as the imports worker runs it
    done = newcomer.get(f"/clubs/{empty.pk}/data/")
    assert done.status_code == 200 and "Imported:" in done.content.decode()
    assert ledger_problems(club_id=empty.pk)[0] == []
    assert Hand.objects.filter(table__club=empty).count() == Hand.objects.filter(table__club=kept_club.club).count()
    again = newcomer.post(
        f"/clubs/{empty.pk}/data/import/",
        {"file": SimpleUploadedFile("club.zip", data, content_type="application/zip")},
    )
    assert again.status_code == 400 and "already has" in again.content.decode()


def test_an_export_needs_a_reason_and_every_member_reads_it_on_each_hand_it_holds(kept_club, client_for):
    from django.db import IntegrityError, transaction

    from games.models import ClubExport

    club = kept_club.club
    with pytest.raises(ArchiveError, match="Give the reason"):
        club_export(club=club, out=io.BytesIO(), reason="   ")
    organiser = client_for(kept_club.organiser)
    refused = organiser.post(f"/clubs/{club.pk}/data/export.zip", {"reason": ""})
    assert refused.status_code == 400 and "Give the reason" in refused.content.decode()
    assert refused["Content-Type"].startswith("text/html")
    assert not ClubExport.objects.filter(club=club).exists()

    response = organiser.post(f"/clubs/{club.pk}/data/export.zip", {"reason": "Moving to a new host"})
    assert response.status_code == 200
    data = b"".join(response.streaming_content)
    record = ClubExport.objects.get(club=club)
    finished = Hand.objects.filter(table__club=club, finished_at__isnull=False)
    assert record.exported_by == kept_club.organiser and record.hands == finished.count() > 0
    # The file holds its own record, and its manifest says which cards are in it.
    archive = zipfile.ZipFile(io.BytesIO(data))
    rows = [json.loads(line) for line in archive.read("data/exports.jsonl").decode().splitlines()]
    assert [(r["id"], r["reason"]) for r in rows] == [(record.pk, "Moving to a new host")]
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["reason"] == "Moving to a new host" and "folded and dropped" in manifest["closed_cards"]
    assert manifest["counts"]["exports"] == 1
    # A member who played none of these hands reads the export on every finished hand's page.
    reader = client_for(MembershipFactory(club=club).user)
    for hand in finished.exclude(scheme=engine.SCHEME_DECK):
        page = reader.get(f"/hands/{hand.pk}/").content.decode()
        assert "In the club's export files" in page and "Moving to a new host" in page, hand.pk
    assert "Moving to a new host" in organiser.get(f"/clubs/{club.pk}/data/").content.decode()
    # A hand that ends after the export is not in that file, and its page does not say it is.
    playing = (
        Hand.objects.get(table__club=club, finished_at__isnull=True)
        if Hand.objects.filter(table__club=club, finished_at__isnull=True).exists()
        else None
    )
    assert playing is None or "Moving to a new host" not in reader.get(f"/hands/{playing.pk}/").content.decode()
    # The record stays as it was made.
    for change in (
        lambda: ClubExport.objects.filter(pk=record.pk).update(reason="nothing"),
        lambda: ClubExport.objects.filter(pk=record.pk).delete(),
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            change()
    # Restored, the club keeps the record: the hand pages read the same (the round trip compares them).
    new = club_import(source=io.BytesIO(data)).club
    assert list(ClubExport.objects.filter(club=new).values_list("reason", "hands", "created_at", "exported_by")) == [
        ("Moving to a new host", record.hands, record.created_at, kept_club.organiser.pk)
    ]


def test_a_failed_export_leaves_no_record(kept_club):
    from games.models import ClubExport

    class Broken(io.BytesIO):
        def write(self, data):  # type: ignore[no-untyped-def, override]
            raise OSError("disk full")

    with pytest.raises(OSError):
        club_export(club=kept_club.club, out=Broken(), reason="Backup")
    assert not ClubExport.objects.filter(club=kept_club.club).exists()


def test_random_hands_of_both_games_come_back_without_their_closed_cards(club_setup, client_for):
    """Hands of Piranha and Piles, played with random moves, export and import again: the opened cards
    come back where they were, the replay plays the log back over the stand-ins (it checks the final state
    against the stored one) and tells the same steps as on the original, the proof opens only the cards
    opened to everyone."""
    setup = club_setup
    simulation_run(club=setup.club, players=setup.everyone, hands=16, seed=5)
    reader = MembershipFactory(club=setup.club).user
    new = club_import(source=io.BytesIO(_export(setup.club))).club
    watcher, player = client_for(reader), client_for(setup.members[0])
    old_hands = Hand.objects.filter(table__club=setup.club).order_by("table__created_at", "table__pk", "number")
    new_hands = Hand.objects.filter(table__club=new).order_by("table__created_at", "table__pk", "number")
    replayed = 0
    for before, after in zip(old_hands, new_hands, strict=True):
        public = sorted(hand_committed_positions(hand=before, state=engine.state_from_json(before.state), seat=None))
        assert [after.deck[i] for i in public] == [before.deck[i] for i in public]
        steps = [watcher.get(f"/hands/{h.pk}/replay.json") for h in (before, after)]
        assert steps[0].status_code == steps[1].status_code
        if steps[0].status_code == 200:
            replayed += 1
            assert [_text(s["html"]) for s in steps[1].json()["steps"]] == [
                _text(s["html"]) for s in steps[0].json()["steps"]
            ]
        assert player.get(f"/hands/{after.pk}/replay.json").status_code == steps[0].status_code
        assert player.get(f"/hands/{after.pk}/").status_code == 200
        proof = player.get(f"/hands/{after.pk}/proof.json").json()
        assert [o["position"] for o in proof["openings"]] == list(public)
    assert replayed > 8
