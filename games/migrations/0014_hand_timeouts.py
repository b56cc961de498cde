from django.db import migrations, models

# Each hand's timed-out actions from its log: the line where the action's events begin (the deal's events,
# then every earlier action's) and its first event's kind.
_FILL = """
UPDATE games_hand h SET timeouts = (
    SELECT jsonb_agg(jsonb_build_array(a.line, a.kind) ORDER BY a.sequence)
    FROM (
        SELECT sequence, is_timeout, events -> 0 ->> 'kind' AS kind,
            CASE jsonb_typeof(h.deal_events) WHEN 'array' THEN jsonb_array_length(h.deal_events) ELSE 0 END
            + COALESCE(SUM(CASE jsonb_typeof(events) WHEN 'array' THEN jsonb_array_length(events) ELSE 0 END)
                OVER (ORDER BY sequence ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS line
        FROM games_handaction WHERE hand_id = h.id
    ) a
    WHERE a.is_timeout
)
WHERE EXISTS (SELECT 1 FROM games_handaction x WHERE x.hand_id = h.id AND x.is_timeout)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_deck_queue_and_cuts"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="timeouts",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text=(
                    "Per action a clock or an away member's default took, in order: [the line of the hand's log "
                    "where its events begin, its first event's kind] (the log's timeout marks, "
                    "games/presentation/presenters.py)."
                ),
            ),
        ),
        migrations.RunSQL(_FILL, migrations.RunSQL.noop),
    ]
