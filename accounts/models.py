"""Members, clubs and who belongs where."""

from __future__ import annotations

from datetime import date, datetime, time

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower

from .zones import validate_time_zone


class User(AbstractUser):
    """A member of one or more clubs. Log in by username; email is unique when given."""

    display_name = models.CharField(max_length=60, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])  # choices: forms

    # Asynchronous play (games/timing/turn_clock.py, notices/services/turns.py).
    class TurnNotices(models.TextChoices):
        EACH = "each", "An email each time it is my turn"
        DIGEST = "digest", "One daily digest of the tables waiting for me"
        OFF = "off", "No emails"

    away = models.BooleanField(
        default=False, help_text="While away, your turns take the default action at once (check if free, else fold)."
    )
    quiet_start: models.TimeField[time | None, time | None] = models.TimeField(
        null=True, blank=True, help_text="Daily quiet hours in your time zone: your turn clock does not run."
    )
    quiet_end: models.TimeField[time | None, time | None] = models.TimeField(null=True, blank=True)
    turn_notices = models.CharField(max_length=6, choices=TurnNotices.choices, default=TurnNotices.EACH)
    turn_reminder = models.BooleanField(default=True, help_text="An email shortly before your turn clock runs out.")
    digest_sent_on: models.DateField[date | None, date | None] = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(quiet_start__isnull=True, quiet_end__isnull=True)
                | models.Q(quiet_start__isnull=False, quiet_end__isnull=False),
                name="user_quiet_hours_both_or_neither",
            ),
            models.UniqueConstraint(
                Lower("email"),
                name="user_email_unique_ci",
                condition=~models.Q(email=""),
                violation_error_message="That email address belongs to another account.",
            ),
        ]

    def __str__(self) -> str:
        return self.shown_name

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username


class Club(models.Model):
    name = models.CharField(max_length=80)
    currency = models.CharField(max_length=3, default="USD", help_text="ISO 4217 code, e.g. USD, EUR, GBP.")
    credit_limit = models.BigIntegerField(
        default=10_000,
        help_text="In cents: how far below zero a member may go and still sit down.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members: models.ManyToManyField[User, Membership] = models.ManyToManyField(
        User, through="Membership", related_name="clubs"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(credit_limit__gte=0), name="club_credit_limit_not_negative"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ORGANISER = "organiser", "Organiser"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "club"], name="membership_one_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"

    @property
    def is_organiser(self) -> bool:
        return self.role == self.Role.ORGANISER


class Invitation(models.Model):
    """A single-use, expiring invitation to one club, by email or as a shareable link."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    email = models.EmailField(blank=True)
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)

    # Set (not stored) when the invitation mail could not be sent after the invitation was saved.
    mail_failed = False

    class Meta:
        constraints = [
            # Used means used by someone; an invitation is used or revoked, never both.
            models.CheckConstraint(
                condition=models.Q(used_at__isnull=True, used_by__isnull=True)
                | models.Q(used_at__isnull=False, used_by__isnull=False),
                name="invitation_used_by_with_used_at",
            ),
            models.CheckConstraint(
                condition=models.Q(used_at__isnull=True) | models.Q(revoked_at__isnull=True),
                name="invitation_not_used_and_revoked",
            ),
        ]
        indexes = [models.Index(fields=["club", "expires_at"], name="invitation_club_expiry")]

    def __str__(self) -> str:
        return f"Invitation to {self.club} ({self.email or 'link'})"

    def is_pending(self, *, now: datetime) -> bool:
        """Neither used nor revoked, and not yet expired."""
        return self.used_at is None and self.revoked_at is None and now < self.expires_at


class ApiToken(models.Model):
    """A member's key to the read-only JSON API (games/api). Only its SHA-256 is stored; the key
    itself is shown once, when it is made. It reads what its member may read, in their clubs."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to tell keys apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-id"], name="api_token_user_recent")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"


class DeviceKey(models.Model):
    """A browser's public key, registered by its member to sign their cuts of the deal (docs/fairness.md).

    The private key never leaves the browser (WebCrypto, not extractable). Never edited or deleted: a device
    is at most marked retired, and PostgreSQL holds that (accounts migration 0007), as it sets
    ``registered_at`` by its own clock, checks the fingerprint and keeps at most five active a member."""

    user = models.ForeignKey(User, on_delete=models.PROTECT, related_name="device_keys")
    n = models.CharField(max_length=512, help_text="The RSA modulus, 2048 bits, lowercase hex.")
    e = models.PositiveIntegerField(default=65537)
    fingerprint = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the public key, hex.")
    label = models.CharField(max_length=60, blank=True)
    registered_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "registered_at"], name="device_key_user_time")]

    def __str__(self) -> str:
        return f"device {self.fingerprint[:16]} of {self.user}"

    @property
    def short(self) -> str:
        """The first 16 hex digits of the fingerprint in four groups, as members compare them."""
        return " ".join(self.fingerprint[k : k + 4] for k in range(0, 16, 4))
