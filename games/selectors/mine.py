"""My tables: every table of the member's clubs where they sit (a finished game's too, until they leave), what needs them first, and
those whose hand waits for them (the header's count, the "Next turn" link)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import engine
from accounts.models import Club, Membership, User
from games.models import Hand, HandAction, Seat, Table
from games.selectors.hands import hand_sealed_open, hand_seat_of
from games.selectors.states import hand_state
from games.timing.turn_clock import clock_deadline


@dataclass(frozen=True)
class MyTableRow:
    table: Table
    hand: Hand | None
    to_act_names: list[str]
    my_turn: bool
    deadline: datetime | None  # the clock the member may see: none of another seat's during a sealed decision
    pot: int | None
    last_event: engine.Event | None  # the last line of the table's public log (None before the first hand)
    seat_names: dict[int, str]  # the shown name of each seat dealt into the hand
    last_at: datetime


def my_tables(*, user: User) -> list[MyTableRow]:
    """The tables of the member's clubs (memberships now) where they hold a seat: those awaiting
    them first (soonest clock first), then the others (latest activity first). Four queries (tables, hands, last
    actions, names), whatever the number of tables."""
    clubs = Membership.objects.filter(user=user).values("club_id")
    tables = list(
        # A finished game stays while they sit there: a seated player deals the next one at the same table.
        Table.objects.filter(club_id__in=clubs, seats__user=user, seats__left_at__isnull=True)
        .select_related("club")
        .distinct()
    )
    ids = [t.pk for t in tables]
    hands = {
        h.table_id: h for h in Hand.objects.filter(table_id__in=ids, finished_at__isnull=True, voided_at__isnull=True)
    }
    last_acts = dict(
        HandAction.objects.filter(hand__in=hands.values())
        .order_by("hand_id", "-sequence")
        .distinct("hand_id")
        .values_list("hand_id", "created_at")
    )
    names = _names(ids, hands.values())
    rows = [_row(t, hands.get(t.pk), user, names, last_acts) for t in tables]
    waiting = sorted(
        (r for r in rows if r.my_turn), key=lambda r: (r.deadline is None, r.deadline or r.last_at, r.table.pk)
    )
    others = sorted((r for r in rows if not r.my_turn), key=lambda r: (r.last_at, r.table.pk), reverse=True)
    return waiting + others


def _names(table_ids: list[int], hands: Iterable[Hand]) -> dict[int, str]:
    """Shown names by user id: of everyone seated at the tables or dealt into their hands (one query)."""
    dealt = {int(u) for h in hands for u in h.players.values()}
    seated = Seat.objects.filter(table_id__in=table_ids, left_at__isnull=True).values("user_id")
    return {u.pk: u.shown_name for u in User.objects.filter(pk__in=seated) | User.objects.filter(pk__in=dealt)}


def _row(
    table: Table, hand: Hand | None, user: User, names: dict[int, str], last_acts: dict[int, datetime]
) -> MyTableRow:
    if hand is None:
        return MyTableRow(
            table=table,
            hand=None,
            to_act_names=[],
            my_turn=False,
            deadline=None,
            pot=None,
            last_event=None,
            seat_names={},
            last_at=table.created_at,
        )
    state = hand_state(hand)
    view = engine.view(state, None)  # the spectator's view: no hidden card, no sealed choice
    seat_names = {int(seat): names.get(int(uid), f"Seat {seat}") for seat, uid in hand.players.items()}
    awaited = list(engine.to_act(state))
    mine = [s for s in awaited if int(hand.players.get(str(s), 0)) == user.pk]
    sealed = hand_sealed_open(hand=hand)
    shown = mine if sealed else awaited  # another seat's clock would tell a timeout while sealed
    deadlines = [_deadline(hand, s) for s in shown]
    return MyTableRow(
        table=table,
        hand=hand,
        to_act_names=[seat_names.get(s, f"Seat {s}") for s in awaited],
        my_turn=bool(mine),
        deadline=min((d for d in deadlines if d is not None), default=None),
        pot=view.pot,
        last_event=view.events[-1] if view.events else None,
        seat_names=seat_names,
        last_at=last_acts.get(hand.pk, hand.started_at),
    )


def _deadline(hand: Hand, seat: int) -> datetime | None:
    entry = (hand.clocks or {}).get(str(seat))
    return clock_deadline(entry) if entry else hand.deadline


@dataclass(frozen=True)
class HandWaiting:
    hand: Hand  # with its table and the table's club
    seat: int  # the member's seat in it
    deadline: datetime  # the member's own clock


def hands_waiting_for(*, user: User, club: Club | None = None, practice: bool = True) -> list[HandWaiting]:
    """The hands in play that await ``user``'s decision, at tables of the member's clubs (memberships now;
    only ``club``'s when given) where they sit: the soonest hand's clock first (then the oldest table). A
    hand keeps a clock for each seat whose decision it awaits (games/services/clocks.py ``turn_clocks``), so
    the member's clock says it waits for them. ``practice=False`` leaves out practice tables. One query."""
    hands = Hand.objects.filter(
        finished_at__isnull=True,
        voided_at__isnull=True,
        table__club_id__in=Membership.objects.filter(user=user).values("club_id"),
        table__seats__user=user,
        table__seats__left_at__isnull=True,
    )
    if club is not None:
        hands = hands.filter(table__club=club)
    if not practice:
        hands = hands.filter(table__practice=False)
    out = []
    for hand in hands.select_related("table__club").distinct().order_by("deadline", "table_id"):
        seat = hand_seat_of(hand=hand, user=user)
        entry = (hand.clocks or {}).get(str(seat))
        if seat is not None and entry:
            out.append(HandWaiting(hand=hand, seat=seat, deadline=clock_deadline(entry)))
    return out


def tables_my_turn(*, user: User) -> list[Table]:
    """Tables of the member's clubs whose hand in play awaits their decision, the soonest clock first (then
    the oldest table)."""
    return [waiting.hand.table for waiting in hands_waiting_for(user=user)]
