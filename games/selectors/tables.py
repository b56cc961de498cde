"""Reads of a club's tables: one table, who may watch it, the lobby's lists and the API's pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from accounts.models import Club, User
from games.models import Hand, Seat, Table
from games.selectors.hands import hand_seat_of, hand_to_act
from games.selectors.seating import seat_of, table_seats
from ledger.paging import keyset_page


def table_get(*, table_id: int) -> Table | None:
    return Table.objects.select_related("club", "rule_version__rule_set", "created_by").filter(pk=table_id).first()


def table_may_watch(*, table: Table, user: User, hand: Hand | None = None) -> bool:
    """Who sees a table (pages and sockets alike): anyone in the club where the house rules allow
    spectators; otherwise its seated players and those dealt into ``hand``."""
    if table.practice:  # its member's alone, closed or not
        return table.created_by_id == user.pk
    if table.rule_version.spectators_allowed:
        return True
    if seat_of(table=table, user=user) is not None:
        return True
    return hand is not None and hand_seat_of(hand=hand, user=user) is not None


@dataclass(frozen=True)
class LobbyRow:
    table: Table
    seats: list[Seat]
    hand: Hand | None
    to_act_names: list[str]
    my_turn: bool = False  # the hand in play awaits the viewer's decision
    seated: bool = False  # the viewer holds a seat at the table


def table_list_open(*, club: Club, user: User | None = None) -> list[LobbyRow]:
    """Open and running tables of a club with their seats and whose turn it is.

    With ``user``: the tables whose hand awaits them first, then those where they sit, then the rest;
    newest first within each group.
    """
    tables = list(
        Table.objects.filter(_not_others_practice(user), club=club)
        .exclude(status=Table.Status.FINISHED)
        .select_related("rule_version__rule_set")
        .order_by("-created_at")
    )
    rows = [_lobby_row(t, user) for t in tables]
    return sorted(rows, key=lambda r: 0 if r.my_turn else 1 if r.seated else 2)  # stable: keeps newest first


def _not_others_practice(user: User | None) -> Q:
    """Money tables, and the practice tables ``user`` opened (another member's practice is theirs alone)."""
    return Q(practice=False) | Q(created_by_id=user.pk if user is not None else None)


def table_list_finished(*, club: Club, user: User | None = None, limit: int = 20) -> list[Table]:
    return list(
        Table.objects.filter(_not_others_practice(user), club=club, status=Table.Status.FINISHED)
        .select_related("rule_version__rule_set")
        .order_by("-finished_at")[:limit]
    )


def _lobby_row(table: Table, user: User | None = None) -> LobbyRow:
    seats = table_seats(table=table)
    hand = table.hands.filter(finished_at__isnull=True).first()
    names: list[str] = []
    my_turn = False
    if hand is not None:
        by_seat = {s.number: s.user.shown_name for s in seats}
        to_act = hand_to_act(hand=hand)
        names = [by_seat.get(n, f"Seat {n}") for n in to_act]
        my_turn = user is not None and hand_seat_of(hand=hand, user=user) in to_act
    seated = user is not None and any(s.user_id == user.pk for s in seats)
    return LobbyRow(table=table, seats=seats, hand=hand, to_act_names=names, my_turn=my_turn, seated=seated)


TABLE_PAGE_SIZE = 50


def table_page(*, club: Club, before: int | None = None, size: int = TABLE_PAGE_SIZE) -> tuple[list[Table], int | None]:
    """One page of every table of the club (open, running and finished), newest first, paged by key (the
    table's id): those below ``before``. Returns the page and the ``before`` of the next page, or None."""
    return keyset_page(
        Table.objects.filter(club=club, practice=False).select_related("rule_version__rule_set"),
        key="pk",
        before=before,
        size=size,
    )
