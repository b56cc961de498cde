"""SQL of migration 0002: the week rows (clubhouse_weekresult) kept beside the hand results.

Frozen here as the migration wrote it (clubhouse/results.py may move on).
"""

from importlib import import_module

# Migration 0001's frozen fill, read from that migration (its module name starts with a digit).
FILL_0001: str = import_module("clubhouse.migrations.0001_results_seasons_visits").FILL_0001

_WEEK_COLUMNS = """club_id, user_id, game, week, hands, wins, net, biggest, stayed_in, stayed_in_won,
    high, high_won, low, low_won, pig, pig_won, last_win, last_miss"""

# The week sums of result rows ``r`` (a FROM clause naming them r), grouped by member, game and week (UTC).
_WEEK_SUMS = """
SELECT r.club_id, r.user_id, r.game, date_trunc('week', r.finished_at AT TIME ZONE 'UTC')::date AS week,
       COUNT(*), COUNT(*) FILTER (WHERE r.won > 0), SUM(r.net), MAX(r.won),
       COUNT(*) FILTER (WHERE r.decision = 'in'), COUNT(*) FILTER (WHERE r.decision = 'in' AND r.won > 0),
       COUNT(*) FILTER (WHERE r.decision = 'high'), COUNT(*) FILTER (WHERE r.decision = 'high' AND r.won > 0),
       COUNT(*) FILTER (WHERE r.decision = 'low'), COUNT(*) FILTER (WHERE r.decision = 'low' AND r.won > 0),
       COUNT(*) FILTER (WHERE r.decision = 'pig'), COUNT(*) FILTER (WHERE r.decision = 'pig' AND r.won > 0),
       MAX(r.hand_id) FILTER (WHERE r.won > 0), MAX(r.hand_id) FILTER (WHERE r.won = 0)
FROM {source}
GROUP BY r.club_id, r.user_id, r.game, week
"""

_ADD_WEEK = """
ON CONFLICT (club_id, user_id, game, week) DO UPDATE SET
    hands = d.hands + EXCLUDED.hands, wins = d.wins + EXCLUDED.wins, net = d.net + EXCLUDED.net,
    biggest = GREATEST(d.biggest, EXCLUDED.biggest),
    stayed_in = d.stayed_in + EXCLUDED.stayed_in, stayed_in_won = d.stayed_in_won + EXCLUDED.stayed_in_won,
    high = d.high + EXCLUDED.high, high_won = d.high_won + EXCLUDED.high_won,
    low = d.low + EXCLUDED.low, low_won = d.low_won + EXCLUDED.low_won,
    pig = d.pig + EXCLUDED.pig, pig_won = d.pig_won + EXCLUDED.pig_won,
    last_win = GREATEST(d.last_win, EXCLUDED.last_win), last_miss = GREATEST(d.last_miss, EXCLUDED.last_miss)
"""

_INSERTED = FILL_0001.replace("{where}", "h.id = NEW.id").replace(
    "ON CONFLICT (hand_id, user_id) DO NOTHING",
    "ON CONFLICT (hand_id, user_id) DO NOTHING RETURNING hand_id, club_id, user_id, game, finished_at, "
    "decision, won, net")

FINISHED_FUNCTION_0001 = r"""
CREATE OR REPLACE FUNCTION clubhouse_hand_finished() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    """ + FILL_0001.replace("{where}", "h.id = NEW.id") + """;
    RETURN NULL;
END $$;
"""

# The hand's result rows, and the same rows added to their weeks, in one statement.
FINISHED_FUNCTION_0002 = r"""
CREATE OR REPLACE FUNCTION clubhouse_hand_finished() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    WITH inserted AS (""" + _INSERTED + """)
    INSERT INTO clubhouse_weekresult AS d (""" + _WEEK_COLUMNS + """)
    """ + _WEEK_SUMS.replace("{source}", "inserted r") + _ADD_WEEK + """;
    RETURN NULL;
END $$;
"""

# A voided hand (games.services.voiding.hand_void sets voided_at) leaves its weeks: they are summed again without it.
VOIDED_TRIGGER = r"""
CREATE FUNCTION clubhouse_hand_voided() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    DELETE FROM clubhouse_weekresult d USING clubhouse_handresult v
     WHERE v.hand_id = NEW.id AND d.club_id = v.club_id AND d.user_id = v.user_id AND d.game = v.game
       AND d.week = date_trunc('week', v.finished_at AT TIME ZONE 'UTC')::date;
    INSERT INTO clubhouse_weekresult AS d (""" + _WEEK_COLUMNS + """)
    """ + _WEEK_SUMS.replace("{source}", """clubhouse_handresult r
      JOIN games_hand h ON h.id = r.hand_id AND h.voided_at IS NULL
     WHERE (r.club_id, r.user_id, r.game, date_trunc('week', r.finished_at AT TIME ZONE 'UTC')::date) IN (
         SELECT v.club_id, v.user_id, v.game, date_trunc('week', v.finished_at AT TIME ZONE 'UTC')::date
           FROM clubhouse_handresult v WHERE v.hand_id = NEW.id)""") + """;
    RETURN NULL;
END $$;

CREATE TRIGGER clubhouse_hand_voided AFTER UPDATE OF voided_at ON games_hand
    FOR EACH ROW WHEN (NEW.voided_at IS NOT NULL AND OLD.voided_at IS NULL)
    EXECUTE FUNCTION clubhouse_hand_voided();
"""

UNVOIDED_TRIGGER = r"""
DROP TRIGGER IF EXISTS clubhouse_hand_voided ON games_hand;
DROP FUNCTION IF EXISTS clubhouse_hand_voided();
"""

BACKFILL_WEEKS = "INSERT INTO clubhouse_weekresult AS d (" + _WEEK_COLUMNS + ")" + _WEEK_SUMS.replace(
    "{source}", "clubhouse_handresult r JOIN games_hand h ON h.id = r.hand_id AND h.voided_at IS NULL") + _ADD_WEEK
