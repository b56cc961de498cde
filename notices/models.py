"""What a member is told, and how: the "your turn" notices sent (one row per seat, turn and kind), and each
member's Web Push subscriptions and choices.

The three tables were made by games' migrations and keep their names (``games_*``): the models moved here
without touching the data (migrations/0001_moved_from_games.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TurnNotice(models.Model):
    """One email sent about one turn (notices/services/turns.py): at most one of each kind per seat's turn."""

    class Kind(models.TextChoices):
        TURN = "turn", "Your turn"
        REMINDER = "reminder", "Clock running out"

    hand = models.ForeignKey("games.Hand", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    since = models.PositiveIntegerField(help_text="The hand version at which that turn began.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_turnnotice"  # made by games (0004) and kept when the model moved here
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat", "since", "kind"], name="turn_notice_once"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} notice to {self.user} for {self.hand} seat {self.seat}"


class PushSubscription(models.Model):
    """One browser's Web Push subscription of a member (notices/webpush.py): where the push service takes messages
    for it and the keys they are encrypted to (RFC 8291). Removed when the push service says it is gone."""

    ENDPOINT_MAX = 1000

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.CharField(max_length=ENDPOINT_MAX, unique=True)
    p256dh = models.CharField(max_length=100, help_text="The browser's P-256 public key, base64url.")
    auth = models.CharField(max_length=40, help_text="The browser's authentication secret, base64url.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_pushsubscription"  # made by games (0009) and kept when the model moved here

    def __str__(self) -> str:
        return f"push subscription {self.pk} of {self.user_id}"


class PushChoice(models.Model):
    """Which notices a member takes by Web Push, beside their email choices on ``accounts.User``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="push_choice"
    )
    turn = models.BooleanField("Your turn", default=True)
    reminder = models.BooleanField("Your clock runs out soon", default=True)
    digest = models.BooleanField("The daily digest", default=False)

    class Meta:
        db_table = "games_pushchoice"  # made by games (0009) and kept when the model moved here

    def __str__(self) -> str:
        return f"push choices of {self.user_id}"
