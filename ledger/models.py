"""Double-entry books: accounts, journal entries and postings in integer cents.

Sign convention: a posting's amount is what the account gains. A member's
balance above zero means the club's books owe them (they are up); below zero,
they owe (they are down). A table pot account holds the chips in that table's
pot (a carried pot stays there). Across a club every balance sums to zero.

PostgreSQL guards the books (migrations 0002 and 0007):
- entries, postings and rulings are insert-only (UPDATE and DELETE raise);
- every entry's postings sum to zero, checked at commit (deferred trigger);
- an entry's postings are made in the transaction that made the entry (it is
  stamped with that transaction, in columns of the database's own), so no
  posting is ever added to an entry of an earlier transaction;
- a posting insert updates its account's balance and stamps the posting with
  the account's next sequence number and the balance after it, under the
  account's row lock, so balances lose no update and the running balance of
  a statement is stored, not recomputed;
- an account's balance can't be changed except by a posting.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class EntryKind(models.TextChoices):
    ANTE = "ante", "Ante"
    BLIND = "blind", "Blind"
    BET = "bet", "Bet"
    AWARD = "award", "Pot won"
    MATCH_PAYMENT = "match_payment", "Pot match"
    SETTLEMENT = "settlement", "Settlement"
    ADJUSTMENT = "adjustment", "Ruling: adjustment"
    VOID = "void", "Ruling: hand voided"
    POT_RETURN = "pot_return", "Ruling: pot returned"


#: chip-event kinds of the engine that move chips (with PAY_KINDS of engine/events.py, seat -> table pot)
AWARD_KINDS = frozenset({"award"})  # table pot -> seat


class ClubLedgerSettings(models.Model):
    """Per-club ledger settings the organisers set (accounts models stay untouched)."""

    club = models.OneToOneField("accounts.Club", on_delete=models.CASCADE, related_name="ledger_settings")
    settlement_max = models.BigIntegerField(
        default=1_000_00, help_text="In cents: the largest single settlement the club accepts."
    )

    class Meta:
        verbose_name = "club ledger settings"
        verbose_name_plural = "club ledger settings"
        constraints = [
            models.CheckConstraint(condition=models.Q(settlement_max__gt=0), name="ledger_settlement_max_positive"),
        ]

    def __str__(self) -> str:
        return f"Ledger settings of {self.club}"


class Account(models.Model):
    class Kind(models.TextChoices):
        MEMBER = "member", "Member"
        TABLE_POT = "table_pot", "Table pot"

    club = models.ForeignKey("accounts.Club", on_delete=models.PROTECT, related_name="ledger_accounts")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    table = models.ForeignKey(
        "games.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    # Maintained by the posting trigger only (migration 0002); constant-time reads.
    balance = models.BigIntegerField(default=0, editable=False)
    last_seq = models.BigIntegerField(default=0, editable=False, help_text="Sequence number of its latest posting.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club", "user"], condition=models.Q(kind="member"), name="ledger_account_one_per_member"
            ),
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(kind="table_pot"), name="ledger_account_one_pot_per_table"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="member", user__isnull=False, table__isnull=True)
                    | models.Q(kind="table_pot", user__isnull=True, table__isnull=False)
                ),
                name="ledger_account_kind_matches_owner",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.MEMBER and self.user is not None:
            return f"{self.user.shown_name}"
        return f"Pot of {self.table}"


class Ruling(models.Model):
    """An organiser's ruling ("Rob is right"): an adjustment or a voided hand, always with a reason."""

    class Kind(models.TextChoices):
        ADJUSTMENT = "adjustment", "Adjustment"
        VOID_HAND = "void_hand", "Hand voided"
        CLOSE_TABLE = "close_table", "Table closed"

    club = models.ForeignKey("accounts.Club", on_delete=models.PROTECT, related_name="ledger_rulings")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    reason = models.TextField()
    ruled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    hand = models.ForeignKey("games.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The table a closing ruling closed.",
    )
    amount = models.BigIntegerField(
        null=True, blank=True, help_text="Cents moved by an adjustment, or returned when a table closed."
    )
    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="ledger_ruling_has_reason"),
            models.UniqueConstraint(
                fields=["hand"], condition=models.Q(kind="void_hand"), name="ledger_ruling_void_once"
            ),
        ]
        indexes = [models.Index(fields=["club", "-created_at", "-id"], name="ledger_ruling_club_recent")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} by {self.ruled_by} ({self.created_at:%Y-%m-%d})"


class JournalEntry(models.Model):
    # Indexed by ``ledger_entry_club_id`` (club, id) below.
    club = models.ForeignKey("accounts.Club", on_delete=models.PROTECT, related_name="journal_entries", db_index=False)
    kind = models.CharField(max_length=16, choices=EntryKind.choices)
    memo = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    table = models.ForeignKey("games.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    hand = models.ForeignKey("games.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    game = models.CharField(max_length=10, blank=True, help_text="The table's game, kept for filtering.")
    reverses = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by")
    ruling = models.ForeignKey(Ruling, on_delete=models.PROTECT, null=True, blank=True, related_name="entries")
    settlement = models.OneToOneField(
        "Settlement", on_delete=models.PROTECT, null=True, blank=True, related_name="entry"
    )

    class Meta:
        verbose_name_plural = "journal entries"
        indexes = [models.Index(fields=["club", "id"], name="ledger_entry_club_id")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} {self.created_at:%Y-%m-%d %H:%M}"


class Posting(models.Model):
    """One line of an entry. `seq`, `balance_after` and the copied entry fields are stamped by the trigger."""

    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, related_name="postings")
    # Indexed by the unique (account, seq) constraint, which also serves the statement.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings", db_index=False)
    amount = models.BigIntegerField()
    # Stamped by the insert trigger (migration 0002) under the account's row lock:
    seq = models.BigIntegerField(default=0, editable=False)
    balance_after = models.BigIntegerField(default=0, editable=False)
    # Copied from the entry by the same trigger, so a statement filters on one index; the entry's own keys are
    # checked at the commit, not again for each posting (migration 0008):
    club = models.ForeignKey(
        "accounts.Club",
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
        editable=False,
        db_index=False,
        db_constraint=False,
    )
    created_at = models.DateTimeField(null=True, editable=False)
    kind = models.CharField(max_length=16, blank=True, editable=False)
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        db_index=False,
        db_constraint=False,
    )
    game = models.CharField(max_length=10, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~models.Q(amount=0), name="ledger_posting_amount_not_zero"),
            models.UniqueConstraint(fields=["account", "seq"], name="ledger_posting_account_seq"),
        ]
        # A statement pages by (account, seq) backwards on the unique index and reads the
        # stored running balance; a club-wide export pages by (club, id). A seat's money at a
        # table (ledger.selectors.seat_money_join, read with every version of a hand) sums the
        # member's postings there since they sat from the sitting index alone: only those
        # entries, not every posting of the member's history (docs/live.md "Machinery").
        indexes = [
            models.Index(fields=["club", "id"], name="ledger_posting_club_id"),
            models.Index(fields=["club", "created_at"], name="ledger_posting_club_time"),
            models.Index(fields=["account", "table", "created_at"], include=["amount"], name="ledger_posting_sitting"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} to {self.account_id}"


class Settlement(models.Model):
    """Cash paid between two members outside the books; confirmed, it posts one entry."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the receiver"
        CONFIRMED = "confirmed", "Confirmed"
        DECLINED = "declined", "Declined"

    club = models.ForeignKey("accounts.Club", on_delete=models.PROTECT, related_name="settlements")
    payer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    paid_on = models.DateField()
    note = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="ledger_settlement_amount_positive"),
            models.CheckConstraint(condition=~models.Q(payer=models.F("payee")), name="ledger_settlement_two_people"),
        ]
        indexes = [models.Index(fields=["club", "status", "-id"], name="ledger_settlement_club_status")]

    def __str__(self) -> str:
        return f"{self.payer} paid {self.payee} {self.amount} ({self.status})"
