"""Every write to the books. Public API (others code against these names):

    account_for_member(*, club: Club, user: User) -> Account
    member_accounts(*, club: Club, users: Iterable[User]) -> dict[int, Account]   (by user id)
    account_for_table_pot(*, table: Table) -> Account
    balance_of(*, club: Club, user: User) -> int
        The member's balance in cents, one indexed row read (0 with no account yet).
        Seating uses it: a member below -club.credit_limit may not sit.
    ledger_post_hand_events(*, hand: Hand, events: Sequence[Mapping[str, Any] | Event],
                            seat_users: Mapping[int, User], created_by: User | None,
                            first: HandEvents | None = None) -> list[JournalEntry]
        One journal entry per chip event, linked to the hand and its table (``first``: the hand before's
        result, posted with these in one statement):
        ante/blind/bet/match_payment move seat -> table pot, award moves table pot -> seat;
        other kinds (deal, turn, fold, check, carry, showdown...) and zero amounts move
        nothing and are skipped. Call it inside your transaction, holding the hand row lock.
    ledger_reverse_hand(*, hand: Hand, table: Table, reason: str, ruled_by: User) -> list[JournalEntry]
        The money part of an organiser's void (games.services.voiding.hand_void): reverses every
        entry of a finished hand with entries pointing to the originals and records the Ruling.
        Refused for a hand a later hand has built on (its carried pot went into a hand not voided).
    table_pot_balance(*, table: Table) -> int
    ledger_return_pot(*, table: Table, reason: str, ruled_by: User, hand: Hand | None = None) -> Ruling
        An organiser closes a table: the pot goes back to those who paid it since it was last empty.
    ruling_adjust(*, club: Club, from_user: User, to_user: User, amount: int, reason: str,
                  ruled_by: User) -> Ruling
    settlement_record(*, club: Club, payer: User, payee: User, amount: int, paid_on: date,
                      note: str, recorded_by: User) -> Settlement
        Recorded by the payer: waits for the payee to confirm. Recorded by the payee or an
        organiser: confirmed at once (posts the entry).
    settlement_confirm(*, club: Club, settlement_id: int, user: User) -> Settlement
    settlement_decline(*, club: Club, settlement_id: int, user: User) -> Settlement
    ledger_settings_update(*, club: Club, settlement_max: int, by: User) -> ClubLedgerSettings

Every function uses `transaction.atomic()` (not durable) so it joins the
caller's transaction; raises `LedgerError` (a `DomainError`, message fit for
a member) and then changes nothing. `ledger_post_hand_events`, on every
action's path, joins an open transaction without a savepoint of its own: it
raises before its first write. Lock order, to avoid deadlocks between
tables that share members: the hand row (caller), then the table row (a void,
like games/services/hands.py after a hand), then the accounts touched, in id order (`_lock_accounts`), then the posting trigger's balance updates.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, cast

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Club, Membership, User
from accounts.money import format_cents
from engine.events import PAY_KINDS, event_to_json
from kernel.errors import DomainError
from kernel.statements import Carried, Insert, InsertColumns, saved, statement_cursor

from .models import (
    AWARD_KINDS,
    Account,
    ClubLedgerSettings,
    EntryKind,
    JournalEntry,
    Posting,
    Ruling,
    Settlement,
)
from .selectors import table_pot_shares

if TYPE_CHECKING:  # the ledger is below games: it reads the games' rows only through its own relations
    from games.models import Hand, Table

#: a sanity bound on any single amount (10 million in currency units)
MAX_AMOUNT = 10**9


class LedgerError(DomainError):
    """A refused ledger request; the books are unchanged."""


# --- accounts -----------------------------------------------------------------


def account_for_member(*, club: Club, user: User) -> Account:
    """The member's account in the club, created on first use. Raises LedgerError for a non-member."""
    # ON CONFLICT DO NOTHING: two transactions creating it at once both end with the one row.
    return member_accounts(club=club, users=[user])[user.pk]


def member_accounts(*, club: Club, users: Iterable[User]) -> dict[int, Account]:
    """The members' accounts by user id, creating the missing ones in user-id order.

    The order matters: two transactions creating accounts for the same members insert
    them in the same order, so one waits for the other instead of deadlocking.
    """
    wanted = {user.pk: user for user in users}
    found = {
        a.user_id: a
        for a in Account.objects.filter(club=club, kind=Account.Kind.MEMBER, user_id__in=wanted)
        if a.user_id is not None
    }
    missing = sorted(set(wanted) - set(found))
    if missing:
        members = set(Membership.objects.filter(club=club, user_id__in=missing).values_list("user_id", flat=True))
        for user_id in missing:
            if user_id not in members:
                raise LedgerError(f"{wanted[user_id].shown_name} is not a member of {club.name}.")
        Account.objects.bulk_create(
            [Account(club=club, kind=Account.Kind.MEMBER, user_id=user_id) for user_id in missing],
            ignore_conflicts=True,
        )
        found.update(
            {
                a.user_id: a
                for a in Account.objects.filter(club=club, kind=Account.Kind.MEMBER, user_id__in=missing)
                if a.user_id is not None
            }
        )
    return found


def account_for_table_pot(*, table: Table) -> Account:
    """The table's pot account, created on first use."""
    account = Account.objects.filter(kind=Account.Kind.TABLE_POT, table=table).first()
    if account is not None:
        return account
    Account.objects.bulk_create(
        [Account(club_id=table.club_id, kind=Account.Kind.TABLE_POT, table=table)], ignore_conflicts=True
    )
    return Account.objects.get(kind=Account.Kind.TABLE_POT, table=table)


def balance_of(*, club: Club, user: User) -> int:
    """The member's balance in cents: one row by a unique index (0 before their first posting)."""
    balance = (
        Account.objects.filter(club=club, kind=Account.Kind.MEMBER, user=user).values_list("balance", flat=True).first()
    )
    return int(balance or 0)


def _lock_accounts(account_ids: Iterable[int]) -> None:
    """Lock the accounts in id order, so two transactions never wait on each other in a cycle."""
    ids = sorted(set(account_ids))
    list(Account.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


@dataclass(frozen=True)
class _Line:
    account_id: int
    amount: int


def _post(entries: Sequence[tuple[JournalEntry, Sequence[_Line]]]) -> list[JournalEntry]:
    """Insert entries and their postings. Assumes an open transaction; locks the accounts touched."""
    for _entry, lines in entries:
        if sum(line.amount for line in lines) != 0 or len(lines) < 2:
            raise LedgerError("An entry of the books must balance.")  # programming error; the database agrees
    created = [entry for entry, _ in entries]
    _lock_accounts(line.account_id for _, lines in entries for line in lines)
    _ENTRY_INSERT.run(created)
    _POSTING_INSERT.run(
        {
            "entry_id": [entry.pk for entry, lines in entries for _line in lines],
            "account_id": [line.account_id for _, lines in entries for line in lines],
            "amount": [line.amount for _, lines in entries for line in lines],
        }
    )
    return created


# The INSERTs bulk_create sends, written out once (kernel/statements.py): every bet posts. A posting is given
# its entry, account and amount; the rest of its columns are the trigger's to stamp (migration 0002).
_ENTRY_INSERT, _POSTING_INSERT = Insert(JournalEntry), InsertColumns(Posting, ["entry_id", "account_id", "amount"])


def _check_amount(amount: object, what: str = "The amount") -> int:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise LedgerError(f"{what} must be a whole number of cents.")
    if amount <= 0:
        raise LedgerError(f"{what} must be more than zero.")
    if amount > MAX_AMOUNT:
        raise LedgerError(f"{what} is too large.")
    return amount


def _check_member(club: Club, user: User | None, who: str) -> User:
    if user is None or not Membership.objects.filter(club=club, user=user).exists():
        raise LedgerError(f"{who} must be a member of {club.name}.")
    return user


def _ruling_reason(reason: str | None) -> str:
    """A ruling's reason, trimmed; LedgerError when there is none."""
    reason = (reason or "").strip()
    if not reason:
        raise LedgerError("A ruling needs a reason.")
    return reason


def _is_organiser(club: Club, user: User) -> bool:
    return Membership.objects.filter(club=club, user=user, role=Membership.Role.ORGANISER).exists()


# --- play ---------------------------------------------------------------------


def _event_dict(event: Any) -> Mapping[str, Any]:
    """A chip event as its JSON form: as stored, or printed from the engine's record."""
    if isinstance(event, Mapping):
        return event
    printed = event_to_json(event)
    if isinstance(printed, Mapping):
        return printed
    raise LedgerError("A chip event could not be read.")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEvents:
    """A hand's chip events to post, with ``ledger_post_hand_events``' other arguments: a finished hand's result,
    kept to be posted with the next hand's antes (``first``)."""

    hand: Hand
    events: Sequence[Mapping[str, Any] | Any]
    seat_users: Mapping[int, User]
    created_by: User | None


def ledger_post_hand_events(
    *,
    hand: Hand,
    events: Sequence[Mapping[str, Any] | Any],
    seat_users: Mapping[int, User],
    created_by: User | None,
    first: HandEvents | None = None,
) -> list[JournalEntry]:
    """Post each chip-moving event of a hand as one journal entry (member account <-> table pot).

    Expects the caller's transaction with the hand row locked (games services). Returns
    the entries in event order. Raises LedgerError for an unknown seat, a player who is
    not a member, or an amount that is not a positive whole number of cents. ``first``: another hand's events
    at the same table (the result of the hand whose end dealt this one), posted before these, with them (one
    statement when every account is there); its entries come first in the list returned.
    """
    posts = [
        *([first] if first is not None else []),
        HandEvents(hand=hand, events=events, seat_users=seat_users, created_by=created_by),
    ]
    moves = [(post, *move) for post in posts for move in _chip_moves(post)]
    if not moves:
        return []  # nothing to post: no statement at all
    if transaction.get_connection().in_atomic_block:
        # Inside the caller's transaction (a hand's service holding the hand row lock): no savepoint of its own.
        # Every refusal below is raised before the first write and leaves the transaction usable.
        return _post_hand_moves(moves)
    with transaction.atomic():
        return _post_hand_moves(moves)


def _chip_moves(post: HandEvents) -> list[tuple[str, int, int]]:
    """The kind, seat and amount of each of ``post``'s events that moves chips, checked."""
    moves: list[tuple[str, int, int]] = []
    for raw in post.events:
        event = _event_dict(raw)
        kind = event.get("kind")
        if kind not in PAY_KINDS and kind not in AWARD_KINDS:
            continue  # deal, turn, fold, check, carry, showdown...: no chips move
        amount = event.get("amount")
        if amount == 0:
            continue
        seat = event.get("seat")
        if not isinstance(seat, int) or seat not in post.seat_users:
            raise LedgerError(f"A {kind} names seat {seat}, which has no player in this hand.")
        moves.append((str(kind), seat, _check_amount(amount, f"The {kind} of seat {seat}")))
    return moves


def _hand_table_and_game(hand: Hand) -> tuple[Table, str]:
    """The hand's table and its game: from what the caller loaded with the hand (no query), else read."""
    hand_type = type(hand)
    if hand_type.table.is_cached(hand) and hand_type.rule_version.is_cached(hand):
        table, version = hand.table, hand.rule_version
        # A table keeps the rule version it was opened with, and each hand is dealt under it.
        if version.pk == table.rule_version_id and type(version).rule_set.is_cached(version):
            return table, version.rule_set.game
    tables = cast("type[Table]", JournalEntry._meta.get_field("table").related_model)
    table = tables.objects.select_related("rule_version__rule_set").get(pk=hand.table_id)
    return table, table.rule_version.rule_set.game


# The players' accounts and the table's pot, locked in id order (as ``_lock_accounts``) by the statement that
# finds them, when all of them exist: ``%s`` is how many that is. When one is missing, nothing is locked, so
# that the missing accounts are created before any is locked, as before.
_HAND_ACCOUNTS_FOUND = (
    'WITH found AS (SELECT "id" FROM "ledger_account" '
    'WHERE ("club_id" = %s AND "kind" = %s AND "user_id" = ANY(%s)) OR ("kind" = %s AND "table_id" = %s))'
)
_MEMBER_AND_POT_FOUND = _HAND_ACCOUNTS_FOUND.replace('"user_id" = ANY(%s)', '"user_id" = %s')
_HAND_ACCOUNTS_LOCKED = (
    'SELECT a."id", a."user_id" FROM "ledger_account" a '
    'WHERE a."id" IN (SELECT "id" FROM found) AND (SELECT COUNT(*) FROM found) = %s '
    'ORDER BY a."id" FOR NO KEY UPDATE OF a'
)


# A hand's entry as its row's columns (what ``jsonb_populate_record`` reads): the values the ORM prepares, a
# timestamp as ISO text.
_ENTRY_COLUMNS = [field.column for field in JournalEntry._meta.concrete_fields if not field.primary_key]


@functools.cache
def _hand_entries_posted_sql() -> str:
    """Several entries, each between a player's account and the table's pot, and their postings, in one statement:
    the accounts locked (as ``_HAND_ACCOUNTS_LOCKED``), then the entries inserted in order, then two postings to
    each (the player's first, as ``_post``); nothing written when an account is missing. Its one document (JSON,
    which psycopg sends as text in C: no array dumped in Python) holds, per entry in order, its row and its
    player and the amount to the player. The entries' ids grow in the order they are inserted (one statement of
    one session), which numbers them back to their moves; the postings are made from the entries' RETURNING, so
    the posting trigger (migration 0002) finds each entry, as ``_hand_entry_posted_sql`` says."""
    columns = ", ".join(f'r."{column}"' for column in _ENTRY_COLUMNS)
    table = JournalEntry._meta.db_table
    insert, _, _ = _ENTRY_INSERT.select_one().partition(" SELECT ")
    postings = (
        'SELECT e."id", l."id", (m.v->>\'amount\')::bigint * CASE WHEN l."user_id" IS NULL THEN -1 ELSE 1 END '
        "FROM numbered e JOIN m ON m.n = e.n JOIN locked l "
        'ON l."user_id" = (m.v->>\'user\')::bigint OR l."user_id" IS NULL '
        'ORDER BY e.n, l."user_id" IS NULL'
    )
    return (
        "WITH m AS MATERIALIZED (SELECT v, n FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS m(v, n)), "  # noqa: S608 - the model's own names
        'found AS (SELECT "id" FROM "ledger_account" WHERE ("club_id" = %s AND "kind" = %s '
        'AND "user_id" IN (SELECT (v->>\'user\')::bigint FROM m)) OR ("kind" = %s AND "table_id" = %s)), '
        f"locked AS MATERIALIZED ({_HAND_ACCOUNTS_LOCKED}), "
        f"entry AS ({insert} SELECT {columns} FROM m CROSS JOIN LATERAL "
        f"jsonb_populate_record(NULL::\"{table}\", m.v->'row') r WHERE (SELECT COUNT(*) FROM locked) = %s "
        'ORDER BY m.n RETURNING "id"), '
        'numbered AS (SELECT "id", row_number() OVER (ORDER BY "id") AS n FROM entry), '
        f'posted AS ({_POSTING_INSERT.from_select(postings)}) SELECT "id" FROM numbered ORDER BY n'
    )


@functools.cache
def _hand_entry_clauses() -> str:
    """One entry between a player's account and the table's pot, and its two postings, as a statement's WITH
    clauses (the entry's id: ``SELECT "id" FROM entry``): the two accounts locked (as ``_HAND_ACCOUNTS_LOCKED``),
    then the entry inserted, then a posting to each account (the player's first, as ``_post``); nothing written
    when an account is missing. The postings' rows are made from the entry's RETURNING, so the entry is written
    before them, and the posting trigger (migration 0002) finds it: a trigger's queries see what its statement
    wrote before (PostgreSQL, "Visibility of Data Changes"). Its parameters: ``_hand_entry_params``."""
    postings = (
        'SELECT e."id", l."id", CASE WHEN l."user_id" IS NULL THEN %s::bigint ELSE %s::bigint END '
        'FROM entry e CROSS JOIN locked l ORDER BY l."user_id" IS NULL'
    )
    return (
        f"{_MEMBER_AND_POT_FOUND.removeprefix('WITH ')}, locked AS MATERIALIZED ({_HAND_ACCOUNTS_LOCKED}), "  # noqa: S608 - fixed
        f'entry AS ({_ENTRY_INSERT.select_one()} WHERE (SELECT COUNT(*) FROM locked) = 2 RETURNING "id"), '
        f"posted AS ({_POSTING_INSERT.from_select(postings)})"
    )


@functools.cache
def _hand_entry_posted_sql() -> str:
    """``_hand_entry_clauses`` alone, in a statement of its own."""
    return f'WITH {_hand_entry_clauses()} SELECT e."id" FROM entry e'  # noqa: S608 - fixed


def _hand_entry_params(*, table: Table, user: User, entry: JournalEntry, member_amount: int) -> list[Any]:
    """``_hand_entry_clauses``' parameters: ``entry`` moving ``member_amount`` to ``user``'s account from the pot (a
    payment: negative); balanced by its making (``member_amount`` and its opposite). Each value is one psycopg dumps
    in C (no array: a list's dumper is Python and looks for its elements' type each time)."""
    return [
        table.club_id,
        Account.Kind.MEMBER.value,
        user.pk,
        Account.Kind.TABLE_POT.value,
        table.pk,
        2,
        *_ENTRY_INSERT.values(entry),
        *_POSTING_INSERT.defaults(),
        -member_amount,
        member_amount,
    ]


def _to_member(kind: str, amount: int) -> int:
    """What a hand's move of ``amount`` posts to the player's account: a payment (seat -> pot) negative, an award
    (pot -> seat) positive; the pot gets the opposite."""
    return -amount if kind in PAY_KINDS else amount


def _hand_entry_posted(*, table: Table, user: User, entry: JournalEntry, member_amount: int) -> bool:
    """When the player's account and the table's pot both exist: post ``entry`` (its id set) moving
    ``member_amount`` to the player's account from the pot in one statement, and return True. Else False, and
    nothing locked or written."""
    cursor = statement_cursor()
    cursor.execute(
        _hand_entry_posted_sql(),
        _hand_entry_params(table=table, user=user, entry=entry, member_amount=member_amount),
    )
    row = cursor.fetchone()
    if row is None:
        return False
    saved(entry, row[0])
    return True


def _hand_entries_posted(
    *, table: Table, users: Sequence[User], entries: Sequence[JournalEntry], member_amounts: Sequence[int]
) -> bool:
    """When the players' accounts and the table's pot all exist: post ``entries`` (their ids set), the ``i``-th
    moving ``member_amounts[i]`` to ``users[i]``'s account from the pot, in one statement, and return True. Else
    False, and nothing locked or written."""
    moves = [
        {"row": dict(zip(_ENTRY_COLUMNS, _ENTRY_INSERT.values(entry), strict=True)), "user": user.pk, "amount": amount}
        for entry, user, amount in zip(entries, users, member_amounts, strict=True)
    ]
    accounts = len({user.pk for user in users}) + 1
    cursor = statement_cursor()
    cursor.execute(
        _hand_entries_posted_sql(),
        [
            json.dumps(moves, default=_json_value),
            table.club_id,
            Account.Kind.MEMBER.value,
            Account.Kind.TABLE_POT.value,
            table.pk,
            accounts,
            accounts,
            *_POSTING_INSERT.defaults(),
        ],
    )
    rows = cursor.fetchall()
    if not rows:
        return False
    for entry, (pk,) in zip(entries, rows, strict=True):
        saved(entry, pk)
    return True


def _json_value(value: object) -> str:
    """A prepared value JSON has no type for: a timestamp, as PostgreSQL reads it back."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a column value of an entry")


def _hand_accounts(*, table: Table, users: Sequence[User]) -> tuple[dict[int, int], int]:
    """The players' account ids (by user id) and the table's pot account id, read, and created as
    ``member_accounts`` and ``account_for_table_pot`` do (refusing a player who is not a member); not locked."""
    wanted = {user.pk for user in users}
    found = list(
        Account.objects.filter(
            Q(club_id=table.club_id, kind=Account.Kind.MEMBER, user_id__in=wanted)
            | Q(kind=Account.Kind.TABLE_POT, table_id=table.pk)
        )
    )
    accounts = {a.user_id: a for a in found if a.kind == Account.Kind.MEMBER and a.user_id is not None}
    pot_account = next((a for a in found if a.kind == Account.Kind.TABLE_POT), None)
    if set(accounts) != wanted:
        accounts = member_accounts(club=table.club, users=users)
    if pot_account is None:
        pot_account = account_for_table_pot(table=table)
    return {user_id: a.pk for user_id, a in accounts.items()}, pot_account.pk


@dataclass(frozen=True, slots=True, kw_only=True)
class _HandEntries:
    """A hand's chip moves as journal entries to post at ``table``: the ``i``-th moving ``member_amounts[i]`` to
    ``users[i]``'s account from the table's pot."""

    table: Table
    entries: list[JournalEntry]
    users: list[User]
    member_amounts: list[int]

    def posted(self) -> list[JournalEntry]:
        """Posted in a statement of their own (one entry, or several in one), or, when an account is not made yet,
        once it is."""
        table, entries, users, member_amounts = self.table, self.entries, self.users, self.member_amounts
        if len(entries) == 1:  # a blind, an ante or one award posted alone
            if _hand_entry_posted(table=table, user=users[0], entry=entries[0], member_amount=member_amounts[0]):
                return entries
        elif _hand_entries_posted(table=table, users=users, entries=entries, member_amounts=member_amounts):
            return entries
        return self.posted_with_accounts()

    def posted_with_accounts(self) -> list[JournalEntry]:
        """Posted after an account not made yet (a player's first hand, a table's first pot) is made."""
        by_user, pot = _hand_accounts(table=self.table, users=self.users)
        return _post(
            [
                (entry, [_Line(by_user[user.pk], to_member), _Line(pot, -to_member)])
                for entry, user, to_member in zip(self.entries, self.users, self.member_amounts, strict=True)
            ]
        )


def _hand_entries(moves: Sequence[tuple[HandEvents, str, int, int]]) -> _HandEntries | None:
    """Each move (its hand's events, kind, seat, amount) one entry, in order. None at a practice table
    (docs/design.md "Engine contract"; PostgreSQL refuses them too: migration 0005)."""
    table, game = _hand_table_and_game(moves[-1][0].hand)
    if table.practice:
        return None
    if any(post.hand.table_id != table.pk for post, *_ in moves):
        raise LedgerError("Hands of two tables are posted apart.")  # programming error: one pot account
    now = timezone.now()
    # By their ids, not through the relations' descriptors (each a type and a router check): every bet posts.
    entries = [
        JournalEntry(
            club_id=table.club_id,
            kind=kind,
            created_by_id=None if post.created_by is None else post.created_by.pk,
            created_at=now,
            table_id=table.pk,
            hand_id=post.hand.pk,
            game=game,
            memo=f"{EntryKind(kind).label}, seat {seat}, hand {post.hand.number} at {table.name}"[:200],
        )
        for post, kind, seat, _amount in moves
    ]
    users = [post.seat_users[seat] for post, _kind, seat, _amount in moves]
    member_amounts = [_to_member(kind, amount) for _post, kind, _seat, amount in moves]
    return _HandEntries(table=table, entries=entries, users=users, member_amounts=member_amounts)


def _post_hand_moves(moves: Sequence[tuple[HandEvents, str, int, int]]) -> list[JournalEntry]:
    """``ledger_post_hand_events``' writes, in an open transaction."""
    made = _hand_entries(moves)
    return [] if made is None else made.posted()


@dataclass(frozen=True, slots=True)
class HandEntry:
    """A step's chip events as journal entries: one written in the same statement as its hand's step
    (``carried``: most actions that move chips, a bet, a call or a raise, one round trip fewer), several posted
    after it in a statement of their own; then ``posted``."""

    made: _HandEntries
    carried: Carried | None

    def posted(self, entry_id: int | None) -> list[JournalEntry]:
        """The entries: the carried one once the step's statement returned its id (none: an account not made yet,
        so nothing of the books was locked or written, and it is made and posted now); several, posted now."""
        if self.carried is None:
            return self.made.posted()
        if entry_id is None:
            return self.made.posted_with_accounts()
        saved(self.made.entries[0], entry_id)
        return self.made.entries


def ledger_hand_entry(
    *, hand: Hand, events: Sequence[Mapping[str, Any] | Any], seat_users: Mapping[int, User], created_by: User | None
) -> HandEntry | None:
    """``ledger_post_hand_events`` for a step that does not end its hand, in two halves around the step's statement
    (``HandEntry``): one chip event at a table that is not for practice goes into that statement as its WITH
    clauses. None when nothing is posted (no chips moved, a practice table). Its refusals are raised before
    anything is sent. Expects the caller's transaction with the hand row locked."""
    post = HandEvents(hand=hand, events=events, seat_users=seat_users, created_by=created_by)
    moves = [(post, *move) for move in _chip_moves(post)]
    made = _hand_entries(moves) if moves else None
    if made is None:
        return None
    if len(moves) != 1:
        return HandEntry(made, None)
    params = _hand_entry_params(
        table=made.table, user=made.users[0], entry=made.entries[0], member_amount=made.member_amounts[0]
    )
    return HandEntry(made, Carried(_hand_entry_clauses(), params, '(SELECT "id" FROM entry)'))


def ledger_reverse_hand(*, hand: Hand, table: Table, reason: str, ruled_by: User) -> list[JournalEntry]:
    """The money part of voiding a finished hand (games/services/voiding.py ``hand_void`` does the rest):
    reverse each of its entries (pointing to the original) and record the Ruling; nothing is deleted.

    Expects the caller's transaction with the hand row, then the table row, locked (the order of
    games/services/hands.py); locks the accounts. Only a hand no later hand has built on can be voided:
    every later hand voided already (latest first) or the hand carried nothing on, and no hand in
    progress whose pot the reversal would change. Raises LedgerError if the ruler is not an organiser
    of the hand's club, the reason is blank, the hand is still being played, already voided, or built on.
    """
    reason = _ruling_reason(reason)
    with transaction.atomic():
        club = table.club
        if not _is_organiser(club, ruled_by):
            raise LedgerError("Only the club's organisers can void a hand.")
        if hand.voided_at is not None or Ruling.objects.filter(hand=hand, kind=Ruling.Kind.VOID_HAND).exists():
            raise LedgerError(f"Hand {hand.number} at {table.name} has already been voided.")
        if hand.finished_at is None:
            raise LedgerError(
                f"Hand {hand.number} at {table.name} is still being played; void it once it has finished."
            )
        originals = list(
            JournalEntry.objects.filter(hand=hand, reverses__isnull=True)
            .exclude(kind=EntryKind.VOID)
            .prefetch_related("postings")
            .order_by("pk")
        )
        _check_voidable(hand, table, originals)
        now = timezone.now()
        ruling = Ruling.objects.create(
            club=club, kind=Ruling.Kind.VOID_HAND, reason=reason, ruled_by=ruled_by, created_at=now, hand=hand
        )
        batch: list[tuple[JournalEntry, Sequence[_Line]]] = [
            (
                JournalEntry(
                    club=club,
                    kind=EntryKind.VOID,
                    created_by=ruled_by,
                    created_at=now,
                    table=table,
                    hand=hand,
                    game=original.game,
                    reverses=original,
                    ruling=ruling,
                    memo=f"Reverses #{original.pk} ({original.memo}): {reason}"[:200],
                ),
                [_Line(p.account_id, -p.amount) for p in original.postings.all()],
            )
            for original in originals
        ]
        return _post(batch) if batch else []


def table_pot_balance(*, table: Table) -> int:
    """What the table's pot account holds now, in cents (0 before its first posting)."""
    return int(
        Account.objects.filter(kind=Account.Kind.TABLE_POT, table=table).values_list("balance", flat=True).first() or 0
    )


def _check_voidable(hand: Hand, table: Table, originals: Sequence[JournalEntry]) -> None:
    """Refuse to void a hand a later hand has built on. Expects the hand and table rows locked.

    The hand's pot postings net to what it carried on less what it carried in (chips are
    conserved: carry_in + paid in = awarded + next_pot), so both are read from the books.
    """
    pot_ids = set(Account.objects.filter(kind=Account.Kind.TABLE_POT, table=table).values_list("pk", flat=True))
    pot_net = sum(p.amount for e in originals for p in e.postings.all() if p.account_id in pot_ids)
    next_pot = hand.carry_in + pot_net
    later = (
        table.hands.filter(number__gt=hand.number, voided_at__isnull=True)
        .order_by("-number")
        .values_list("number", "finished_at")
        .first()
    )
    if later is not None and next_pot:
        number, finished_at = later
        when = "" if finished_at is not None else " (once it has finished)"
        raise LedgerError(
            f"Hand {hand.number} at {table.name} can't be voided: its pot of {format_cents(next_pot)} "
            f"carried into the hands after it. Void hand {number} first{when}, "
            "then the ones before it, latest first."
        )
    running = table.hands.filter(finished_at__isnull=True).values_list("number", flat=True).first()
    if running is not None and pot_net:
        raise LedgerError(
            f"Hand {hand.number} at {table.name} can be voided once hand {running}, being played now, "
            "has finished: voiding it changes the pot."
        )


def ledger_return_pot(*, table: Table, reason: str, ruled_by: User, hand: Hand | None = None) -> Ruling:
    """An organiser closes a table: every cent in its pot goes back to the members who paid it.

    Who paid it is read from the books: each award empties the pot (a winner takes it all), so the
    money in it now is exactly what was paid in since its balance last stood at zero, and each member
    gets back their own net payments since then. Records a CLOSE_TABLE ruling (with ``hand``, the hand
    the closing stopped, if any) and posts one POT_RETURN entry; nothing when the pot is empty but the
    ruling. Expects the caller's transaction with the table row (and that hand's row) locked.
    Raises LedgerError when the ruler is not an organiser or the reason is blank.
    """
    reason = _ruling_reason(reason)
    with transaction.atomic():
        club = table.club
        if not _is_organiser(club, ruled_by):
            raise LedgerError("Only the club's organisers can close a table.")
        pot = account_for_table_pot(table=table)
        _lock_accounts([pot.pk])
        balance, shares = table_pot_shares(table_id=table.pk)
        if sum(share.amount for share in shares) != balance or any(share.amount < 0 for share in shares):
            # Cannot happen while awards take whole pots; refuse rather than guess who is owed what.
            raise LedgerError(
                f"The pot of {table.name} can't be traced to the members who paid it; "
                "settle it with an adjustment ruling instead."
            )
        now = timezone.now()
        ruling = Ruling.objects.create(
            club=club,
            kind=Ruling.Kind.CLOSE_TABLE,
            reason=reason,
            ruled_by=ruled_by,
            created_at=now,
            table=table,
            hand=hand,
            amount=balance,
        )
        if balance:
            lines = [
                _Line(pot.pk, -balance),
                *(_Line(share.account_id, share.amount) for share in shares if share.amount),
            ]
            _post(
                [
                    (
                        JournalEntry(
                            club=club,
                            kind=EntryKind.POT_RETURN,
                            created_by=ruled_by,
                            created_at=now,
                            table=table,
                            hand=hand,
                            game=table.game,
                            ruling=ruling,
                            memo=f"Pot of {table.name} returned when it closed: {reason}"[:200],
                        ),
                        lines,
                    )
                ]
            )
        return ruling


# --- rulings and settlements --------------------------------------------------


def ruling_adjust(*, club: Club, from_user: User, to_user: User, amount: int, reason: str, ruled_by: User) -> Ruling:
    """An organiser moves `amount` cents from one member's account to another's, with a reason."""
    reason = _ruling_reason(reason)
    amount = _check_amount(amount)
    with transaction.atomic():
        if not _is_organiser(club, ruled_by):
            raise LedgerError("Only the club's organisers can make a ruling.")
        _check_member(club, from_user, "The member who pays")
        _check_member(club, to_user, "The member who receives")
        if from_user.pk == to_user.pk:
            raise LedgerError("An adjustment moves money between two different members.")
        now = timezone.now()
        ruling = Ruling.objects.create(
            club=club,
            kind=Ruling.Kind.ADJUSTMENT,
            reason=reason,
            ruled_by=ruled_by,
            created_at=now,
            amount=amount,
            from_user=from_user,
            to_user=to_user,
        )
        accounts = member_accounts(club=club, users=[from_user, to_user])
        source, target = accounts[from_user.pk], accounts[to_user.pk]
        memo = f"Ruling: {from_user.shown_name} to {to_user.shown_name}: {reason}"[:200]
        _post(
            [
                (
                    JournalEntry(
                        club=club,
                        kind=EntryKind.ADJUSTMENT,
                        created_by=ruled_by,
                        created_at=now,
                        ruling=ruling,
                        memo=memo,
                    ),
                    [_Line(source.pk, -amount), _Line(target.pk, amount)],
                )
            ]
        )
        return ruling


def ledger_settings_for(*, club: Club) -> ClubLedgerSettings:
    """The club's ledger settings (defaults, unsaved, when never set)."""
    found = ClubLedgerSettings.objects.filter(club=club).first()
    return found if found is not None else ClubLedgerSettings(club=club)


def ledger_settings_update(*, club: Club, settlement_max: int, by: User) -> ClubLedgerSettings:
    settlement_max = _check_amount(settlement_max, "The settlement limit")
    with transaction.atomic():
        if not _is_organiser(club, by):
            raise LedgerError("Only the club's organisers can change the settlement limit.")
        settings_row, _ = ClubLedgerSettings.objects.update_or_create(
            club=club, defaults={"settlement_max": settlement_max}
        )
        return settings_row


def _post_settlement(settlement: Settlement, *, by: User) -> None:
    """Post a settlement's entry. Assumes the settlement row is locked (or new) in an open transaction."""
    club = settlement.club
    accounts = member_accounts(club=club, users=[settlement.payer, settlement.payee])
    payer, payee = accounts[settlement.payer_id], accounts[settlement.payee_id]
    memo = (
        f"{settlement.payer.shown_name} paid {settlement.payee.shown_name} on {settlement.paid_on:%Y-%m-%d}"
        + (f": {settlement.note}" if settlement.note else "")
    )[:200]
    # The payer handed over cash: their account rises, the receiver's falls.
    _post(
        [
            (
                JournalEntry(club=club, kind=EntryKind.SETTLEMENT, created_by=by, settlement=settlement, memo=memo),
                [_Line(payer.pk, settlement.amount), _Line(payee.pk, -settlement.amount)],
            )
        ]
    )


def settlement_record(
    *, club: Club, payer: User, payee: User, amount: int, paid_on: date, note: str, recorded_by: User
) -> Settlement:
    """Record cash paid between two members. Raises LedgerError for a zero, negative or
    too-large amount, a payment to oneself, a non-member, a future date, or a member
    recording someone else's payment."""
    amount = _check_amount(amount)
    note = (note or "").strip()[:200]
    with transaction.atomic():
        _check_member(club, payer, "The member who paid")
        _check_member(club, payee, "The member who was paid")
        if payer.pk == payee.pk:
            raise LedgerError("A settlement is between two different members.")
        limit = ledger_settings_for(club=club).settlement_max
        if amount > limit:
            raise LedgerError(f"A settlement may be at most {format_cents(limit, club.currency)} in this club.")
        if paid_on > timezone.localdate():
            raise LedgerError("The payment date can't be in the future.")
        organiser = _is_organiser(club, recorded_by)
        if not organiser and recorded_by.pk not in (payer.pk, payee.pk):
            raise LedgerError("You can record only a payment you made or received.")
        direct = organiser or recorded_by.pk == payee.pk
        now = timezone.now()
        settlement = Settlement.objects.create(
            club=club,
            payer=payer,
            payee=payee,
            amount=amount,
            paid_on=paid_on,
            note=note,
            recorded_by=recorded_by,
            recorded_at=now,
            status=Settlement.Status.CONFIRMED if direct else Settlement.Status.PENDING,
            decided_by=recorded_by if direct else None,
            decided_at=now if direct else None,
        )
        if direct:
            _post_settlement(settlement, by=recorded_by)
        return settlement


def _pending_for_update(club: Club, settlement_id: int) -> Settlement:
    settlement = (
        Settlement.objects.select_for_update(of=("self",))
        .select_related("payer", "payee", "club")
        .filter(club=club, pk=settlement_id)
        .first()
    )
    if settlement is None:
        raise LedgerError("No such settlement in this club.")
    if settlement.status != Settlement.Status.PENDING:
        raise LedgerError(f"That settlement is already {settlement.get_status_display().lower()}.")
    return settlement


def settlement_confirm(*, club: Club, settlement_id: int, user: User) -> Settlement:
    """The receiver (or an organiser) confirms a pending settlement: its entry is posted."""
    with transaction.atomic():
        settlement = _pending_for_update(club, settlement_id)
        if user.pk != settlement.payee_id and not _is_organiser(club, user):
            raise LedgerError("Only the member who was paid, or an organiser, can confirm it.")
        settlement.status = Settlement.Status.CONFIRMED
        settlement.decided_by = user
        settlement.decided_at = timezone.now()
        settlement.save(update_fields=["status", "decided_by", "decided_at"])
        _post_settlement(settlement, by=user)
        return settlement


def settlement_decline(*, club: Club, settlement_id: int, user: User) -> Settlement:
    """The receiver or an organiser declines a pending settlement, or the payer withdraws it."""
    with transaction.atomic():
        settlement = _pending_for_update(club, settlement_id)
        if user.pk not in (settlement.payee_id, settlement.payer_id) and not _is_organiser(club, user):
            raise LedgerError("Only the two members involved, or an organiser, can decline it.")
        settlement.status = Settlement.Status.DECLINED
        settlement.decided_by = user
        settlement.decided_at = timezone.now()
        settlement.save(update_fields=["status", "decided_by", "decided_at"])
        return settlement
