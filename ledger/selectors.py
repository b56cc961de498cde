"""Every read of the books: balance sheet, statements (keyset pages), exports, charts, settle-up."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from accounts.models import Club, Membership, User

from .models import Account, JournalEntry, Posting, Ruling, Settlement
from .paging import keyset_page, keyset_rows

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
    rows = [
        BalanceRow(user=m.user, balance=int(balances.get(m.user_id, 0)), is_organiser=m.is_organiser)
        for m in Membership.objects.filter(club=club).select_related("user")
    ]
    rows.sort(key=lambda r: (-r.balance, r.user.shown_name.lower()))
    return rows


def pots_total(*, club: Club) -> int:
    """Cents sitting in table pots (carried pots, hands in progress)."""
    total = Account.objects.filter(club=club, kind=Account.Kind.TABLE_POT).aggregate(t=Sum("balance"))["t"]
    return int(total or 0)


@dataclass(frozen=True)
class TablePot:
    """A table whose pot holds money, and why it sits there: ``state`` is 'playing' (hands are dealt
    there), 'sitting_out' (seated, but fewer than two play), 'empty' (nobody sits there) or 'over'
    (its game is over)."""

    table_id: int
    name: str
    amount: int
    state: str


def pots_by_table(*, club: Club) -> list[TablePot]:
    """Every table of the club whose pot is not empty, the largest first (what ``pots_total`` adds up)."""
    seated = Q(table__seats__left_at__isnull=True)
    rows = (
        Account.objects.filter(club=club, kind=Account.Kind.TABLE_POT)
        .exclude(balance=0)
        .annotate(
            seated=Count("table__seats", filter=seated),
            playing=Count("table__seats", filter=seated & Q(table__seats__sitting_out=False)),
        )
        .values_list("table_id", "table__name", "table__status", "balance", "seated", "playing")
        .order_by("-balance", "table_id")
    )
    return [
        TablePot(
            table_id=table_id,
            name=name,
            amount=int(balance),
            state=_pot_state(status, seated=seated_count, playing=playing),
        )
        for table_id, name, status, balance, seated_count, playing in rows
    ]


def _pot_state(status: str, *, seated: int, playing: int) -> str:
    # The table statuses of games.models.Table.Status (the ledger does not import games).
    if status == "finished":
        return "over"
    if status == "running" or playing >= 2:
        return "playing"
    return "sitting_out" if seated else "empty"


def balances_as_of(*, club: Club, as_of: datetime) -> dict[int, int]:
    """Each member's balance as the books stood just before ``as_of`` (user id -> cents; members
    with no entries by then left out): the stored running balance of each member account's last
    posting before that instant. Read backwards from ``as_of`` on the (club, created_at) index, so
    it stops at the member's latest posting then (backwards on (account, seq) it would first pass
    every posting made since)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT a.user_id, p.balance_after FROM ledger_account a
            CROSS JOIN LATERAL (
                SELECT balance_after FROM ledger_posting
                WHERE club_id = a.club_id AND account_id = a.id AND created_at < %s
                ORDER BY created_at DESC, seq DESC LIMIT 1
            ) p
            WHERE a.club_id = %s AND a.kind = 'member'
        """,
            [as_of, club.pk],
        )
        return {int(user_id): int(balance) for user_id, balance in cursor.fetchall()}


@dataclass(frozen=True)
class Transfer:
    payer_id: int
    payee_id: int
    amount: int


#: up to this many non-zero balances (a table pot counted as one) the plan is the fewest
#: transfers there can be (a search over all 2**n subsets); above it, matches first, then greedy
EXACT_SETTLE_UP = 16

_POT = object()  # the table pots, as one more party, while the balances don't sum to zero


def settle_up_plan(balances: Mapping[int, int]) -> list[Transfer]:
    """The fewest transfers that settle what members owe each other.

    A group of k non-zero balances that sums to zero settles in k - 1 transfers, so the
    fewest transfers are (non-zero balances) - (the most disjoint zero-sum groups they
    split into). Up to EXACT_SETTLE_UP balances that split is found exactly (a dynamic
    program over subsets); above it, equal and opposite balances are paired first and the
    rest is settled greedily. Either way there are never more than (non-zero - 1).

    When the balances don't sum to zero (money sitting in table pots), the pots are one
    more party: members are settled among themselves as far as they can be and the
    transfers to or from the pots are left out. What is left is ``settle_up_left``.
    Transfers are listed largest first.
    """
    parties: list[tuple[object, int]] = [(user_id, amount) for user_id, amount in sorted(balances.items()) if amount]
    total = sum(amount for _, amount in parties)
    if total:
        parties.append((_POT, -total))
    transfers: list[Transfer] = []
    for group in _zero_sum_groups(parties):
        for payer, payee, amount in _settle_greedily(group):
            if payer is not _POT and payee is not _POT:
                assert isinstance(payer, int) and isinstance(payee, int)
                transfers.append(Transfer(payer_id=payer, payee_id=payee, amount=amount))
    transfers.sort(key=lambda t: (-t.amount, t.payer_id, t.payee_id))
    return transfers


def settle_up_left(balances: Mapping[int, int], plan: Sequence[Transfer]) -> dict[int, int]:
    """The non-zero balances once ``plan`` is paid (empty when the balances sum to zero)."""
    after = dict(balances)
    for t in plan:
        after[t.payer_id] += t.amount
        after[t.payee_id] -= t.amount
    return {user_id: amount for user_id, amount in after.items() if amount}


def _zero_sum_groups(parties: Sequence[tuple[object, int]]) -> list[list[tuple[object, int]]]:
    """Split non-zero amounts summing to zero into as many zero-sum groups as there can be.

    Equal and opposite amounts pair off first: some best split has them as a group of
    their own (were they in two groups, the pair and the two groups' rest make as many).
    """
    groups: list[list[tuple[object, int]]] = []
    waiting: dict[int, list[tuple[object, int]]] = {}
    rest: list[tuple[object, int]] = []
    for party in parties:
        match = waiting.get(-party[1])
        if match:
            groups.append([match.pop(), party])
        else:
            waiting.setdefault(party[1], []).append(party)
    rest = [p for parties_of in waiting.values() for p in parties_of]
    if not rest:
        return groups
    if len(rest) > EXACT_SETTLE_UP:
        return [*groups, rest]
    return groups + _most_zero_sum_groups(rest)


def _most_zero_sum_groups(parties: Sequence[tuple[object, int]]) -> list[list[tuple[object, int]]]:
    """The exact split: best[mask] is the most zero-sum groups the parties in ``mask`` close
    when added one at a time (a group closes each time the running sum is zero again)."""
    n = len(parties)
    full = (1 << n) - 1
    sums = [0] * (full + 1)
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + parties[low.bit_length() - 1][1]
        most, rest = 0, mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            if best[mask ^ bit] > most:
                most = best[mask ^ bit]
        best[mask] = most + (1 if sums[mask] == 0 else 0)
    order: list[int] = []  # parties in the order they were removed: last added first
    mask = full
    while mask:
        rest = mask
        pick = rest & -rest
        while rest:
            bit = rest & -rest
            rest ^= bit
            if best[mask ^ bit] > best[mask ^ pick]:
                pick = bit
        order.append(pick.bit_length() - 1)
        mask ^= pick
    groups: list[list[tuple[object, int]]] = []
    current: list[tuple[object, int]] = []
    running = 0
    for index in reversed(order):
        current.append(parties[index])
        running += parties[index][1]
        if running == 0:
            groups.append(current)
            current = []
    assert not current and len(groups) == best[full]
    return groups


def _settle_greedily(group: Sequence[tuple[object, int]]) -> list[tuple[object, object, int]]:
    """Settle a zero-sum group: the largest debtor pays the largest creditor. Each transfer
    zeroes at least one of the two and the last zeroes both: at most len(group) - 1."""
    creditors = [(-amount, k, who) for k, (who, amount) in enumerate(group) if amount > 0]
    debtors = [(amount, k, who) for k, (who, amount) in enumerate(group) if amount < 0]
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    out: list[tuple[object, object, int]] = []
    while creditors and debtors:
        owed, kc, creditor = heapq.heappop(creditors)
        debt, kd, debtor = heapq.heappop(debtors)
        amount = min(-owed, -debt)
        out.append((debtor, creditor, amount))
        if -owed > amount:
            heapq.heappush(creditors, (owed + amount, kc, creditor))
        if -debt > amount:
            heapq.heappush(debtors, (debt + amount, kd, debtor))
    return out


@dataclass(frozen=True)
class PotShare:
    account_id: int
    user: User
    amount: int  # cents this member paid into the pot since it was last empty


def table_pot_shares(*, table_id: int) -> tuple[int, list[PotShare]]:
    """The table pot's balance and who paid it, member by member (largest first).

    Each award empties the pot (a winner takes it all), so what it holds now is exactly what was
    paid in since its running balance last stood at zero: each member's net payments since then.
    Reads under whatever lock the caller holds; the sums agree with the balance while awards take
    whole pots (the caller checks).
    """
    pot = Account.objects.filter(kind=Account.Kind.TABLE_POT, table_id=table_id).first()
    if pot is None:
        return 0, []
    last_empty = (
        Posting.objects.filter(account=pot, balance_after=0).order_by("-seq").values_list("seq", flat=True).first()
    ) or 0
    since = Posting.objects.filter(account=pot, seq__gt=last_empty).values("entry_id")
    paid = (
        Posting.objects.filter(entry_id__in=since)
        .exclude(account=pot)
        .values("account_id")
        .annotate(total=Sum("amount"))
        .values_list("account_id", "total")
    )
    owners = dict(Account.objects.filter(pk__in=[a for a, _ in paid]).values_list("pk", "user_id"))
    users = User.objects.in_bulk([u for u in owners.values() if u is not None])
    shares = [
        PotShare(account_id=account_id, user=users[owners[account_id]], amount=-int(total))
        for account_id, total in paid
        if total and owners.get(account_id) in users
    ]
    return int(pot.balance), sorted(shares, key=lambda s: (-s.amount, s.user.shown_name))


def hand_voiding(*, hand_id: int) -> Ruling | None:
    """The ruling that voided the hand (or stopped it when its table closed), if any."""
    return (
        Ruling.objects.filter(hand_id=hand_id, kind__in=[Ruling.Kind.VOID_HAND, Ruling.Kind.CLOSE_TABLE])
        .select_related("ruled_by")
        .order_by("-pk")
        .first()
    )


def table_closing(*, table_id: int) -> Ruling | None:
    """The ruling that closed the table, if an organiser closed it."""
    return (
        Ruling.objects.filter(table_id=table_id, kind=Ruling.Kind.CLOSE_TABLE)
        .select_related("ruled_by")
        .order_by("-pk")
        .first()
    )


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


def statement_page(
    *, account: Account, flt: StatementFilter, before: int | None = None, size: int = PAGE_SIZE
) -> StatementPage:
    """One page of the account's postings, newest first, by keyset on (account, seq).

    Each line carries its stored running balance (`balance_after`), its entry (memo,
    ruling, reversal) and `is_reversed` (a later void reverses it). `before` is the seq
    of the last line of the previous page.
    """
    rows, next_before = keyset_page(
        _filtered(Posting.objects.filter(account=account), flt).select_related(
            "entry", "entry__ruling", "entry__table"
        ),
        key="seq",
        before=before,
        size=size,
    )
    # Which of these lines a void has reversed: one probe of the unique index per line
    # (an EXISTS annotation here was planned as a scan of every reversal in the books).
    reversed_ids = set(
        JournalEntry.objects.filter(reverses_id__in=[p.entry_id for p in rows]).values_list("reverses_id", flat=True)
    )
    for posting in rows:
        posting.is_reversed = posting.entry_id in reversed_ids  # type: ignore[attr-defined]
    return StatementPage(lines=rows, next_before=next_before, newest=before is None)


def statement_rows(*, account: Account, flt: StatementFilter, chunk: int = EXPORT_CHUNK) -> Iterator[Posting]:
    """Every filtered posting of the account, newest first, fetched by keyset in chunks:
    memory stays flat however long the statement, and no cursor is held between chunks."""
    return keyset_rows(
        _filtered(Posting.objects.filter(account=account), flt).select_related("entry", "entry__table"),
        key="seq",
        chunk=chunk,
    )


def journal_rows(*, club: Club, flt: StatementFilter, chunk: int = EXPORT_CHUNK) -> Iterator[Posting]:
    """Every filtered posting of the club (all accounts), newest first, by keyset on (club, id)."""
    return keyset_rows(
        _filtered(Posting.objects.filter(club=club), flt).select_related(
            "entry", "entry__table", "account__user", "account__table"
        ),
        key="pk",
        chunk=chunk,
    )


def journal_page(
    *, club: Club, flt: StatementFilter, before: int | None = None, size: int = PAGE_SIZE
) -> StatementPage:
    """One page of every posting of the club, newest first (organisers), by keyset on (club, id)."""
    rows, next_before = keyset_page(
        _filtered(Posting.objects.filter(club=club), flt).select_related(
            "entry", "entry__ruling", "entry__table", "account__user", "account__table"
        ),
        key="pk",
        before=before,
        size=size,
    )
    return StatementPage(lines=rows, next_before=next_before, newest=before is None)


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

    points = (
        qs.annotate(day=TruncDate("created_at"))
        .order_by("day", "-seq")
        .distinct("day")
        .values_list("day", "balance_after")
    )
    return [(day.isoformat(), int(balance)) for day, balance in points]


def balance_by_entry(
    *, account: Account | None, days: int | None = None, limit: int = 500
) -> list[tuple[datetime, int]]:
    """(instant, balance after it) for each posting in the period, oldest first: the latest
    ``limit`` of them. For a chart of a period whose entries fall on a day or two, where one
    point a day would draw nothing."""
    if account is None:
        return []
    qs = Posting.objects.filter(account=account)
    if days is not None:
        qs = qs.filter(created_at__gte=timezone.now() - timedelta(days=days))
    rows = list(qs.order_by("-seq").values_list("created_at", "balance_after")[:limit])
    return [(created_at, int(balance)) for created_at, balance in reversed(rows) if created_at is not None]


@dataclass(frozen=True)
class Mover:
    user: User
    change: int


def biggest_movements(*, club: Club, days: int = 30, limit: int = 10) -> list[Mover]:
    """The members whose balance moved most (net) in the last `days` days, largest first."""
    since = timezone.now() - timedelta(days=days)
    sums = (
        Posting.objects.filter(club=club, created_at__gte=since, account__kind=Account.Kind.MEMBER)
        .values("account__user")
        .annotate(change=Sum("amount"))
    )
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


# --- money at a table ---------------------------------------------------------


@dataclass(frozen=True)
class SeatMoney:
    balance: int  # the member's club balance now
    sitting_net: int  # what their postings at this table came to since they took the seat


def seat_money_join(*, user: str, since: str) -> str:
    """The money of each row's seated member, for a statement whose rows name the member (``user``) and the time
    they took the seat (``since``), both SQL expressions: a join adding ``money.balance`` (their club balance)
    and ``money.net`` (their postings at the table since then), both NULL for a member with no account yet. Its
    parameters, in order: the table id, the club id. The table snapshot's seats statement reads it with every
    version of a hand (games/selectors/snapshot.py): the net is summed from the sitting index alone (Posting's
    ``ledger_posting_sitting``), this table's postings since the seat was taken and no other."""
    # Only the callers' fixed column expressions are put in; every value is bound.
    return (
        "LEFT JOIN LATERAL (SELECT a.balance, (SELECT COALESCE(SUM(p.amount), 0) FROM ledger_posting p "  # noqa: S608
        f"WHERE p.account_id = a.id AND p.table_id = %s AND p.created_at >= {since}) AS net FROM ledger_account a "
        f"WHERE a.club_id = %s AND a.user_id = {user} AND a.kind = 'member') money ON TRUE"
    )
