"""Every read of the clubhouse: results and statistics (SQL aggregates), seasons, the night's summary.

Statistics are computed in PostgreSQL over ``HandResult`` (one row per player of a finished
hand, from the action log and the ledger), never by looping over hands in Python. Voided hands
(an organiser's ruling) are left out. A *win* is a hand whose pot paid the player something;
the current streak counts the latest hands in dealing order that all won (positive) or all
did not (negative).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from accounts.models import Club, Membership, User
from games.models import ChatMessage, Game, Table
from games.selectors.mine import hands_waiting_for
from games.selectors.tables import table_may_watch
from ledger.selectors import Transfer, balances_as_of, settle_up_left, settle_up_plan

from .models import ClubVisit, Season

# --- results and statistics ------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """[date_from, date_to) in aware instants; None is open-ended."""

    date_from: datetime | None = None
    date_to: datetime | None = None

    @classmethod
    def of_season(cls, season: Season) -> Period:
        return cls(season.opened_at, season.closed_at)


@dataclass(frozen=True)
class StatLine:
    """One member's results at one game over a period."""

    user_id: int
    game: str
    hands: int
    wins: int
    net: int
    biggest: int  # the largest share of a pot won in one hand (cents)
    streak: int  # > 0: that many latest hands won; < 0: that many latest hands without a win
    stayed_in: int  # Piranha: "in" at the drop
    stayed_in_won: int
    high: int  # Piles: declared high / low / pig, and how many of those won
    high_won: int
    low: int
    low_won: int
    pig: int
    pig_won: int
    user: User | None = None

    @property
    def game_label(self) -> str:
        return Game(self.game).label

    @staticmethod
    def _pct(part: int, whole: int) -> int | None:
        return round(100 * part / whole) if whole else None

    @property
    def win_pct(self) -> int | None:
        return self._pct(self.wins, self.hands)

    @property
    def stayed_in_pct(self) -> int | None:
        return self._pct(self.stayed_in, self.hands)

    @property
    def stayed_in_won_pct(self) -> int | None:
        return self._pct(self.stayed_in_won, self.stayed_in)


_FIELDS = [
    "user_id",
    "game",
    "hands",
    "wins",
    "net",
    "biggest",
    "streak",
    "stayed_in",
    "stayed_in_won",
    "high",
    "high_won",
    "low",
    "low_won",
    "pig",
    "pig_won",
]

# The rows of a period: whole weeks (UTC) from WeekResult, and the hands of the part-weeks at either
# end from HandResult (leaving out voided hands; WeekResult has them out already).
_PARTS = """
voided AS (
    SELECT hand_id FROM ledger_ruling WHERE club_id = %(club)s AND kind = 'void_hand' AND hand_id IS NOT NULL
), parts AS (
    SELECT user_id, game, hands, wins, net, biggest, stayed_in, stayed_in_won, high, high_won, low, low_won,
           pig, pig_won, last_win, last_miss
    FROM clubhouse_weekresult d WHERE {weeks}
    UNION ALL
    SELECT user_id, game, COUNT(*), COUNT(*) FILTER (WHERE won > 0), SUM(net), MAX(won),
           COUNT(*) FILTER (WHERE decision = 'in'), COUNT(*) FILTER (WHERE decision = 'in' AND won > 0),
           COUNT(*) FILTER (WHERE decision = 'high'), COUNT(*) FILTER (WHERE decision = 'high' AND won > 0),
           COUNT(*) FILTER (WHERE decision = 'low'), COUNT(*) FILTER (WHERE decision = 'low' AND won > 0),
           COUNT(*) FILTER (WHERE decision = 'pig'), COUNT(*) FILTER (WHERE decision = 'pig' AND won > 0),
           MAX(hand_id) FILTER (WHERE won > 0), MAX(hand_id) FILTER (WHERE won = 0)
    FROM clubhouse_handresult r WHERE {edges} AND r.hand_id NOT IN (SELECT hand_id FROM voided)
    GROUP BY user_id, game
)
"""

_STATS = (
    """
WITH """  # noqa: S608 - fixed fragments; every value is a parameter
    + _PARTS
    + """, agg AS (
    SELECT user_id, game, SUM(hands) AS hands, SUM(wins) AS wins, SUM(net) AS net, MAX(biggest) AS biggest,
           SUM(stayed_in) AS stayed_in, SUM(stayed_in_won) AS stayed_in_won, SUM(high) AS high,
           SUM(high_won) AS high_won, SUM(low) AS low, SUM(low_won) AS low_won, SUM(pig) AS pig,
           SUM(pig_won) AS pig_won, MAX(last_win) AS last_win, MAX(last_miss) AS last_miss
    FROM parts GROUP BY user_id, game
)
SELECT user_id, game, hands, wins, net, biggest,
       CASE WHEN last_miss IS NULL OR last_win > last_miss THEN 1 ELSE -1 END
       * CASE WHEN last_win IS NULL OR last_miss IS NULL THEN hands ELSE (
           SELECT COUNT(*) FROM clubhouse_handresult r
           WHERE {where} AND r.user_id = agg.user_id AND r.game = agg.game
             AND r.hand_id > LEAST(agg.last_win, agg.last_miss)
             AND r.hand_id <= GREATEST(agg.last_win, agg.last_miss)
             AND r.hand_id NOT IN (SELECT hand_id FROM voided)) END AS streak,
       stayed_in, stayed_in_won, high, high_won, low, low_won, pig, pig_won
FROM agg
ORDER BY net DESC, user_id, game
"""
)  # noqa: S608 - fixed fragments; every value is a parameter


def _whole_weeks(period: Period) -> tuple[date | None, date | None] | None:
    """The whole weeks (Monday to Sunday, UTC) inside the period as [first Monday, end Monday)
    (None: open-ended), or None when the period holds no whole week."""
    first = end = None
    if period.date_from is not None:
        start = period.date_from.astimezone(UTC)
        monday = start.date() - timedelta(days=start.weekday())
        first = monday if _midnight(monday) == start else monday + timedelta(days=7)
    if period.date_to is not None:
        stop = period.date_to.astimezone(UTC)
        end = stop.date() - timedelta(days=stop.weekday())
    if first is not None and end is not None and first >= end:
        return None
    return first, end


def _midnight(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC)


# The SQL conditions are built from the fixed fragments below; every value is a query parameter.
def _where(*, club: Club, period: Period, game: str = "", user: User | None = None) -> dict[str, Any]:
    """The conditions of the period's hands (``where``, on HandResult r), of its whole weeks
    (``weeks``, on WeekResult d) and of the hands of its part-weeks (``edges``, on r), with their
    parameters."""
    common = ["{t}.club_id = %(club)s"]
    params: dict[str, Any] = {"club": club.pk}
    if game:
        common.append("{t}.game = %(game)s")
        params["game"] = game
    if user is not None:
        common.append("{t}.user_id = %(user)s")
        params["user"] = user.pk
    where = [c.format(t="r") for c in common]
    if period.date_from is not None:
        where.append("r.finished_at >= %(date_from)s")
        params["date_from"] = period.date_from
    if period.date_to is not None:
        where.append("r.finished_at < %(date_to)s")
        params["date_to"] = period.date_to
    whole = _whole_weeks(period)
    if whole is None:
        weeks, edges = "false", " AND ".join(where)
    else:
        first, end = whole
        weeks_parts = [c.format(t="d") for c in common]
        edge_parts = []
        if first is not None:
            weeks_parts.append("d.week >= %(first_week)s")
            params["first_week"], params["first_at"] = first, _midnight(first)
            edge_parts.append("(r.finished_at >= %(date_from)s AND r.finished_at < %(first_at)s)")
        if end is not None:
            weeks_parts.append("d.week < %(end_week)s")
            params["end_week"], params["end_at"] = end, _midnight(end)
            edge_parts.append("(r.finished_at >= %(end_at)s AND r.finished_at < %(date_to)s)")
        weeks = " AND ".join(weeks_parts)
        edges = " AND ".join([c.format(t="r") for c in common] + ["(" + (" OR ".join(edge_parts) or "false") + ")"])
    params["_sql"] = {"where": " AND ".join(where), "weeks": weeks, "edges": edges}
    return params


def stat_lines(*, club: Club, period: Period = Period(), game: str = "", user: User | None = None) -> list[StatLine]:
    """Each member's line per game over the period (one member's when ``user``), best net first.
    One query; the members' users are attached (one more)."""
    params = _where(club=club, period=period, game=game, user=user)
    with connection.cursor() as cursor:
        cursor.execute(_STATS.format(**params.pop("_sql")), params)
        rows = [dict(zip(_FIELDS, row, strict=True)) for row in cursor.fetchall()]
    users = User.objects.in_bulk([r["user_id"] for r in rows])
    lines: list[StatLine] = []
    for r in rows:
        fields: dict[str, Any] = {k: (int(v) if k != "game" else v) for k, v in r.items()}
        lines.append(StatLine(**fields, user=users.get(r["user_id"])))
    return lines


# Week by week: the whole weeks' rows and the part-weeks' hands, bucketed by week.
_NET_BY_WEEK = (
    "WITH "  # noqa: S608 - fixed fragments; every value is a parameter
    + (
        _PARTS.replace("GROUP BY user_id, game", "GROUP BY user_id, game, week")
        .replace("SELECT user_id, game, hands,", "SELECT week, net AS week_net, user_id, game, hands,")
        .replace(
            "SELECT user_id, game, COUNT(*),",
            "SELECT date_trunc('week', r.finished_at AT TIME ZONE 'UTC')::date "
            "AS week, SUM(net), user_id, game, COUNT(*),",
        )
    )
    + """
SELECT week, SUM(SUM(week_net)) OVER (ORDER BY week) FROM parts GROUP BY week ORDER BY week
"""
)

# Day by day (periods up to DAILY_CHART_DAYS): the hands themselves.
_NET_BY_DAY = """
SELECT day, SUM(SUM(net)) OVER (ORDER BY day) FROM (
    SELECT (r.finished_at AT TIME ZONE 'UTC')::date AS day, r.net FROM clubhouse_handresult r
    WHERE {where} AND r.hand_id NOT IN (
        SELECT hand_id FROM ledger_ruling WHERE club_id = %(club)s AND kind = 'void_hand' AND hand_id IS NOT NULL)
) d GROUP BY day ORDER BY day
"""


#: periods up to this long chart a point a day; longer ones a point a week
DAILY_CHART_DAYS = 92


def by_day(period: Period) -> bool:
    """Whether a chart of the period has a point a day (else a week)."""
    if period.date_from is None:
        return False
    end = period.date_to or timezone.now()
    return (end - period.date_from).days <= DAILY_CHART_DAYS


def net_over_time(*, club: Club, user: User, period: Period = Period(), game: str = "") -> list[tuple[date, int]]:
    """(day, net of the member's hands from the start of the period to that day's end) for each
    UTC day they finished a hand, oldest first: a running sum in PostgreSQL. Over a period longer
    than DAILY_CHART_DAYS (or open-ended) one point a week (its Monday) keeps the chart readable."""
    params = _where(club=club, period=period, game=game, user=user)
    sql = _NET_BY_DAY if by_day(period) else _NET_BY_WEEK
    with connection.cursor() as cursor:
        cursor.execute(sql.format(**params.pop("_sql")), params)
        return [(day, int(total)) for day, total in cursor.fetchall()]


# --- seasons ---------------------------------------------------------------------------


def season_list(*, club: Club) -> list[Season]:
    return list(Season.objects.filter(club=club).select_related("opened_by", "closed_by"))


def season_of(*, club: Club, season_id: int) -> Season | None:
    return Season.objects.filter(club=club, pk=season_id).select_related("opened_by", "closed_by").first()


@dataclass(frozen=True)
class SettleUp:
    as_of: datetime
    balances: dict[int, int]
    transfers: list[Transfer]
    left: dict[int, int]
    users: dict[int, User]


def settle_up_as_of(*, club: Club, as_of: datetime) -> SettleUp:
    """Who owes whom as the books stood at ``as_of``: the ledger's fewest-transfers plan."""
    balances = balances_as_of(club=club, as_of=as_of)
    plan = settle_up_plan(balances)
    users = User.objects.in_bulk(list(balances))
    return SettleUp(as_of=as_of, balances=balances, transfers=plan, left=settle_up_left(balances, plan), users=users)


# --- the night's summary -----------------------------------------------------------------


def last_seen(*, club: Club, user: User) -> datetime | None:
    return ClubVisit.objects.filter(club=club, user=user).values_list("seen_at", flat=True).first()


@dataclass(frozen=True)
class ChatMissed:
    table: Table
    count: int
    latest: Sequence[ChatMessage]


@dataclass(frozen=True)
class Summary:
    since: datetime
    hands_finished: int
    won: int  # cents won in the hands finished since (pots), and
    lost: int  # cents those hands cost (positive), so won - lost is the net
    net: int
    waiting: Sequence[Table]  # tables where it is the member's turn
    chat: Sequence[ChatMissed]


def summary_since(*, club: Club, user: User, since: datetime, chat_lines: int = 3) -> Summary:
    """What happened in the club since ``since`` for ``user``: the hands of theirs that finished,
    what they won and lost in them, the tables waiting for them, and other members' chat at the
    tables they sit at or may watch."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT COUNT(*), COALESCE(SUM(won), 0), COALESCE(SUM(won - net), 0), COALESCE(SUM(net), 0)
            FROM clubhouse_handresult r
            WHERE r.club_id = %s AND r.user_id = %s AND r.finished_at >= %s AND r.hand_id NOT IN (
                SELECT hand_id FROM ledger_ruling WHERE club_id = %s AND kind = 'void_hand'
                AND hand_id IS NOT NULL)
        """,
            [club.pk, user.pk, since, club.pk],
        )
        hands, won, lost, net = cursor.fetchone()
    waiting = [w.hand.table for w in hands_waiting_for(user=user, club=club)]
    missed = ChatMessage.objects.filter(table__club=club, created_at__gte=since, hidden_at__isnull=True).exclude(
        user=user
    )
    counts = dict(missed.values_list("table").annotate(n=Count("id")).values_list("table", "n"))
    chat: list[ChatMissed] = []
    if counts:
        latest = (
            missed.annotate(rank=Window(RowNumber(), partition_by=[F("table_id")], order_by=F("id").desc()))
            .filter(rank__lte=chat_lines)
            .select_related("user")
            .order_by("table_id", "id")
        )
        lines_of: dict[int, list[ChatMessage]] = {}
        for line in latest:
            lines_of.setdefault(line.table_id, []).append(line)
        for table in Table.objects.filter(pk__in=counts).select_related("rule_version").order_by("name", "pk"):
            if table_may_watch(table=table, user=user):
                chat.append(ChatMissed(table=table, count=counts[table.pk], latest=lines_of.get(table.pk, [])))
    return Summary(
        since=since, hands_finished=int(hands), won=int(won), lost=int(lost), net=int(net), waiting=waiting, chat=chat
    )


def club_member_ids(*, club: Club) -> list[int]:
    return list(Membership.objects.filter(club=club).values_list("user_id", flat=True))
