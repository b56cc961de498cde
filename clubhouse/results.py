"""Each player's result of a finished hand, written by SQL from the action log and the ledger.

A deferred trigger on the hand (migration 0001; its statement now migration 0004's) runs ``FILL``
for it when the transaction that finished it commits, so the hand's last action and postings are
in, and adds the rows to the member's week (``WeekResult``, migration 0002);
``hand_results_backfill`` does both for every finished hand without rows.

The decision is the player's entry in the hand's opened sealed decisions (the ``drop_open``
or ``declare_open`` event of the action log); ``won`` is the sum of the hand's award
postings to the player's member account and ``net`` the sum of all of that hand's postings
to it (antes, blinds, bets and pot matches paid, pots won). Voids are not applied here:
the statistics leave out voided hands when they read (clubhouse/selectors.py).
"""

from __future__ import annotations

from importlib import import_module

from django.db import connection

# The statement as the newest migration that changed it wrote it (its trigger runs it with
# {where} = "h.id = NEW.id"): one text for the trigger and the backfill; a change is a new migration.
FILL: str = import_module("clubhouse.migrations.0004_hand_results_read_once").FILL_0004


def hand_results_backfill(*, club_id: int | None = None) -> int:
    """Write the result rows of every finished hand that has none yet (of one club's tables, with
    ``club_id``: an import touches no other club's figures), and add them to their weeks (migrations,
    benchmarks, imports). Returns how many result rows there are."""
    from .migrations._week_sql import _ADD_WEEK, _WEEK_COLUMNS, _WEEK_SUMS

    where = "NOT EXISTS (SELECT 1 FROM clubhouse_handresult x WHERE x.hand_id = h.id)"
    if club_id is not None:
        where += f" AND t.club_id = {int(club_id)}"
    inserted = FILL.format(where=where)
    inserted = inserted.replace(
        "ON CONFLICT (hand_id, user_id) DO NOTHING",
        "ON CONFLICT (hand_id, user_id) DO NOTHING RETURNING hand_id, club_id, user_id, game, finished_at, "
        "decision, won, net, (SELECT voided_at FROM games_hand WHERE id = hand_id) AS voided_at",
    )
    sql = (
        f"WITH inserted AS ({inserted}) INSERT INTO clubhouse_weekresult AS d ({_WEEK_COLUMNS}) "
        + _WEEK_SUMS.replace("{source}", "inserted r WHERE r.voided_at IS NULL")
        + _ADD_WEEK
        + " RETURNING 0"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        cursor.execute("SELECT count(*) FROM clubhouse_handresult")
        return int(cursor.fetchone()[0])
