"""Reading a club export (clubdata/archive.py's format) back: bounded, checked, and speaking only for
whoever may speak for it.

Two readers of one file format:

- ``club_import_upload``: an organiser's upload on the club's data page. The file speaks for its uploader
  only. The uploader stays the club's organiser and is the one member of the file they may claim (the
  member with their own username and email address); every other person in the file becomes a named
  placeholder account ("Ann (imported)": no password, no address, no membership) that carries that
  person's seats, actions, chat, postings, rulings and settlements, and each current member of the file
  with an address gets an ordinary invitation to the club (accounts' invitation machinery, after the
  import commits). No existing account is ever enrolled, named or given a record by the file.
- ``club_import``: the operator's whole-site restore (``manage.py club_import``): members are matched to
  the site's accounts by username and email, as before, since the operator speaks for the site.

Both read the zip as a stream with limits on the upload, each file, each line and the whole decompressed
size (``ImportLimits``); every row is checked by the validators the forms use (names, currency, rules,
hands' decks, salts and states, duplicate ids, balanced entries) and a refusal names the file and line.
A hand keeps its id (its card openings bind it) only where that id is free and within
``hand_id_ahead`` of the id sequence, so advancing the sequence costs a bounded number of steps.
"""

from __future__ import annotations

import io
import json
import re
import secrets
import struct
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import IO, Any, TypeVar

from django.conf import settings
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import DatabaseError, connection, models, transaction
from psycopg.errors import QueryCanceled

import engine
from accounts.models import Club, Membership, User
from accounts.services import club_name_error
from clubhouse.models import Season
from engine.cards import to_cards
from games.models import ClubExport, Hand, RuleSet, Table
from kernel.errors import DomainError
from kernel.text import text_problem
from ledger.models import Account, ClubLedgerSettings, JournalEntry, Ruling, Settlement

from .archive import (
    BATCH,
    FORMAT,
    FORMAT_VERSION,
    KINDS,
    READS_VERSIONS,
    ArchiveError,
    Kind,
    club_is_empty,
    hand_values_closed,
)

MB = 1024 * 1024
BIGINT_MAX = 2**63 - 1
CHUNK = 64 * 1024
_T = TypeVar("_T")


@dataclass(frozen=True)
class ImportLimits:
    """How much one import may read (docs/operations.md, "Club imports")."""

    upload_bytes: int  # the zip as sent
    total_bytes: int  # everything read out of it, decompressed
    file_bytes: int  # one file of it, decompressed
    line_bytes: int  # one record (one line)
    small_file_bytes: int  # manifest.json and data/club.json
    entries: int  # files in the zip
    rows: int  # records in all its files
    hand_id_ahead: int  # how far past the id sequence a hand may keep its id


#: an organiser's upload, read by a web process capped at 512 MB (docker-compose.yml)
UPLOAD_LIMITS = ImportLimits(
    upload_bytes=64 * MB,
    total_bytes=1024 * MB,
    file_bytes=512 * MB,
    line_bytes=MB,
    small_file_bytes=64 * 1024,
    entries=64,
    rows=1_000_000,
    hand_id_ahead=1_000_000,
)
#: the operator's restore (manage.py club_import), run beside the site with a longer statement timeout
OPERATOR_LIMITS = ImportLimits(
    upload_bytes=4096 * MB,
    total_bytes=32768 * MB,
    file_bytes=16384 * MB,
    line_bytes=8 * MB,
    small_file_bytes=MB,
    entries=64,
    rows=200_000_000,
    hand_id_ahead=50_000_000,
)

SEQUENCE_STEP = 250_000  # ids taken from a sequence per statement: about 0.3 s, well within any statement timeout
#: an upload's statements (the results of every hand it brings are derived in one) may take longer than a page's
UPLOAD_STATEMENT_TIMEOUT = "30s"


PROGRESS_EVERY = 1000  # records between two looks at the clock (and reports of progress)


@dataclass
class ImportBudget:
    """How long one import may run (a ``time.monotonic()`` deadline), and who hears how far it got."""

    deadline: float
    seconds: float
    progress: Callable[[int, str], None] | None = None  # (records read, the file being read)

    def check(self, reader: _Reader) -> None:
        if self.progress is not None:
            self.progress(reader.rows, reader.where.partition(",")[0])
        if time.monotonic() > self.deadline:
            raise ImportOutOfTime(
                f"The import stopped after {_duration(self.seconds)}, the longest this site gives one import, "
                f"at {reader.where or 'the end'} ({reader.rows:,} records read). Nothing of it was kept: "
                f"the club is as it was. The site's operator can import a club this large (manage.py club_import)."
            )


class ImportOutOfTime(ArchiveError):
    """The import ran past its budget and was rolled back."""


def _duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"


@dataclass
class ImportResult:
    club: Club
    counts: dict[str, int]
    new_users: list[str]  # the operator's restore: accounts made for people the site did not have
    placeholders: list[str] = field(default_factory=list)  # an upload: the named placeholders made
    invite: list[str] = field(default_factory=list)  # an upload: addresses to invite once it commits


# --- reading the zip, bounded -----------------------------------------------------------------------


class _Reader:
    """The zip, read as a stream: every byte counted against the limits; refusals name the file and line."""

    def __init__(self, source: IO[bytes] | str, limits: ImportLimits) -> None:
        self.limits = limits
        self.read_total = 0
        _check_directory(source, limits)
        try:
            self.zip = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise ArchiveError("The file is not a zip file.") from exc
        if len(self.zip.infolist()) > limits.entries:
            raise ArchiveError(
                f"The zip holds {len(self.zip.infolist())} files; a club export holds at most {limits.entries}."
            )
        if any(_is_zip64(info.extra) or _is_zip64(self._local_extra(info)) for info in self.zip.infolist()):
            raise ArchiveError(ZIP64_REFUSAL)
        self.where = ""  # "data/hands.jsonl, line 12": the record being read, for a refusal
        self.line = 0  # its line number
        self.rows = 0
        self.budget: ImportBudget | None = None

    def close(self) -> None:
        self.zip.close()

    def _local_extra(self, info: zipfile.ZipInfo) -> bytes:
        """The extra field of ``info``'s local header, which ``zipfile`` skips (a ZIP64 entry may be marked
        there only, as Python's own ``force_zip64`` writes it)."""
        stream = self.zip.fp
        assert stream is not None
        stream.seek(info.header_offset)
        header = stream.read(_LOCAL.size)
        if len(header) < _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise ArchiveError("The file is not a zip file.")
        *_, compressed, size, name_length, extra_length = _LOCAL.unpack(header)
        stream.seek(name_length, io.SEEK_CUR)
        extra = stream.read(extra_length)
        return extra + (b"\x01\x00\x00\x00" if _ZIP64_SIZE in (compressed, size) else b"")

    def _chunks(self, name: str, most: int) -> Iterator[bytes]:
        try:
            info = self.zip.getinfo(name)
        except KeyError as exc:
            raise ArchiveError(f"The file has no {name}: it is not a complete club export.") from exc
        size = 0
        try:
            with self.zip.open(info) as raw:
                while chunk := raw.read(CHUNK):
                    size += len(chunk)
                    self.read_total += len(chunk)
                    if size > most:
                        raise ArchiveError(
                            f"{name} is larger than {most // 1024:,} KB unpacked: this site reads no "
                            f"larger file in an import."
                        )
                    if self.read_total > self.limits.total_bytes:
                        raise ArchiveError(
                            f"The export is larger than {self.limits.total_bytes // MB:,} MB "
                            f"unpacked: this site imports no larger one."
                        )
                    yield chunk
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise ArchiveError(f"{name} cannot be unpacked: the file is damaged.") from exc

    def json_file(self, name: str) -> dict[str, Any]:
        """A small JSON object (the manifest, the club)."""
        data = b"".join(self._chunks(name, self.limits.small_file_bytes))
        self.where = name
        return _object(data, name)

    def _count_row(self) -> None:
        self.rows += 1
        if self.budget is not None and self.rows % PROGRESS_EVERY == 0:
            self.budget.check(self)
        if self.rows > self.limits.rows:
            raise ArchiveError(
                f"{self.where}: the export holds more than {self.limits.rows:,} records, more than "
                f"this site imports at once."
            )

    def lines(self, name: str) -> Iterator[dict[str, Any]]:
        """Each line of a JSON-lines file as an object; ``self.where`` names it while it is handled."""
        pending, number = b"", 0
        for chunk in self._chunks(name, self.limits.file_bytes):
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                number += 1
                if line.strip():
                    self.where, self.line = f"{name}, line {number}", number
                    self._count_row()
                    yield _object(line, self.where)
            if len(pending) > self.limits.line_bytes:
                raise ArchiveError(
                    f"{name}, line {number + 1}: longer than {self.limits.line_bytes // 1024:,} KB, "
                    f"longer than any record of a club export."
                )
        if pending.strip():
            self.where, self.line = f"{name}, line {number + 1}", number + 1
            self._count_row()
            yield _object(pending, self.where)


_END = struct.Struct("<4s4H2LH")  # the zip's end of central directory record (APPNOTE 4.3.16)
_LOCAL = struct.Struct("<4s5HL2L2H")  # a local file header (APPNOTE 4.3.7)
_ZIP64_SIZE = 0xFFFFFFFF  # a size field that says "see the ZIP64 extra field"
DIRECTORY_MAX = 64 * 1024  # an export's directory of about twenty files takes about 2 KB
#: ZIP64 is for files and archives past 4 GB and 65,535 entries, which an upload (64 MB) never needs; refusing
#: it keeps to one set of size fields, the ones the limits are checked against.
ZIP64_REFUSAL = "The zip uses ZIP64 (a format for files larger than 4 GB), which a club export never needs."


def _is_zip64(extra: bytes) -> bool:
    """Whether an extra field holds the ZIP64 record (header id 0x0001, APPNOTE 4.5.3)."""
    at = 0
    while at + 4 <= len(extra):
        kind, size = struct.unpack_from("<2H", extra, at)
        if kind == 0x0001:
            return True
        at += 4 + size
    return False


def _check_directory(source: IO[bytes] | str, limits: ImportLimits) -> None:
    """Refuse a zip whose directory is larger than an export's before ``zipfile`` reads it: it keeps an
    object for every entry listed, and a directory can list millions in a small upload. Also refuses a
    ZIP64 end of central directory (``ZIP64_REFUSAL``); ``_Reader`` refuses a ZIP64 entry."""
    with open(source, "rb") if isinstance(source, str) else nullcontext(source) as stream:
        stream.seek(0, io.SEEK_END)
        size = stream.tell()
        if size > limits.upload_bytes:
            raise ArchiveError(
                f"The file is larger than {limits.upload_bytes // MB:,} MB, more than this site imports."
            )
        tail_at = max(0, size - (_END.size + 65535))
        stream.seek(tail_at)
        tail = stream.read()
        stream.seek(0)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise ArchiveError("The file is not a zip file.")
    if at >= 20 and tail[at - 20 : at - 16] == b"PK\x06\x07":  # the ZIP64 end of central directory locator
        raise ArchiveError(ZIP64_REFUSAL)
    directory_size = _END.unpack_from(tail, at)[5]
    if directory_size > DIRECTORY_MAX:
        raise ArchiveError("The zip lists more files than a club export holds.")


def _object(data: bytes, where: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ArchiveError(f"{where}: not readable JSON.") from exc
    if not isinstance(value, dict):
        raise ArchiveError(f"{where}: a record must be a JSON object, not {type(value).__name__}.")
    return value


def _manifest(reader: _Reader) -> dict[str, Any]:
    manifest = reader.json_file("manifest.json")
    if manifest.get("format") != FORMAT:
        raise ArchiveError("The file is not a club export of this site.")
    if manifest.get("format_version") not in READS_VERSIONS:
        raise ArchiveError(
            f"The export is in format version {str(manifest.get('format_version'))[:20]}; this "
            f"site reads version {FORMAT_VERSION}."
        )
    if not isinstance(manifest.get("counts", {}), dict):
        raise ArchiveError("manifest.json: counts must be an object.")
    return manifest


# --- checks of one record, as the forms check them ---------------------------------------------------

_HEX64 = re.compile(r"[0-9a-f]{64}")
_NAMES = {"rule_sets": ("name",), "tables": ("name",), "seasons": ("name",)}


def _check_id(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= BIGINT_MAX:
        raise ValueError(f"{what} must be a whole number from 1 to {BIGINT_MAX}")
    return value


def _check_name(value: Any, what: str) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    problem = text_problem(value, what=what)
    if problem:
        raise ValueError(problem)


def _check_currency(value: Any) -> str:
    """The club form's rule (accounts/forms.py ClubForm.clean_currency)."""
    if not isinstance(value, str) or len(value.strip()) != 3 or not value.strip().isalpha() or not value.isascii():
        raise ArchiveError("data/club.json: the currency must be a three-letter code such as USD, EUR or GBP.")
    return value.strip().upper()


def _check_rules(rules: Any) -> None:
    try:
        errors = engine.rules_from_dict(rules).validate()
    except (engine.EngineError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"the rules are not readable ({exc})") from exc
    if errors:
        raise ValueError("the rules are refused: " + "; ".join(errors))


def _check_hand(values: dict[str, Any]) -> None:
    """What the hand's pages read: a state the engine reads, dealt to the hand's players, and a deck
    committed by the hand's scheme. A hand still being played is refused: an export holds finished hands."""
    if values.get("finished_at") is None:
        raise ValueError("the hand has not finished; an export holds finished hands only")
    try:
        _check_state(values)
        _check_deck(values)
    except (engine.EngineError, TypeError, AttributeError) as exc:
        raise ValueError(str(exc)) from exc


PER_SEAT = ("hole", "paid", "status", "decisions", "last_action")  # the state's tuples indexed like ``seats``


def _check_state(values: dict[str, Any]) -> None:
    state = engine.state_from_json(values["state"])
    players = values["players"]
    if not isinstance(players, dict) or not players:
        raise ValueError("the hand must name its players")
    if sorted(state.seats) != sorted(int(seat) for seat in players):
        raise ValueError("the hand's state and its players name different seats")
    if any(len(getattr(state, name)) != len(state.seats) for name in PER_SEAT if hasattr(state, name)):
        raise ValueError("the hand's state does not hold one entry per seat")


def _check_deck(values: dict[str, Any]) -> None:
    """A deck of 52 different cards with its scheme's salts and a commitment of 64 hex digits. A hand of a
    version-2 file holds its closed positions as leaf hashes only (``hand_values_closed`` put stand-ins in
    the deck): those positions carry no salt, and each leaf must be 64 hex digits."""
    deck = values["deck"]
    if not isinstance(deck, list) or len(deck) != 52 or not all(isinstance(c, str) for c in deck):
        raise ValueError("the deck must list 52 cards")
    if len(set(to_cards(deck))) != 52:
        raise ValueError("the deck must hold each card once")
    merkle = values["scheme"] in (engine.SCHEME_MERKLE, *engine.SCHEMES_CUT)
    closed = _closed_positions(values.get("closed_leaves"), merkle=merkle)
    if merkle:
        salts = values["salts"]
        if not isinstance(salts, list) or len(salts) != 52:
            raise ValueError("the hand needs 52 salts")
        engine.check_salts([_ANY_SALT if i in closed else salt for i, salt in enumerate(salts)])
    elif not closed and (not isinstance(values["salt"], str) or not values["salt"]):
        raise ValueError("the hand needs its salt")
    if not isinstance(values["commitment"], str) or not _HEX64.fullmatch(values["commitment"]):
        raise ValueError("the commitment must be 64 lowercase hex digits")


_ANY_SALT = "0" * 32  # stands for a closed position's salt, which the file rightly leaves out


def _closed_positions(leaves: Any, *, merkle: bool) -> set[int]:
    """The deck positions a hand holds as leaf hashes: position text -> 64 hex digits (a hand of the older
    whole-deck scheme has no per-card leaves: "")."""
    if not leaves:
        return set()
    if not isinstance(leaves, dict):
        raise ValueError("closed_leaves must map deck positions to leaf hashes")
    out = set()
    for position, leaf in leaves.items():
        if not (isinstance(position, str) and position.isdigit() and int(position) < 52):
            raise ValueError("closed_leaves names a position outside the deck")
        if not isinstance(leaf, str) or (_HEX64.fullmatch(leaf) is None if merkle else leaf != ""):
            raise ValueError("a closed position's leaf must be 64 lowercase hex digits")
        out.add(int(position))
    return out


def _check_fields(obj: models.Model) -> None:
    """The model's own field validators (lengths, choices, number ranges, dates), as a form's."""
    meta = obj._meta
    skip = [f.name for f in meta.concrete_fields if f.is_relation or f.primary_key]
    obj.clean_fields(exclude=skip)


def _problem(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return "; ".join(
                f"{name}: {' '.join(str(m) for m in errors[0].messages)}" for name, errors in exc.error_dict.items()
            )
        return " ".join(exc.messages)
    if isinstance(exc, KeyError):
        return f"the field {str(exc.args[0])[:40]!r} is missing"
    return str(exc)[:300]


# --- who the file's people become -------------------------------------------------------------------

#: reads data/members.jsonl into the id map of users; returns the names to report
People = Callable[[_Reader, Club, dict[int, int], ImportResult], None]


def _member_row(row: dict[str, Any]) -> dict[str, Any]:
    """The fields of a member line, checked as the profile form checks them."""
    _check_id(row["id"], "id")
    for name in ("username", "email", "display_name", "first_name", "last_name"):
        if not isinstance(row.get(name) or "", str):
            raise ValueError(f"{name} must be text")
    _check_name(row["display_name"] or "", "A display name")
    _check_name(row["username"], "A username")
    if row.get("role") not in (None, Membership.Role.MEMBER, Membership.Role.ORGANISER):
        raise ValueError("the role must be member, organiser or empty")
    return row


def _people_as_accounts(reader: _Reader, club: Club, users: dict[int, int], result: ImportResult) -> None:
    """The operator's restore: each person is the site's account with their username and email address,
    or a new account (no password); each member gets the file's role."""
    for raw in reader.lines("data/members.jsonl"):
        row = _checked(reader, partial(_member_row, raw))
        email = row["email"] or ""
        user = User.objects.filter(username=row["username"]).first()
        if user is None or user.email.lower() != email.lower():
            email_free = not email or not User.objects.filter(email__iexact=email).exists()
            user = User(
                username=_free_username(row["username"]),
                display_name=row["display_name"],
                email=email if email_free else "",
                first_name=row["first_name"],
                last_name=row["last_name"],
                time_zone=row["time_zone"],
                is_active=row["is_active"],
            )
            user.set_unusable_password()
            _checked(reader, partial(user.clean_fields, exclude=["password"]))
            user.save()
            result.new_users.append(user.username)
        _map_user(reader, users, row["id"], user.pk)
        if row["role"]:
            membership, created = Membership.objects.get_or_create(user=user, club=club, defaults={"role": row["role"]})
            if created:
                Membership.objects.filter(pk=membership.pk).update(joined_at=row["joined_at"])
            elif row["role"] == Membership.Role.ORGANISER and not membership.is_organiser:
                membership.role = Membership.Role.ORGANISER
                membership.save(update_fields=["role"])


def _people_for(uploader: User) -> People:
    """An upload: the uploader may claim their own line; everyone else is a named placeholder, made
    ``BATCH`` at a time with one insert (a placeholder a statement took 1.25 ms a member)."""

    def read(reader: _Reader, club: Club, users: dict[int, int], result: ImportResult) -> None:
        claimed = False
        batch: list[tuple[int, User]] = []
        first_line = 0

        def flush() -> None:
            reader.where = f"data/members.jsonl, one of lines {first_line}-{reader.line}"
            _placeholders_create(club, batch)
            for old, user in batch:
                users[old] = user.pk
                result.placeholders.append(user.shown_name)
            batch.clear()

        for raw in reader.lines("data/members.jsonl"):
            row = _checked(reader, partial(_member_row, raw))
            email = (row["email"] or "").strip()
            if (
                not claimed
                and uploader.email
                and email.lower() == uploader.email.lower()
                and row["username"] == uploader.username
            ):
                _map_user(reader, users, row["id"], uploader.pk)
                claimed = True
                continue
            if row["id"] in users:
                raise ArchiveError(f"{reader.where}: the id {row['id']} is given twice.")
            if not batch:
                first_line = reader.line
            users[row["id"]] = 0  # taken: a second line with this id is refused; the new id comes at the flush
            batch.append((row["id"], _placeholder(reader, club, row)))
            if row["role"] and email and _valid_email(email) and email.lower() not in result.invite:
                result.invite.append(email.lower())
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()

    return read


def _placeholder(reader: _Reader, club: Club, row: dict[str, Any]) -> User:
    """A named stand-in for a person of the file, checked, not yet saved: no password, no address, no
    membership, never active."""
    name = (row["display_name"] or row["username"]).strip()[:48]
    user = User(
        username=f"imported-{club.pk}-{row['id']}"[:150],
        display_name=f"{name} (imported)",
        is_active=False,
        # set_unusable_password's, without its 40 draws from the system's random source one character each
        password=UNUSABLE_PASSWORD_PREFIX + secrets.token_urlsafe(30),
    )
    # The one value made of the file's: its name was checked as the profile form checks it (``_member_row``);
    # the field's own validators (its length) here, not every field's of a model built of constants.
    _checked(reader, partial(User._meta.get_field("display_name").clean, user.display_name, user))
    return user


def _placeholders_create(club: Club, batch: list[tuple[int, User]]) -> None:
    """Insert a batch of placeholders with one statement; a username already taken gets a suffix."""
    wanted = [user.username for _, user in batch]
    taken = set(User.objects.filter(username__in=wanted).values_list("username", flat=True))
    for _, user in batch:
        if user.username in taken:
            user.username = _free_username(user.username)
    User.objects.bulk_create([user for _, user in batch])


def _valid_email(email: str) -> bool:
    try:
        validate_email(email)
    except ValidationError:
        return False
    return True


def _map_user(reader: _Reader, users: dict[int, int], old: int, new: int) -> None:
    if old in users:
        raise ArchiveError(f"{reader.where}: the id {old} is given twice.")
    users[old] = new


def _free_username(base: str) -> str:
    name, n = base, 1
    while User.objects.filter(username=name).exists():
        n += 1
        name = f"{base[:140]}-{n}"
    return name


def _checked(reader: _Reader, check: Callable[[], _T]) -> _T:
    """Run ``check`` and turn what it refuses into an ArchiveError naming the file and line."""
    try:
        return check()
    except ArchiveError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, ValidationError) as exc:
        raise ArchiveError(f"{reader.where}: {_problem(exc).rstrip('.')}.") from exc


# --- the import -------------------------------------------------------------------------------------


def club_import(
    *, source: IO[bytes] | str, into: Club | None = None, limits: ImportLimits = OPERATOR_LIMITS
) -> ImportResult:
    """The operator's restore: read an export into ``into`` (empty: ``club_is_empty``) or into a new club.

    Members are matched to the site's accounts by username and email; one whose username is taken by
    someone else comes in under a new username, with no password. Everything lands in one transaction
    or nothing does. Raises ArchiveError naming the file and line it refuses."""
    return _import(source=source, into=into, people=_people_as_accounts, limits=limits)


def club_import_upload(
    *,
    source: IO[bytes],
    into: Club,
    by: User,
    limits: ImportLimits = UPLOAD_LIMITS,
    budget: ImportBudget | None = None,
) -> ImportResult:
    """An organiser's upload into their empty club ``into``: the file speaks for ``by`` only (the module's
    docstring). ``result.invite`` lists the addresses to invite once the transaction has committed. Within
    ``budget`` (clubdata/jobs.py gives each upload one) or not at all. Raises ArchiveError naming the file
    and line it refuses, ImportOutOfTime once past the budget; either way nothing was written."""
    return _import(
        source=source,
        into=into,
        people=_people_for(by),
        limits=limits,
        statement_timeout=UPLOAD_STATEMENT_TIMEOUT,
        budget=budget,
    )


def upload_check(*, source: IO[bytes]) -> None:
    """The quick checks of an upload, before it is stored: a zip (no ZIP64, a directory an export's size)
    holding a manifest of this site's format. Raises ArchiveError."""
    reader = _Reader(source, UPLOAD_LIMITS)
    try:
        _manifest(reader)
    finally:
        reader.close()
        source.seek(0)


def _import(
    *,
    source: IO[bytes] | str,
    into: Club | None,
    people: People,
    limits: ImportLimits,
    statement_timeout: str = "",
    budget: ImportBudget | None = None,
) -> ImportResult:
    reader = _Reader(source, limits)
    reader.budget = budget
    try:
        with transaction.atomic():
            if statement_timeout:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT set_config('statement_timeout', %s, true)", [statement_timeout])
            return _import_all(reader, into, people)
    except DatabaseError as exc:
        where = reader.where or "The file"
        if isinstance(exc.__cause__, QueryCanceled):
            raise ArchiveError(
                f"{where}: the import took longer than this site allows a step of it "
                f"({statement_timeout or 'its statement timeout'}); the site's operator can "
                f"import a club this large (manage.py club_import)."
            ) from exc
        cause = getattr(exc.__cause__, "diag", None)
        detail = getattr(cause, "message_primary", None) or "the database refused it"
        raise ArchiveError(f"{where}: this site cannot take the record ({detail}).") from exc
    finally:
        reader.close()


def _import_all(reader: _Reader, into: Club | None, people: People) -> ImportResult:
    manifest = _manifest(reader)
    club_row = reader.json_file("data/club.json")
    currency = _check_currency(club_row.get("currency"))
    credit_limit = _checked(reader, partial(_amount, club_row.get("credit_limit"), "credit_limit"))
    if into is None:
        name = str(club_row.get("name") or "").strip()
        problem = text_problem(name, what="A club name") or club_name_error(name)
        if problem:
            raise ArchiveError(f"data/club.json: {problem}")
        club = Club.objects.create(name=name, currency=currency, credit_limit=credit_limit)
    else:
        club = Club.objects.select_for_update().get(pk=into.pk)
        refusal = club_is_empty(club=club)
        if refusal:
            raise ArchiveError(refusal)
        club.currency, club.credit_limit = currency, credit_limit
        club.save(update_fields=["currency", "credit_limit"])
    settlement_max = club_row.get("settlement_max")
    if settlement_max:
        amount = _checked(reader, partial(_amount, settlement_max, "settlement_max"))
        ClubLedgerSettings.objects.update_or_create(club=club, defaults={"settlement_max": amount})
    result = ImportResult(club=club, counts={}, new_users=[])
    ids: dict[str, dict[int, int]] = {"users": {}}
    people(reader, club, ids["users"], result)
    result.counts["members"] = len(ids["users"])
    next_games: list[tuple[int, int]] = []
    entry_sums: dict[int, tuple[int, int]] = {}  # entry -> (the sum of its postings, the line of the first)
    for kind in KINDS:
        ids[kind.name] = {}
        result.counts[kind.name] = _import_kind(reader, kind, club, ids, next_games, entry_sums)
    unbalanced = [line for total, line in entry_sums.values() if total != 0]
    if unbalanced:
        raise ArchiveError(
            f"data/postings.jsonl, line {unbalanced[0]}: the postings of this journal entry do not sum to zero."
        )
    for table_id, next_id in next_games:
        Table.objects.filter(pk=ids["tables"][table_id]).update(next_game_id=ids["tables"].get(next_id))
    # Each player's result of each hand is derived from the action log and the books (the clubhouse's
    # trigger writes it when a hand finishes; these hands came in finished).
    from clubhouse.results import hand_results_backfill

    reader.where = ""
    hand_results_backfill(club_id=club.pk)
    if reader.budget is not None:
        reader.budget.check(reader)
    for name, n in result.counts.items():
        expected = manifest.get("counts", {}).get(name)
        if expected is not None and expected != n:
            raise ArchiveError(
                f"The manifest counts {str(expected)[:20]} {name} but the file holds {n}: the file is damaged."
            )
    return result


def _amount(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= BIGINT_MAX:
        raise ValueError(f"{what} must be a whole number of cents, at least 0")
    return value


def _value(model: type[models.Model], name: str, value: Any) -> Any:
    model_field = model._meta.get_field(name)
    if value is not None and isinstance(model_field, models.DateTimeField | models.DateField):
        return model_field.to_python(value)
    return value


def _insert_as_is(kind: Kind, objs: list[models.Model]) -> None:
    """INSERT rows with every value as given (an auto_now_add time too), one statement a row."""
    meta = kind.model._meta
    names = [*kind.plain, *kind.refs]
    if any(f.attname == "club_id" for f in meta.concrete_fields):
        names.append("club_id")
    columns = ", ".join(connection.ops.quote_name(n) for n in names)  # these fields' columns are their names
    sql = (
        f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({columns}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(names))}) RETURNING id"
    )
    with connection.cursor() as cursor:
        for obj in objs:
            cursor.execute(sql, [getattr(obj, n) for n in names])
            row = cursor.fetchone()
            assert row is not None
            obj.pk = row[0]


def _sequence_of(model: type[models.Model]) -> tuple[str, int] | None:
    """The id sequence of ``model``'s table and the highest id it has handed out (0: none yet)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [model._meta.db_table])
        row = cursor.fetchone()
        if row is None or row[0] is None:
            return None
        cursor.execute(f"SELECT last_value, is_called FROM {row[0]}")  # noqa: S608 - the catalogue's name
        last, called = cursor.fetchone() or (0, False)
    return row[0], int(last) if called else int(last) - 1


def _keep_hand_ids(batch: list[tuple[int, models.Model, dict[str, Any]]], limits: ImportLimits) -> None:
    """A hand keeps its id where this site has no hand with that id (always, in a fresh site) and the id is
    at most ``limits.hand_id_ahead`` past the id sequence: each card's commitment leaf binds the hand's id
    (engine/verify.py), so only then do the openings on its page verify against the root published
    at the deal. Any other hand takes a new id from the sequence."""
    sequence = _sequence_of(Hand)
    if sequence is None:
        return
    ceiling = sequence[1] + limits.hand_id_ahead
    taken = set(Hand.objects.filter(pk__in=[old for old, _, _ in batch]).values_list("pk", flat=True))
    for old, obj, _ in batch:
        if old not in taken and old <= ceiling:
            obj.pk = old


def _advance_sequence(model: type[models.Model]) -> None:
    """Move the id sequence past ids given explicitly (with nextval: the application role may not setval),
    a bounded number of steps a statement (the ids kept are at most ``hand_id_ahead`` past it)."""
    sequence = _sequence_of(model)
    if sequence is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT coalesce(max(id), 0) FROM {connection.ops.quote_name(model._meta.db_table)}")  # noqa: S608
        row = cursor.fetchone()
        behind = (int(row[0]) if row else 0) - sequence[1]
        while behind > 0:
            step = min(behind, SEQUENCE_STEP)
            cursor.execute("SELECT count(nextval(%s)) FROM generate_series(1, %s)", [sequence[0], step])
            behind -= step


def _restamp(kind: Kind, rows: list[tuple[Any, dict[str, Any]]]) -> None:
    """auto_now_add fields took the insert's clock: put the original times back, one UPDATE a field."""
    table = connection.ops.quote_name(kind.model._meta.db_table)
    for name in kind.stamped:
        model_field = kind.model._meta.get_field(name)
        assert isinstance(model_field, models.Field) and model_field.column
        column = connection.ops.quote_name(model_field.column)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} t SET {column} = v.at FROM unnest(%s::bigint[], %s::timestamptz[]) AS v(id, at) "  # noqa: S608
                f"WHERE t.id = v.id",
                [[pk for pk, _ in rows], [stamped[name] for _, stamped in rows]],
            )


#: the kinds other records name (their old ids are mapped to the new)
NAMED_KINDS = frozenset(target for kind in KINDS for target in kind.refs.values())
CLUB_OWNED = (RuleSet, Table, Account, Ruling, Settlement, JournalEntry, Season, ClubExport)


def _record(
    kind: Kind, row: dict[str, Any], club: Club, ids: dict[str, dict[int, int]], flush: Callable[[], None]
) -> tuple[models.Model, dict[str, Any]]:
    """One line as an unsaved model instance, every value checked; raises what ``_checked`` names."""
    _check_id(row["id"], "id")
    values: dict[str, Any] = {}
    for name in kind.plain:
        if kind.name == "postings" and name == "seq":
            continue  # stamped again by the posting trigger, in the order they were posted
        values[name] = _value(kind.model, name, row[name])
    for attname, target in kind.refs.items():
        old = row[attname]
        if old is None:
            values[attname] = None
            continue
        if target == kind.name and old not in ids[target]:
            flush()  # a reversal names an entry of this same batch
        try:
            values[attname] = ids[target][old]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"it names {target} #{str(old)[:20]}, which the file does not hold") from exc
    if kind.model in CLUB_OWNED:
        values["club_id"] = club.pk
    for name in _NAMES.get(kind.name, ()):
        _check_name(values[name], "A name")
    if kind.name == "chat" and (
        not isinstance(values["text"], str) or text_problem(values["text"], allow_joiners=True)
    ):
        raise ValueError(
            text_problem(str(values["text"]), what="A chat line", allow_joiners=True) or "a chat line must be text"
        )
    if kind.name == "rule_versions":
        _check_rules(values["rules"])
    if kind.name == "hands":
        try:
            hand_values_closed(values=values, row=row)  # stand-ins for the cards a version-2 file leaves out
        except ArchiveError as exc:
            raise ValueError(str(exc)) from exc
        _check_hand(values)
        values["players"] = {str(int(seat)): _user(ids, uid) for seat, uid in row["players"].items()}
        values["cuts"] = (
            _signed_cuts(row.get("cuts"), ids)
            if values["scheme"] == engine.SCHEME_CUT_V2
            else _cuts(row.get("cuts"), ids, cut=values["scheme"] == engine.SCHEME_CUT)
        )
    if kind.name == "tables" and row.get("next_game_id") is not None:
        _check_id(row["next_game_id"], "next_game_id")
    obj = kind.model(**values)
    _check_fields(obj)
    return obj, {name: values[name] for name in kind.stamped}


MAX_CUTS = 256  # a deal's cuts: at most 3 per seated member (games/services/cuts.py), with room


def _cuts(cuts: Any, ids: dict[str, dict[int, int]], *, cut: bool) -> list[dict[str, Any]]:
    """A hand's cuts, each {cut, by, at} with its maker's id mapped; only a hand of the cut's scheme has any."""
    if not cuts:
        return []
    if not cut or not isinstance(cuts, list) or len(cuts) > MAX_CUTS:
        raise ValueError("only a hand dealt through the cut lists cuts, and at most a few hundred")
    out = []
    for c in cuts:
        if (
            not isinstance(c, dict)
            or not engine.is_cut_value(c.get("cut"))
            or not isinstance(c.get("at"), str)
            or len(c["at"]) > 40
        ):
            raise ValueError("a cut is {cut: 32 hex digits, by: a member, at: an instant}")
        out.append({"cut": c["cut"], "by": _user(ids, c.get("by")), "at": c["at"]})
    return out


_HEX512 = re.compile(r"[0-9a-f]{512}")


def _signed_cuts(cuts: Any, ids: dict[str, dict[int, int]]) -> list[dict[str, Any]]:
    """A signed-cut hand's cuts (docs/fairness.md), each {cut, device, member_id, signature, n, e} with its
    member's id mapped; the public keys come with them, so the hand's proof still checks every signature."""
    if not cuts:
        return []
    if not isinstance(cuts, list) or len(cuts) > MAX_CUTS:
        raise ValueError("a hand's cuts are a list of at most a few hundred")
    out = []
    for c in cuts:
        if (
            not isinstance(c, dict)
            or not engine.is_cut_value(c.get("cut"))
            or not isinstance(c.get("device"), str)
            or not _HEX64.fullmatch(c["device"])
            or not isinstance(c.get("signature"), str)
            or not _HEX512.fullmatch(c["signature"])
            or not engine.is_device_modulus(c.get("n"))
            or c.get("e") != 65537
        ):
            raise ValueError("a signed cut is {cut, device, member_id, signature, n, e}, each of its form")
        out.append(
            {
                "cut": c["cut"],
                "device": c["device"],
                "member_id": _user(ids, c.get("member_id")),
                "signature": c["signature"],
                "n": c["n"],
                "e": 65537,
            }
        )
    return out


def _user(ids: dict[str, dict[int, int]], old: Any) -> int:
    if not isinstance(old, int) or old not in ids["users"]:
        raise ValueError(f"a player is user #{str(old)[:20]}, whom the file does not hold")
    return ids["users"][old]


def _import_kind(
    reader: _Reader,
    kind: Kind,
    club: Club,
    ids: dict[str, dict[int, int]],
    next_games: list[tuple[int, int]],
    entry_sums: dict[int, tuple[int, int]],
) -> int:
    """Read one kind's file in batches. The old ids of a kind that others name are kept (``ids``); of the
    others only the ids seen, to refuse one given twice."""
    mapping = ids[kind.name]
    named = kind.name in NAMED_KINDS
    batch: list[tuple[int, models.Model, dict[str, Any]]] = []
    seen: set[int] = set()  # a named kind's: only its batch's (the rest are in ``mapping``)
    count, first_line = 0, 0

    def flush() -> None:
        reader.where = f"data/{kind.name}.jsonl, one of lines {first_line}-{reader.line}"
        objs = [obj for _, obj, _ in batch]
        if kind.raw_insert:
            _insert_as_is(kind, objs)
        else:
            if kind.name == "hands":
                _keep_hand_ids(batch, reader.limits)
            kind.model._default_manager.bulk_create(objs)
        if named:
            mapping.update((old_id, obj.pk) for old_id, obj, _ in batch)
            seen.clear()
        _restamp(kind, [(obj.pk, stamped) for _, obj, stamped in batch])
        batch.clear()

    for row in reader.lines(f"data/{kind.name}.jsonl"):
        where = reader.where
        obj, stamped = _checked(reader, partial(_record, kind, row, club, ids, flush))
        reader.where = where
        if row["id"] in seen or row["id"] in mapping:
            raise ArchiveError(f"{where}: the id {row['id']} is given twice.")
        seen.add(row["id"])
        if not batch:
            first_line = reader.line
        if kind.name == "tables" and row.get("next_game_id"):
            next_games.append((row["id"], row["next_game_id"]))
        if kind.name == "postings":
            total, line = entry_sums.get(obj.entry_id, (0, reader.line))  # type: ignore[attr-defined]
            entry_sums[obj.entry_id] = (total + obj.amount, line)  # type: ignore[attr-defined]
        batch.append((row["id"], obj, stamped))
        count += 1
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    if kind.name == "hands":
        _advance_sequence(Hand)
    return count


def import_invitations_send(*, club: Club, by: User, emails: list[str], site_url: str) -> tuple[int, list[str]]:
    """Invite each address of an upload's members (after its transaction committed), through accounts'
    invitation machinery with its checks and its hourly cap on mails. Returns how many were invited and,
    for each address that was not, why (the organiser can invite it later from the members page)."""
    from accounts.services import invitation_create

    # No more than the hourly cap could send are tried: a file of thousands of addresses would otherwise
    # cost queries for each only to hear "many invitation emails in the last hour".
    most = settings.INVITATION_MAILS_PER_ORGANISER
    invited, skipped = 0, []
    for email in emails[:most]:
        try:
            invitation_create(club_id=club.pk, created_by=by, email=email, site_url=site_url)
        except DomainError as exc:
            skipped.append(f"{email}: {exc}")
        else:
            invited += 1
    if len(emails) > most:
        skipped.append(
            f"{len(emails) - most} more addresses: at most {most} invitation emails go out an hour; invite them "
            f"from the members page"
        )
    return invited, skipped
