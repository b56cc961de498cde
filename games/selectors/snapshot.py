"""Everything the table area (``games/area.jinja``) needs from the database, read at once.

A ``TableSnapshot`` holds a table as of one moment: the table (club, house rules, next game), its
seats with their members, the hand shown with its parsed engine state, the names and away flags of
the hand's players, the advance actions set in it, the previous finished hand and the ruling that closed the table. The process that commits a version
makes one (``table_snapshot_of``, from the hand, its table and club and the state its transaction holds,
reading only the rest) and renders the public frame and the
changed members' private frames from it (games/live/publish.py); a socket's ``sync`` and the page read
one. It holds every member's advance actions: only ``advance_rows_of`` hands them out, one member's own.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import engine
from accounts.models import User
from games.models import AdvanceAction, Hand, Seat, Table
from games.selectors import advance as advance_selectors
from games.selectors.hands import hand_seat_users
from games.selectors.rows import Columns, rows_fetch, rows_split
from games.selectors.states import hand_state, hand_state_kept
from kernel.pools import ProcessCache
from ledger import selectors as ledger_selectors
from ledger.models import Ruling
from ledger.selectors import SeatMoney


@dataclass
class TableSnapshot:
    table: Table
    hand: Hand | None
    state: engine.State | None  # the hand's engine state, parsed once (None without a hand)
    seats: list[Seat]
    hand_users: dict[int, User]  # seat -> member dealt in there (hand players)
    advance_rows: list[AdvanceAction]  # every member's, newest first: hand out only one's own
    previous: Hand | None  # the last finished hand before ``hand`` (only while ``hand`` is played)
    previous_users: dict[int, User]
    previous_voiding: Ruling | None  # the ruling that voided ``previous`` (or stopped it as its table closed)
    closing: Ruling | None  # the ruling that closed a finished table
    seat_money: dict[int, SeatMoney] = field(default_factory=dict)  # user id -> balance, sitting net
    derived: dict[Hashable, Any] = field(default_factory=dict)  # member-independent values computed once

    @property
    def free_seats(self) -> list[int]:
        taken = {s.number for s in self.seats}
        return [n for n in range(1, self.table.rule_version.max_seats + 1) if n not in taken]

    def hand_names(self) -> dict[int, str]:
        return {seat: u.shown_name for seat, u in self.hand_users.items()}

    def advance_rows_of(self, user_id: int) -> list[AdvanceAction]:
        return [r for r in self.advance_rows if r.user_id == user_id]

    def to_act(self) -> list[int]:
        if self.hand is None or self.hand.is_finished or self.state is None:
            return []
        found: list[int] | None = self.derived.get("to_act")
        if found is None:
            found = self.derived["to_act"] = list(engine.to_act(self.state))
        return found


@dataclass(frozen=True)
class Carried:
    """What the transaction that committed a version of a hand already knew beside the hand row, handed to
    that version's frames so they do not read it again (None: not known, read it)."""

    advance_rows: list[AdvanceAction] | None = None  # the hand's advance actions ([]: it has none)
    previous: Hand | None = None  # the last finished hand before it (the one that ended as it was dealt)


def table_snapshot(
    *, table: Table, hand: Hand | None, state: engine.State | None = None, carried: Carried = Carried()
) -> TableSnapshot:
    """The snapshot of ``table`` (its club and house rules loaded) showing ``hand`` (``state``: its engine
    state when the caller holds it; ``carried``: what the transaction that committed it knew)."""
    # The last hand is shown beside a hand being played; the seats statement names it (``_PreviousKey``).
    asks = hand is not None and not hand.is_finished and carried.previous is None
    before = hand.number if hand is not None and asks else 0
    seats, seat_money, previous_key = _seats_read(table.pk, table.club_id, before)
    previous = previous_voiding = None
    previous_users: dict[int, User] = {}
    advance_rows: list[AdvanceAction] = []
    hand_users: dict[int, User] = {}
    if hand is not None:
        state = state if state is not None else hand_state(hand)
        known = {s.user_id: s.user for s in seats}  # the players are usually the members seated now
        hand_users = hand_seat_users(hand=hand, known=known)
        if not hand.is_finished:
            advance_rows = (
                carried.advance_rows
                if carried.advance_rows is not None
                else advance_selectors.advance_rows(hand_id=hand.pk)
            )
            previous = carried.previous or _previous_hand(table.pk, hand.number, previous_key)
        if previous is not None:
            previous_users = hand_seat_users(hand=previous, known={**known, **{u.pk: u for u in hand_users.values()}})
            previous_voiding = ledger_selectors.hand_voiding(hand_id=previous.pk) if previous.voided_at else None
    closing = ledger_selectors.table_closing(table_id=table.pk) if table.status == Table.Status.FINISHED else None
    return TableSnapshot(
        table=table,
        hand=hand,
        state=state,
        seats=seats,
        hand_users=hand_users,
        advance_rows=advance_rows,
        previous=previous,
        previous_users=previous_users,
        previous_voiding=previous_voiding,
        closing=closing,
        seat_money=seat_money,
    )


def table_snapshot_of(*, hand: Hand, state: engine.State, carried: Carried = Carried()) -> TableSnapshot:
    """The snapshot of the table of ``hand`` showing it, from the hand, its table (with its club), the state
    and what else (``carried``) the caller committed: what the hand's area shows beside them is read."""
    table = hand.table  # loaded with the hand by the committing transaction (games/services/locking.py)
    if table.rule_version_id == hand.rule_version_id and not Table.rule_version.is_cached(table):
        # The usual case: the house rules the hand is played under (the same id: set as ``table.rule_version = ``
        # would, without its checks).
        Table.rule_version.field.set_cached_value(table, hand.rule_version)
    return table_snapshot(table=table, hand=hand, state=state, carried=carried)


def table_snapshot_read(*, table_id: int, hand_id: int | None = None) -> TableSnapshot | None:
    """The table and hand ``hand_id`` of it (None, or a hand of another table: its newest hand) read
    afresh, as a snapshot; None when the table is gone."""
    table = Table.objects.select_related("club", "rule_version__rule_set", "next_game").filter(pk=table_id).first()
    if table is None:
        return None
    hands = Hand.objects.filter(table_id=table_id).select_related("rule_version__rule_set")
    hand = hands.filter(pk=hand_id).first() if hand_id is not None else None
    hand = hand or hands.order_by("-number").first()
    if hand is not None:
        hand.table = table
    return table_snapshot(table=table, hand=hand)


# The read every version of a hand repeats (the seats, naming the last hand), and the last hand's own read when
# that is new here, written out (games/selectors/rows.py). Only table and column names from the models are put
# in the statements; every value is bound.
# The previous hand's area shows its result (from its state), its players, number and voiding: its deck, salts,
# events and clocks (most of the row) are neither sent nor decoded.
_HAND = Columns(
    Hand,
    "h",
    only=("id", "table_id", "number", "rule_version_id", "players", "button", "state", "version", "started_at")
    + ("finished_at", "voided_at"),
)
_SEAT = Columns(Seat, "s")
_USER = Columns(User, "u")
_LAST_FINISHED = 'FROM "games_hand" h WHERE h.table_id = %s AND h.finished_at IS NOT NULL AND h.number < %s'
_PREVIOUS_HAND_SQL = f"SELECT {_HAND.sql} {_LAST_FINISHED} ORDER BY h.number DESC LIMIT 1"  # noqa: S608
_SEATS_SQL = (
    f'SELECT {_SEAT.sql}, {_USER.sql}, money.balance, money.net FROM "{Seat._meta.db_table}" s '  # noqa: S608
    f'JOIN "{User._meta.db_table}" u ON u.id = s.user_id '
    + ledger_selectors.seat_money_join(user="s.user_id", since="s.accepted_at")
    + " WHERE s.table_id = %s AND s.left_at IS NULL ORDER BY s.number"
)
# The seats, and on each row what names the last finished hand before hand %s (NULL: none; 0 asks nothing).
# Each value (an id or a hand's number) is read as ``(SELECT %s::bigint)``, a one-row subplan whose value
# PostgreSQL does not know when it plans: a plan made for one run's values (custom) then costs what the plan for
# any values (generic) does, and the generic one is kept from the sixth run on a connection
# (tests/games/test_statement_plans.py). Planned for its own values, a new table beside a long-played one (few
# postings against thousands) looked cheaper than the generic plan every time, and the statement was planned
# again at every read. The plan is the generic one either way (the sitting index, the hands' own index).
_SEATS_AND_PREVIOUS_SQL = (
    f"SELECT seats.*, prev.id, prev.version, prev.voided_at FROM ({_SEATS_SQL}) seats "  # noqa: S608
    f"LEFT JOIN (SELECT h.id, h.version, h.voided_at {_LAST_FINISHED} ORDER BY h.number DESC LIMIT 1) prev "
    "ON TRUE ORDER BY seats.number"
).replace("%s", "(SELECT %s::bigint)")

# The last finished hand's id, version and voiding: a finished hand's row changes after that only by its voiding
# (games/services/voiding.py), so these name one value of the columns the area shows (``_HAND``). None: not
# known (no open seat to carry it); (None, None, None): there is no such hand.
_PreviousKey = tuple[int | None, int | None, datetime | None]
# Each table's last hand as read, with its key: the versions of the hand after it show the same one, so it is read
# once a process (and again once voided), not at every version. One entry a table, replaced by its next last hand
# (the hands before a table's last are never shown again); each row kept without its state (``_previous_hand``).
_PREVIOUS_HANDS: ProcessCache[int, tuple[_PreviousKey, Hand]] = ProcessCache("previous hand rows", held=512)


def _previous_hand(table_id: int, number: int, key: _PreviousKey | None) -> Hand | None:
    """The last finished hand of the table before hand ``number``, named by ``key`` (the seats statement's)."""
    if key is not None and key[0] is None:
        return None
    kept = _PREVIOUS_HANDS.get(table_id) if key is not None else None
    if kept is not None and kept[0] == key:
        return copy.copy(kept[1])  # each snapshot its own instance: one given to a ruling may be changed
    found = _previous_hand_read(table_id, number)
    if found is not None:
        held = copy.copy(found)
        # Without its decoded state, most of the row (20-30 KiB): the area renders the hand's section once per
        # process (area.py ``previous hands``), and reads the state again only to render it anew.
        held.state = None
        _PREVIOUS_HANDS.put(table_id, ((found.pk, found.version, found.voided_at), held))
    return found


def previous_hand_state(hand: Hand) -> engine.State:
    """The engine state of a snapshot's previous hand: the one this process keeps, else parsed from the row, read
    again when it was kept without its state (``_previous_hand``)."""
    known = hand_state_kept(hand_id=hand.pk, version=hand.version)
    if known is not None:
        return known
    if hand.state is None:
        hand.state = Hand.objects.values_list("state", flat=True).get(pk=hand.pk)
    return engine.state_from_json(hand.state)


def _previous_hand_read(table_id: int, number: int) -> Hand | None:
    """The last finished hand of the table before hand ``number``."""
    rows = rows_fetch(_PREVIOUS_HAND_SQL, [table_id, number])
    return _HAND.build(rows[0]) if rows else None


def _seats_read(
    table_id: int, club_id: int, before: int
) -> tuple[list[Seat], dict[int, SeatMoney], _PreviousKey | None]:
    """The table's open seats by number, each with its member, the seated members' money (their club balance
    and their net at the table since they sat, ``ledger_selectors.seat_money_join``) and the key of the last
    finished hand before hand ``before`` (None without an open seat), in one statement."""
    seats, money = [], {}
    key: _PreviousKey | None = None
    for row in rows_fetch(_SEATS_AND_PREVIOUS_SQL, [table_id, club_id, table_id, table_id, before]):
        seat, user = rows_split(row[:-5], _SEAT, _USER)
        assert isinstance(seat, Seat) and isinstance(user, User)
        Seat.user.field.set_cached_value(seat, user)  # its own user_id's: what ``seat.user = user`` sets, unchecked
        seats.append(seat)
        balance, net = row[-5:-3]
        if balance is not None:  # a member with no account yet has none
            money[seat.user_id] = SeatMoney(balance=int(balance), sitting_net=int(net))
        key = (row[-3], row[-2], row[-1])
    return seats, money, key
