"""The whole club as one zip, and back.

Layout of the zip (format ``home-club-export``, version ``FORMAT_VERSION``):

- ``manifest.json``: format, version, when, the club, a count of rows per file, and what the
  file holds and leaves out;
- one JSON-lines file per kind of record under ``data/`` (one object per line, the
  database's own field names, ids as they were in the exporting site): members (with their
  users), rule sets and versions, tables, seats, hands with their action logs and dispute
  rulings, chat, the books (accounts, rulings, settlements, journal entries and postings) and
  seasons; each player's result of each hand (the clubhouse's statistics) is derived again on
  import;
- ``books/journal.csv`` and ``books/balances.csv``: the books for a spreadsheet (read by people,
  not by the import).

Of every finished hand the file holds what everyone who may see the hand saw: the board as turned, the
hands shown at a showdown, the log (``hand_row_closed``). Every other deck position (folded and dropped
hands, cards never turned, the undealt rest) is null in the deck, the salts and the state and is kept as
its leaf hash only, so the root published at the deal still recomputes and every opened card still
verifies; a sealed decision a table's closing left unopened is told as "decided" (``action_row_sealed``).
An import deals stand-ins for the closed cards and never shows or opens them (``hand_values_closed``).
Only the operator's backup (``manage.py backup``) keeps whole decks. Each export is still recorded with its
reason (``ClubExport``, never changed or removed) and shown on the page of every hand it holds. The record
is made in the export's own snapshot, so the file holds it too and a restored club keeps the whole list.

What it never holds: passwords (an imported member sets one with "Forgot your password?"),
API tokens, private advance actions, sent-email bookkeeping. A hand still being played is
refused (its deck and hole cards are secret until it ends): the export waits for the end of
every hand or for the organiser to close the table.

The import writes everything in one transaction as the application role: the books are
inserted row by row through the posting trigger (balances, sequence numbers and running
balances are stamped again, in each account's original order), and every guard stays on.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import IO, Any

from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone

import engine
from accounts.models import Club, Membership, User
from clubhouse.models import Season
from engine.cards import FULL_DECK
from games.models import ChatMessage, ClubExport, Hand, HandAction, HandDispute, RuleSet, RuleSetVersion, Seat, Table
from games.selectors.cuts import devices_of
from games.selectors.hands import (
    HIDDEN_DECISION,
    hand_action_shown,
    hand_closed_positions,
    hand_committed_positions,
    hand_sealed_open,
    hand_signed_table,
    sealed_action_hidden,
)
from kernel.errors import DomainError
from ledger.models import Account, ClubLedgerSettings, JournalEntry, Posting, Ruling, Settlement

logger = logging.getLogger(__name__)

FORMAT = "home-club-export"
FORMAT_VERSION = 2  # 2: closed cards as leaf hashes only (version 1 held whole decks; still read)
READS_VERSIONS = (1, 2)
BATCH = 500


class ArchiveError(DomainError):
    """The export or import can't go ahead; the message says why."""


# --- what each kind of record carries -------------------------------------------------------


#: (file, model, fields written as they are, foreign keys: attname -> the id map it is read through,
#:  fields the model stamps on insert that the import sets back)
@dataclass(frozen=True)
class Kind:
    name: str
    model: type[models.Model]
    plain: tuple[str, ...]
    refs: dict[str, str] = field(default_factory=dict)
    stamped: tuple[str, ...] = ()
    raw_insert: bool = False


KINDS = [
    Kind("rule_sets", RuleSet, ("name", "game", "created_at"), {"created_by_id": "users"}, ("created_at",)),
    Kind(
        "rule_versions",
        RuleSetVersion,
        ("number", "rules", "max_seats", "spectators_allowed", "created_at", "frozen_at"),
        {"rule_set_id": "rule_sets", "created_by_id": "users"},
        ("created_at",),
    ),
    Kind(
        "tables",
        Table,
        ("name", "status", "button", "carry_pot", "hands_played", "created_at", "finished_at", "stopped_at_hand"),
        {"rule_version_id": "rule_versions", "created_by_id": "users"},
        ("created_at",),
    ),
    Kind(
        "seats",
        Seat,
        ("number", "accepted_at", "sitting_out", "left_at"),
        {"table_id": "tables", "user_id": "users", "accepted_version_id": "rule_versions"},
    ),
    Kind(
        "hands",
        Hand,
        (
            "number",
            "players",
            "button",
            "carry_in",
            "deck",
            "scheme",
            "salt",
            "salts",
            "commitment",
            "state",
            "deal_events",
            "version",
            "deadline",
            "clocks",
            "started_at",
            "finished_at",
            "voided_at",
        ),
        {"table_id": "tables", "rule_version_id": "rule_versions"},
        ("started_at",),
    ),
    # Insert-only (PostgreSQL refuses an UPDATE): written with its original time in the INSERT itself.
    Kind(
        "disputes", HandDispute, ("reason", "created_at"), {"hand_id": "hands", "ruled_by_id": "users"}, raw_insert=True
    ),
    Kind(
        "hand_actions",
        HandAction,
        ("sequence", "seat", "action", "events", "is_timeout", "created_at"),
        {"hand_id": "hands", "user_id": "users"},
        ("created_at",),
    ),
    Kind(
        "chat",
        ChatMessage,
        ("text", "created_at", "hidden_at"),
        {"table_id": "tables", "user_id": "users", "hidden_by_id": "users"},
        ("created_at",),
    ),
    Kind("accounts", Account, ("kind", "created_at"), {"user_id": "users", "table_id": "tables"}),
    Kind(
        "rulings",
        Ruling,
        ("kind", "reason", "created_at", "amount"),
        {
            "ruled_by_id": "users",
            "hand_id": "hands",
            "table_id": "tables",
            "from_user_id": "users",
            "to_user_id": "users",
        },
    ),
    Kind(
        "settlements",
        Settlement,
        ("amount", "paid_on", "note", "status", "recorded_at", "decided_at"),
        {"payer_id": "users", "payee_id": "users", "recorded_by_id": "users", "decided_by_id": "users"},
    ),
    Kind(
        "entries",
        JournalEntry,
        ("kind", "memo", "created_at", "game"),
        {
            "created_by_id": "users",
            "table_id": "tables",
            "hand_id": "hands",
            "reverses_id": "entries",
            "ruling_id": "rulings",
            "settlement_id": "settlements",
        },
    ),
    Kind("postings", Posting, ("amount", "seq"), {"entry_id": "entries", "account_id": "accounts"}),
    Kind("seasons", Season, ("name", "opened_at", "closed_at"), {"opened_by_id": "users", "closed_by_id": "users"}),
    # Insert-only, like the disputes: the record of each export (this one's included) with its reason.
    Kind("exports", ClubExport, ("reason", "hands", "created_at"), {"exported_by_id": "users"}, raw_insert=True),
]
KIND_BY_NAME = {kind.name: kind for kind in KINDS}

USER_FIELDS = ("username", "display_name", "email", "first_name", "last_name", "time_zone", "is_active", "date_joined")


def _club_rows(kind: Kind, club: Club) -> models.QuerySet[Any]:
    """Every row of ``kind`` that belongs to ``club``, in id order.

    Postings too: the journal lists them by id, and the posting trigger stamps each account's
    sequence numbers again in that order (the order they were first posted in)."""
    # Practice tables are their member's own, not the club's records (games/services/practice.py).
    table, hand = Q(table__club=club, table__practice=False), Q(hand__table__club=club, hand__table__practice=False)
    by_club: dict[str, Q] = {
        "rule_sets": Q(club=club),
        "rule_versions": Q(rule_set__club=club),
        "tables": Q(club=club, practice=False),
        "seats": table,
        "hands": table,
        "hand_actions": hand,
        "chat": table,
        "accounts": Q(club=club),
        "rulings": Q(club=club),
        "settlements": Q(club=club),
        "entries": Q(club=club),
        "postings": Q(club=club),
        "disputes": hand,
        "seasons": Q(club=club),
        "exports": Q(club=club),
    }
    return kind.model._default_manager.filter(by_club[kind.name]).order_by("pk")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def _row(kind: Kind, obj: models.Model) -> dict[str, Any]:
    out: dict[str, Any] = {"id": obj.pk}
    for name in kind.plain:
        out[name] = _plain(getattr(obj, name))
    for attname in kind.refs:
        out[attname] = getattr(obj, attname)
    if kind.name == "tables":
        out["next_game_id"] = obj.next_game_id  # type: ignore[attr-defined]
    return out


# --- export ---------------------------------------------------------------------------------


def club_export_refusal(*, club: Club) -> str:
    """Why the club can't be exported now ("" when it can): a hand is being played."""
    playing = list(
        Hand.objects.filter(table__club=club, table__practice=False, finished_at__isnull=True)
        .select_related("table")
        .order_by("table__name")[:5]
    )
    if not playing:
        return ""
    names = ", ".join(f"{h.table.name} (hand {h.number})" for h in playing)
    return (
        f"A hand is being played at {names}. Its cards stay secret until it ends, so the export waits: "
        f"try again when it has ended, or close the table."
    )


REASON_MAX = 2000


def club_export(*, club: Club, out: IO[bytes], reason: str, by: User | None = None) -> dict[str, Any]:
    """Write the club to ``out`` as a zip and record the export with ``reason``; return the manifest.

    Raises ArchiveError while a hand is being played or without a reason. One REPEATABLE READ
    snapshot: the files agree with each other, and the record of this export (written first, in the
    same transaction) is in the file; if the writing fails, the record goes with it."""
    reason = reason.strip()
    if not reason:
        raise ArchiveError(
            "Give the reason for the export: the members read it on the page of every hand "
            "the file holds, since it holds every card of those hands."
        )
    if len(reason) > REASON_MAX:
        raise ArchiveError(f"Keep the reason to {REASON_MAX} characters.")
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        refusal = club_export_refusal(club=club)
        if refusal:
            raise ArchiveError(refusal)
        hands = Hand.objects.filter(table__club=club, table__practice=False, finished_at__isnull=False).count()
        ClubExport.objects.create(club=club, exported_by=by, reason=reason, hands=hands)
        manifest = _write(club=club, out=out, by=by, reason=reason)
    logger.info("club %s exported by %s", club.pk, by.username if by else "a management command")
    return manifest


def _write(*, club: Club, out: IO[bytes], by: User | None, reason: str) -> dict[str, Any]:
    counts: dict[str, int] = {}
    user_ids: set[int] = set(Membership.objects.filter(club=club).values_list("user_id", flat=True))
    unopened: dict[int, Hand] = {}  # hands that ended in a sealed decision never opened, by id
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for kind in KINDS:
            user_refs = [a for a, target in kind.refs.items() if target == "users"]
            with archive.open(f"data/{kind.name}.jsonl", "w") as raw:
                text = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
                n = 0
                for obj in _club_rows(kind, club).iterator(chunk_size=BATCH):
                    row = _row(kind, obj)
                    if kind.name == "hands":
                        row = hand_row_closed(hand=obj, row=row, unopened=unopened)
                    elif kind.name == "hand_actions":
                        row = action_row_sealed(action=obj, row=row, unopened=unopened)
                    user_ids.update(row[a] for a in user_refs if row[a] is not None)
                    if kind.name == "hands":
                        user_ids.update(int(uid) for uid in row["players"].values())
                    text.write(json.dumps(row, separators=(",", ":")) + "\n")
                    n += 1
                text.flush()
                text.detach()
            counts[kind.name] = n
        members = _member_rows(club, user_ids)
        archive.writestr("data/members.jsonl", "".join(json.dumps(m, separators=(",", ":")) + "\n" for m in members))
        counts["members"] = len(members)
        archive.writestr("data/club.json", json.dumps(_club_row(club), indent=1))
        archive.writestr("books/journal.csv", _journal_csv(club))
        archive.writestr("books/balances.csv", _balances_csv(club))
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "exported_at": timezone.now().isoformat(),
            "exported_by": by.username if by else "",
            "reason": reason,
            "club": {"id": club.pk, "name": club.name},
            "counts": counts,
            "holds": "Members (with their email addresses, so an imported site can let them set a password), "
            "rule sets and their versions, tables and seats, finished hands with their action logs "
            "and the cards opened to everyone, chat, and the books (accounts, journal entries with "
            "postings, rulings, settlements); books/*.csv are the books for a spreadsheet.",
            "closed_cards": "Of each finished hand the file holds the cards opened to everyone (the board as "
            "turned, the hands shown at a showdown) with their salts; every other deck position "
            "(folded and dropped hands, cards never turned, the undealt rest) is null in deck, "
            "salts and state, and only its leaf hash is in closed_leaves, so the root published "
            "at the deal still recomputes and each opened card still verifies. A sealed "
            'decision never opened (the table closed during it) is {"type": "decided"}. '
            "Only the operator's backup (manage.py backup) holds whole decks.",
            "leaves_out": "Passwords (imported members set theirs with 'Forgot your password?'), API tokens, "
            "private advance actions, sent-email bookkeeping.",
        }
        archive.writestr("manifest.json", json.dumps(manifest, indent=1))
    return manifest


def _club_row(club: Club) -> dict[str, Any]:
    settings_row = ClubLedgerSettings.objects.filter(club=club).first()
    return {
        "id": club.pk,
        "name": club.name,
        "currency": club.currency,
        "credit_limit": club.credit_limit,
        "created_at": club.created_at.isoformat(),
        "settlement_max": settings_row.settlement_max if settings_row else None,
    }


def _member_rows(club: Club, user_ids: set[int]) -> list[dict[str, Any]]:
    roles = {m.user_id: (m.role, m.joined_at) for m in Membership.objects.filter(club=club)}
    rows = []
    for user in User.objects.filter(pk__in=user_ids).order_by("pk"):
        row: dict[str, Any] = {"id": user.pk, **{f: _plain(getattr(user, f)) for f in USER_FIELDS}}
        role, joined = roles.get(user.pk, (None, None))
        row["role"] = role  # None: not a member any more, but named in the club's records
        row["joined_at"] = joined.isoformat() if joined else None
        rows.append(row)
    return rows


def _csv(header: list[str], rows: Iterable[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["'" + v if isinstance(v, str) and v.startswith(("=", "+", "-", "@")) else v for v in row])
    return buffer.getvalue()


def _journal_csv(club: Club) -> str:
    postings = (
        Posting.objects.filter(club=club)
        .select_related("entry", "account__user", "account__table")
        .order_by("entry_id", "pk")
    )

    def rows() -> Iterator[list[Any]]:
        for p in postings.iterator(chunk_size=BATCH):
            owner = (
                p.account.user.username if p.account.user else f"pot:{p.account.table.name if p.account.table else ''}"
            )
            yield [
                p.entry_id,
                p.created_at.isoformat() if p.created_at else "",
                p.kind,
                p.entry.memo,
                owner,
                p.amount,
                p.balance_after,
                p.entry.hand_id or "",
                p.entry.reverses_id or "",
            ]

    return _csv(
        ["entry", "date", "kind", "memo", "account", "amount_cents", "balance_after_cents", "hand", "reverses"], rows()
    )


def _balances_csv(club: Club) -> str:
    accounts = Account.objects.filter(club=club).select_related("user", "table").order_by("pk")
    return _csv(
        ["account", "kind", "owner", "balance_cents", "lines"],
        (
            [a.pk, a.kind, a.user.username if a.user else (a.table.name if a.table else ""), a.balance, a.last_seq]
            for a in accounts
        ),
    )


# --- what the file holds of a hand: the cards opened to all -------------------------------------

#: The fields of a hand's state fixed at the deal from its deck (Piranha: hole, board; Piles: hole, the piles).
DEALT_FIELDS = ("deck", "hole", "board", "square1", "square2", "row")


def _without_cards(data: Any, cards: set[str]) -> Any:
    """``data`` (plain JSON) with every value that is one of ``cards`` (card codes) made null."""
    if isinstance(data, dict):
        return {key: _without_cards(value, cards) for key, value in data.items()}
    if isinstance(data, list):
        return [_without_cards(value, cards) for value in data]
    return None if isinstance(data, str) and data in cards else data


def hand_row_closed(*, hand: Hand, row: dict[str, Any], unopened: dict[int, Hand]) -> dict[str, Any]:
    """The file's row of the finished ``hand``: only the cards opened to everyone (``engine.opened_positions``
    with no seat: the board as turned, the hands shown at a showdown). Every other position is null in deck,
    salts and state and is kept as its leaf hash in ``closed_leaves`` (position as text -> 64 hex digits; ""
    for an older hand, which has no leaves, and whose salt is left out too). A hand that ended in a sealed
    decision never opened (a table closed during it) has each decision made told as "decided", and is
    noted in ``unopened`` for its action log (``action_row_sealed``)."""
    state = engine.state_from_json(hand.state)
    opened = hand_committed_positions(hand=hand, state=state, seat=None)
    held = hand_closed_positions(hand=hand)  # a hand read from an export: its leaves are all this site has
    closed = [i for i in range(len(hand.deck)) if i not in opened or i in held]
    hidden = {hand.deck[i] for i in closed}
    row["cuts"] = list(hand.cuts or [])  # the cut: every cut the deal used, and who made it (a user id)
    if hand.scheme == engine.SCHEME_CUT_V2:  # each cut's device key and the table they signed travel with it
        keys = devices_of(fingerprints={c["device"] for c in row["cuts"]})
        row["cuts"] = [
            {**c, "n": c.get("n") or keys[c["device"]].n, "e": c.get("e") or keys[c["device"]].e}
            if c.get("n") or c["device"] in keys
            else c
            for c in row["cuts"]
        ]
        row["signed_table"] = hand_signed_table(hand=hand)
    if hand.scheme in (engine.SCHEME_MERKLE, *engine.SCHEMES_CUT):
        row["closed_leaves"] = {
            str(i): held.get(i) or engine.leaf_hex(hand.pk, i, hand.deck[i], hand.salts[i], scheme=hand.scheme)
            for i in closed
        }
        row["salts"] = [None if i in closed else salt for i, salt in enumerate(hand.salts)]
    else:
        row["closed_leaves"] = {str(i): "" for i in closed}
        row["salt"] = ""
    row["deck"] = [None if i in closed else card for i, card in enumerate(hand.deck)]
    row["state"] = _without_cards(hand.state, hidden)
    row["deal_events"] = _without_cards(hand.deal_events, hidden)
    if hand_sealed_open(hand=hand):
        unopened[hand.pk] = hand
        row["state"]["decisions"] = [HIDDEN_DECISION["type"] if d else "" for d in row["state"]["decisions"]]
    return row


def action_row_sealed(*, action: HandAction, row: dict[str, Any], unopened: dict[int, Hand]) -> dict[str, Any]:
    """The file's row of one logged action: a sealed decision never opened is told as "decided", with no
    timeout mark (a timeout takes the house rules' default, so the mark would tell the choice)."""
    hand = unopened.get(action.hand_id)
    if hand is not None and sealed_action_hidden(hand=hand, row=action, seat=None):
        row["action"] = hand_action_shown(hand=hand, row=action, seat=None)
        row["is_timeout"] = False
    return row


def hand_values_closed(*, values: dict[str, Any], row: dict[str, Any]) -> None:
    """Read a hand of the file with closed positions (``hand_row_closed``) into ``values``, the model's fields.

    The engine plays a hand from 52 cards, so each closed position gets a stand-in, the cards the file does
    not name in deck order; the state's dealt fields are dealt again from that deck (the opened cards must
    come out where the file has them). The stand-ins are never shown or opened: ``Hand.closed_leaves``
    keeps each closed position's leaf, and the proof's paths use it. A file without closed positions (format
    version 1, whole decks) is read as it is."""
    closed = row.get("closed_leaves") or {}
    values["closed_leaves"] = closed
    if not closed:
        return
    deck = row["deck"]
    if (
        not isinstance(deck, list)
        or len(deck) != len(FULL_DECK)
        or {str(i) for i, card in enumerate(deck) if card is None} != set(closed)
    ):
        raise ArchiveError(
            f"Hand #{row['id']} names closed cards that its deck does not leave out: the file is damaged."
        )
    spare = iter(card for card in FULL_DECK if card not in set(deck))
    values["deck"] = [card if card is not None else next(spare) for card in deck]
    values["salts"] = [salt or "" for salt in row["salts"] or []]
    state = dict(row["state"])
    try:
        cuts = [c["cut"] for c in row.get("cuts") or []]
        if values["scheme"] == engine.SCHEME_CUT_V2:  # bound to the table it was dealt at, where it was dealt
            values["signed_table"] = int(row["signed_table"])
            order = engine.deck_dealt(
                values["deck"],
                values["commitment"],
                cuts,
                scheme=engine.SCHEME_CUT_V2,
                table_id=values["signed_table"],
                deal=int(row["number"]),
            )
        else:
            order = (
                values["deck"]
                if values["scheme"] != engine.SCHEME_CUT
                else engine.deck_dealt(values["deck"], values["commitment"], cuts)
            )
        dealt, _ = engine.new_hand(
            engine.rules_from_dict(state["rules"]),
            seats=state["seats"],
            button=state["button"],
            deck=order,
            carry_pot=state["carry_pot"],
            hand_number=state["hand_number"],
        )
    except (engine.EngineError, KeyError, TypeError, ValueError) as exc:
        raise ArchiveError(f"Hand #{row['id']} cannot be dealt again from its file: the file is damaged.") from exc
    again = engine.state_to_json(dealt)
    for name in DEALT_FIELDS:
        if name in state and not _fits(state[name], again[name]):
            raise ArchiveError(f"Hand #{row['id']}: its {name} does not match its deck: the file is damaged.")
        if name in state:
            state[name] = again[name]
    values["state"] = state


def _fits(held: Any, dealt: Any) -> bool:
    """Whether ``held`` (with nulls for closed cards) agrees with ``dealt`` wherever it names a card."""
    if isinstance(held, list) and isinstance(dealt, list):
        return len(held) == len(dealt) and all(_fits(h, d) for h, d in zip(held, dealt, strict=True))
    return held is None or held == dealt


# --- import ---------------------------------------------------------------------------------


def club_is_empty(*, club: Club) -> str:
    """ "" when ``club`` may receive an import, else why not."""
    found = [
        label
        for label, exists in (
            ("rule sets", RuleSet.objects.filter(club=club).exists()),
            ("tables", Table.objects.filter(club=club).exists()),
            ("ledger entries", JournalEntry.objects.filter(club=club).exists()),
            ("ledger accounts", Account.objects.filter(club=club).exists()),
            ("settlements", Settlement.objects.filter(club=club).exists()),
            ("rulings", Ruling.objects.filter(club=club).exists()),
            ("seasons", Season.objects.filter(club=club).exists()),
        )
        if exists
    ]
    if not found:
        return ""
    return (
        f"{club.name} already has {', '.join(found)}. An export is imported only into an empty club "
        f"(no rule sets, tables or books yet): make a new club and import there."
    )
