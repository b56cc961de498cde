"""The clubhouse: each player's result of each finished hand, seasons, and when a member last caught up.

`HandResult` is one row per player of a finished hand, written by SQL from the hand's
action log (the opened drop or declaration) and the ledger (what the hand paid them and
cost them) when the hand finishes (clubhouse/results.py). Statistics are aggregates over
it in PostgreSQL; the books stay the authority for money.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class HandResult(models.Model):
    hand = models.ForeignKey("games.Hand", on_delete=models.CASCADE, related_name="+")
    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    game = models.CharField(max_length=10)
    seat = models.PositiveSmallIntegerField()
    finished_at = models.DateTimeField()
    # The opened sealed decision: Piranha "in"/"out", Piles "high"/"low"/"pig"/"fold";
    # empty when the hand ended before it (everyone else folded in a betting round).
    decision = models.CharField(max_length=8, blank=True)
    won = models.BigIntegerField(help_text="Cents the hand's pot paid this player.")
    net = models.BigIntegerField(help_text="Cents this player's balance moved in this hand (won less paid).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "user"], name="clubhouse_result_once_per_player"),
        ]
        indexes = [
            # the club's table over a period, and each member's rows in dealing order (streaks)
            models.Index(fields=["club", "finished_at"], name="clubhouse_result_club_time"),
            models.Index(fields=["club", "user", "game", "hand"], name="clubhouse_result_member"),
            # a member's hands over a period (the day-by-day chart, the night's summary)
            models.Index(fields=["club", "user", "finished_at"], name="clubhouse_result_member_time"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in hand {self.hand_id}: {self.net:+d}"


class Season(models.Model):
    """A stretch of a club's play that an organiser opens and closes; results read per season."""

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=80)
    opened_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club"], condition=models.Q(closed_at__isnull=True), name="clubhouse_one_open_season"
            ),
            models.CheckConstraint(condition=~models.Q(name=""), name="clubhouse_season_has_name"),
            models.CheckConstraint(
                condition=models.Q(closed_at__isnull=True) | models.Q(closed_at__gte=models.F("opened_at")),
                name="clubhouse_season_closes_after_opening",
            ),
        ]
        ordering = ["-opened_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class ClubVisit(models.Model):
    """When a member last said they were caught up on a club (the night's summary starts there)."""

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="clubhouse_visit_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} caught up on {self.club_id} at {self.seen_at:%Y-%m-%d %H:%M}"


class WeekResult(models.Model):
    """One member's results at one game in one week (Monday to Sunday, UTC): the sums of that
    week's ``HandResult`` rows of hands not voided, kept by the same triggers (migration 0002), so
    a table over years reads a row a week instead of a row a hand."""

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    game = models.CharField(max_length=10)
    week = models.DateField(help_text="The Monday (UTC) of the week the hands finished.")
    hands = models.IntegerField()
    wins = models.IntegerField()
    net = models.BigIntegerField()
    biggest = models.BigIntegerField()
    stayed_in = models.IntegerField()
    stayed_in_won = models.IntegerField()
    high = models.IntegerField()
    high_won = models.IntegerField()
    low = models.IntegerField()
    low_won = models.IntegerField()
    pig = models.IntegerField()
    pig_won = models.IntegerField()
    last_win = models.BigIntegerField(null=True, help_text="The latest hand id won that week.")
    last_miss = models.BigIntegerField(null=True, help_text="The latest hand id not won that week.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user", "game", "week"], name="clubhouse_week_once"),
        ]
        indexes = [models.Index(fields=["club", "week"], name="clubhouse_week_club_week")]

    def __str__(self) -> str:
        return f"{self.user_id} in the week of {self.week}: {self.net:+d}"
