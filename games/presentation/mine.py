"""My tables as shown (templates/games/_my_tables.html): the selector's rows (games/selectors/mine.py)
with the last line of each table's public log in words."""

from __future__ import annotations

from dataclasses import dataclass, fields

from accounts.models import User
from games.presentation.words import event_words
from games.selectors.mine import MyTableRow, my_tables


@dataclass(frozen=True)
class MyTableShown(MyTableRow):
    last_words: str  # the last line of the table's public log ("" before the first hand)


def my_tables_shown(*, user: User) -> list[MyTableShown]:
    """``my_tables`` in the same order, each row with its last line in words."""
    return [
        MyTableShown(**{f.name: getattr(row, f.name) for f in fields(row)}, last_words=_last_words(row))
        for row in my_tables(user=user)
    ]


def _last_words(row: MyTableRow) -> str:
    if row.last_event is None:
        return ""
    return event_words(row.last_event, names=row.seat_names, currency=row.table.club.currency)
