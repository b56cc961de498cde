"""Reads of a table's seats: who sits where now, which chairs are free."""

from __future__ import annotations

from accounts.models import User
from games.models import Seat, Table


def table_seats(*, table: Table) -> list[Seat]:
    return list(table.seats.filter(left_at__isnull=True).select_related("user").order_by("number"))


def seat_of(*, table: Table, user: User) -> Seat | None:
    return table.seats.filter(user=user, left_at__isnull=True).first()


def free_seats(*, table: Table) -> list[int]:
    taken = set(table.seats.filter(left_at__isnull=True).values_list("number", flat=True))
    return [n for n in range(1, table.rule_version.max_seats + 1) if n not in taken]
