"""The hand's results read its action log and its books once a hand, not once a seat.

``clubhouse_hand_finished`` (migrations 0001 and 0002) found each seat's decision by expanding every event
of every action of the hand, once a seat, and its money by reading every posting of the member's account
(all of their history) to keep the hand's. ``FILL_0004`` writes the same rows reading each once a hand: the
opened sealed decisions picked from the hand's actions by one JSON path, and the hand's journal entries'
postings to member accounts summed by member; and its plan is kept (below). The function keeps its owner's
rights and search path; the practice guard (0003) still drops a practice hand's rows. Reverse: 0002's function.

Frozen here as written; clubhouse/results.py runs this same text for its backfill.
"""

from django.db import migrations

from clubhouse.migrations import _week_sql as week_sql

# The result rows of the finished hands {where} names (h: games_hand, t: its table).
FILL_0004 = r"""
INSERT INTO clubhouse_handresult (hand_id, club_id, user_id, game, seat, finished_at, decision, won, net)
SELECT h.id, t.club_id, p.value::bigint, rs.game, p.key::int, h.finished_at,
       COALESCE(d.decision, ''), COALESCE(m.won, 0), COALESCE(m.net, 0)
FROM games_hand h
JOIN games_table t ON t.id = h.table_id
JOIN games_rulesetversion v ON v.id = h.rule_version_id
JOIN games_ruleset rs ON rs.id = v.rule_set_id
CROSS JOIN LATERAL jsonb_each_text(h.players) AS p(key, value)
LEFT JOIN (
    SELECT DISTINCT ON (a.hand_id, (o ->> 'seat')::int) a.hand_id, (o ->> 'seat')::int AS seat,
           o ->> 'decision' AS decision
    FROM games_handaction a
    CROSS JOIN LATERAL jsonb_path_query(
        a.events, '$[*] ? (@.kind == "drop_open" || @.kind == "declare_open").decisions[*]') AS o
    ORDER BY a.hand_id, (o ->> 'seat')::int, a.sequence
) d ON d.hand_id = h.id AND d.seat = p.key::int
LEFT JOIN (
    SELECT je.hand_id, ac.user_id, SUM(po.amount) FILTER (WHERE je.kind = 'award') AS won, SUM(po.amount) AS net
    FROM ledger_journalentry je
    JOIN ledger_posting po ON po.entry_id = je.id
    JOIN ledger_account ac ON ac.id = po.account_id
    WHERE je.reverses_id IS NULL AND ac.kind = 'member'
    GROUP BY je.hand_id, ac.user_id
) m ON m.hand_id = h.id AND m.user_id = p.value::bigint
WHERE h.finished_at IS NOT NULL AND {where}
ON CONFLICT (hand_id, user_id) DO NOTHING
"""

# PostgreSQL pushes the trigger's "h.id = NEW.id" into both subqueries (the hand's id is their first
# column), so each reads the one hand's actions and entries by its index; a backfill's {where} leaves them
# whole, each read in one pass.

_INSERTED = FILL_0004.replace("{where}", "h.id = NEW.id").replace(
    "ON CONFLICT (hand_id, user_id) DO NOTHING",
    "ON CONFLICT (hand_id, user_id) DO NOTHING RETURNING hand_id, club_id, user_id, game, finished_at, "
    "decision, won, net",
)

# The hand's result rows, and the same rows added to their weeks, in one statement (as in 0002). Its plan is
# made once a connection and kept (plan_cache_mode, for this function's calls only): left to choose, PostgreSQL
# planned it afresh at every hand end (its generic plan's estimate is above a planned one's), 1.4-1.8 ms of its
# CPU each time, more than the statement's run (bench/hand_results.py); the kept plan reads the hand's rows by
# their indexes as well (EXPLAIN (GENERIC_PLAN) on a played database).
FINISHED_FUNCTION_0004 = (
    r"""
CREATE OR REPLACE FUNCTION clubhouse_hand_finished() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    WITH inserted AS ("""
    + _INSERTED
    + """)
    INSERT INTO clubhouse_weekresult AS d ("""
    + week_sql._WEEK_COLUMNS
    + """)
    """
    + week_sql._WEEK_SUMS.replace("{source}", "inserted r")
    + week_sql._ADD_WEEK
    + """;
    RETURN NULL;
END $$;
"""
)


class Migration(migrations.Migration):
    dependencies = [
        ("clubhouse", "0003_practice_results_guard"),
    ]

    operations = [migrations.RunSQL(FINISHED_FUNCTION_0004, week_sql.FINISHED_FUNCTION_0002)]
