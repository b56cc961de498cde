"""Every read of the books: balance sheet, statements (keyset pages), exports, charts, settle-up."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet, Sum
from django.utils import timezone

from accounts.models import Club, Membership, User

from .models import Account, JournalEntry, Posting, Ruling, Settlement

PAGE_SIZE = 50
EXPORT_CHUNK = 2000


# --- balance sheet and settle-up ---------------------------------------------


@dataclass(frozen=True)
class BalanceRow:
    user: User
    balance: int
    is_organiser: bool

    @property
    def standing(self) -> str:
        return "up" if self.balance > 0 else "down" if self.balance < 0 else "even"


def balance_sheet(*, club: Club) -> list[BalanceRow]:
    """Every member's maintained balance, highest first: two indexed queries, no sums."""
    balances = dict(Account.objects.filter(club=club, kind=Account.Kind.MEMBER).values_list("user_id", "balance"))
    rows = [BalanceRow(user=m.user, balance=int(balances.get(m.user_id, 0)), is_organiser=m.is_organiser)
            for m in Membership.objects.filter(club=club).select_related("user")]
    rows.sort(key=lambda r: (-r.balance, r.user.shown_name.lower()))
    return rows


def pots_total(*, club: Club) -> int:
    """Cents sitting in table pots (carried pots, hands in progress)."""
    total = Account.objects.filter(club=club, kind=Account.Kind.TABLE_POT).aggregate(t=Sum("balance"))["t"]
    return int(total or 0)


@dataclass(frozen=True)
class Transfer:
    payer_id: int
    payee_id: int
    amount: int


def settle_up_plan(balances: Mapping[int, int]) -> list[Transfer]:
    """Transfers that bring every balance to zero: the largest debtor pays the largest creditor.

    Each transfer zeroes at least one of the two, and the last one zeroes both, so there
    are never more than (members with a non-zero balance - 1). When the balances don't sum
    to zero (money sitting in a table pot) what can't be matched is left over.
    """
    creditors = [(-amount, user_id) for user_id, amount in balances.items() if amount > 0]
    debtors = [(amount, user_id) for user_id, amount in balances.items() if amount < 0]
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    transfers: list[Transfer] = []
    while creditors and debtors:
        owed, creditor = heapq.heappop(creditors)
        debt, debtor = heapq.heappop(debtors)
        amount = min(-owed, -debt)
        transfers.append(Transfer(payer_id=debtor, payee_id=creditor, amount=amount))
        if -owed > amount:
            heapq.heappush(creditors, (owed + amount, creditor))
        if -debt > amount:
            heapq.heappush(debtors, (debt + amount, debtor))
    return transfers


def settlement_list(*, club: Club, user: User | None = None, limit: int = 30) -> list[Settlement]:
    """Recent settlements of the club (only those involving `user` when given), newest first."""
    qs = Settlement.objects.filter(club=club).select_related("payer", "payee", "recorded_by", "decided_by")
    if user is not None:
        qs = qs.filter(payer=user) | qs.filter(payee=user)
    return list(qs.order_by("-id")[:limit])


# --- statements ----------------------------------------------------------------


@dataclass(frozen=True)
class StatementFilter:
    date_from: datetime | None = None  # inclusive, aware
    date_to: datetime | None = None  # exclusive, aware
    table_id: int | None = None
    game: str = ""
    kind: str = ""

    @property
    def is_empty(self) -> bool:
        return not (self.date_from or self.date_to or self.table_id or self.game or self.kind)


def _filtered(qs: QuerySet[Posting], flt: StatementFilter) -> QuerySet[Posting]:
    if flt.date_from is not None:
        qs = qs.filter(created_at__gte=flt.date_from)
    if flt.date_to is not None:
        qs = qs.filter(created_at__lt=flt.date_to)
    if flt.table_id is not None:
        qs = qs.filter(table_id=flt.table_id)
    if flt.game:
        qs = qs.filter(game=flt.game)
    if flt.kind:
        qs = qs.filter(kind=flt.kind)
    return qs


@dataclass
class StatementPage:
    lines: Sequence[Posting]
    next_before: int | None  # the cursor of the next (older) page
    newest: bool  # this is the first page
    extra: dict[str, Any] = field(default_factory=dict)


def statement_page(*, account: Account, flt: StatementFilter, before: int | None = None,
                   size: int = PAGE_SIZE) -> StatementPage:
    """One page of the account's postings, newest first, by keyset on (account, seq).

    Each line carries its stored running balance (`balance_after`), its entry (memo,
    ruling, reversal) and `is_reversed` (a later void reverses it). `before` is the seq
    of the last line of the previous page.
    """
    qs = _filtered(Posting.objects.filter(account=account), flt)
    if before is not None:
        qs = qs.filter(seq__lt=before)
    rows = list(qs.select_related("entry", "entry__ruling", "entry__table").order_by("-seq")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    # Which of these lines a void has reversed: one probe of the unique index per line
    # (an EXISTS annotation here was planned as a scan of every reversal in the books).
    reversed_ids = set(JournalEntry.objects.filter(reverses_id__in=[p.entry_id for p in rows])
                       .values_list("reverses_id", flat=True))
    for posting in rows:
        posting.is_reversed = posting.entry_id in reversed_ids  # type: ignore[attr-defined]
    return StatementPage(lines=rows, next_before=rows[-1].seq if more and rows else None, newest=before is None)


def statement_rows(*, account: Account, flt: StatementFilter, chunk: int = EXPORT_CHUNK) -> Iterator[Posting]:
    """Every filtered posting of the account, newest first, fetched by keyset in chunks:
    memory stays flat however long the statement, and no cursor is held between chunks."""
    before: int | None = None
    while True:
        qs = _filtered(Posting.objects.filter(account=account), flt)
        if before is not None:
            qs = qs.filter(seq__lt=before)
        rows = list(qs.select_related("entry", "entry__table").order_by("-seq")[:chunk])
        yield from rows
        if len(rows) < chunk:
            return
        before = rows[-1].seq


def journal_rows(*, club: Club, flt: StatementFilter, chunk: int = EXPORT_CHUNK) -> Iterator[Posting]:
    """Every filtered posting of the club (all accounts), newest first, by keyset on (club, id)."""
    before: int | None = None
    while True:
        qs = _filtered(Posting.objects.filter(club=club), flt)
        if before is not None:
            qs = qs.filter(pk__lt=before)
        rows = list(qs.select_related("entry", "entry__table", "account__user", "account__table")
                    .order_by("-pk")[:chunk])
        yield from rows
        if len(rows) < chunk:
            return
        before = rows[-1].pk


def journal_page(*, club: Club, flt: StatementFilter, before: int | None = None,
                 size: int = PAGE_SIZE) -> StatementPage:
    """One page of every posting of the club, newest first (organisers), by keyset on (club, id)."""
    qs = _filtered(Posting.objects.filter(club=club), flt)
    if before is not None:
        qs = qs.filter(pk__lt=before)
    rows = list(qs.select_related("entry", "entry__ruling", "entry__table", "account__user", "account__table")
                .order_by("-pk")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return StatementPage(lines=rows, next_before=rows[-1].pk if more and rows else None, newest=before is None)


def member_account(*, club: Club, user: User) -> Account | None:
    return Account.objects.filter(club=club, kind=Account.Kind.MEMBER, user=user).first()


# --- charts --------------------------------------------------------------------


def balance_history(*, account: Account | None, days: int | None = None) -> list[tuple[str, int]]:
    """(day, balance at the end of that day) for each day with postings: one point a day."""
    if account is None:
        return []
    qs = Posting.objects.filter(account=account)
    if days is not None:
        qs = qs.filter(created_at__gte=timezone.now() - timedelta(days=days))
    from django.db.models.functions import TruncDate

    points = (qs.annotate(day=TruncDate("created_at")).order_by("day", "-seq").distinct("day")
              .values_list("day", "balance_after"))
    return [(day.isoformat(), int(balance)) for day, balance in points]


@dataclass(frozen=True)
class Mover:
    user: User
    change: int


def biggest_movements(*, club: Club, days: int = 30, limit: int = 10) -> list[Mover]:
    """The members whose balance moved most (net) in the last `days` days, largest first."""
    since = timezone.now() - timedelta(days=days)
    sums = (Posting.objects.filter(club=club, created_at__gte=since, account__kind=Account.Kind.MEMBER)
            .values("account__user").annotate(change=Sum("amount")))
    changes = {row["account__user"]: int(row["change"]) for row in sums if row["change"]}
    users = User.objects.in_bulk(list(changes))
    movers = [Mover(user=users[uid], change=c) for uid, c in changes.items() if uid in users]
    movers.sort(key=lambda m: (-abs(m.change), m.user.shown_name))
    return movers[:limit]


# --- rulings -------------------------------------------------------------------


def ruling_list(*, club: Club, before: int | None = None, size: int = PAGE_SIZE) -> tuple[list[Ruling], int | None]:
    qs = Ruling.objects.filter(club=club).select_related("ruled_by", "from_user", "to_user", "hand__table")
    if before is not None:
        qs = qs.filter(pk__lt=before)
    rows = list(qs.order_by("-pk")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return rows, (rows[-1].pk if more and rows else None)
