"""Rule-set agreements, tables, seats, hands and the action log.

The hand's `state` is the engine's plain-data state (JSON); the log of
`HandAction` rows replays to it (docs/design.md, "Engine contract").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Game(models.TextChoices):
    PIRANHA = "piranha", "Piranha"
    PILES = "piles", "Piles"


class RuleSet(models.Model):
    """A named house-rule agreement of a club; its content lives in numbered versions."""

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="rule_sets")
    name = models.CharField(max_length=80)
    game = models.CharField(max_length=10, choices=Game.choices)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.get_game_display()})"


class RuleSetVersion(models.Model):
    """One exact version of an agreement. Frozen once any table has used it: an edit makes a new version."""

    rule_set = models.ForeignKey(RuleSet, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    rules = models.JSONField(help_text="The engine's rules (PiranhaRules/PilesRules.to_dict()).")
    max_seats = models.PositiveSmallIntegerField()
    spectators_allowed = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    frozen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rule_set", "number"], name="rule_set_version_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.rule_set.name} v{self.number}"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        RUNNING = "running", "Playing"
        FINISHED = "finished", "Finished"

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="tables")
    name = models.CharField(max_length=80)
    rule_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="tables")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    button = models.PositiveSmallIntegerField(default=0, help_text="Seat number of the dealer button.")
    carry_pot = models.BigIntegerField(default=0, help_text="Cents waiting in the pot for the next hand.")
    hands_played = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    next_game = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The table a player opened for a new game once this one was over.",
    )
    stopped_at_hand = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The hand nobody played (every move a timeout); no hand is dealt after it "
        "until a player starts the table again.",
    )
    # docs/design.md "Engine contract": a practice table (one member and computer players) never touches the books.
    # Set when the table is opened and never changed (PostgreSQL refuses: migration 0012).
    practice = models.BooleanField(default=False, help_text="One member against computer players; no money moves.")

    def __str__(self) -> str:
        return self.name

    @property
    def game(self) -> str:
        return self.rule_version.rule_set.game


class Seat(models.Model):
    """A member's place at a table, with their acceptance of the exact rule-set version."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    accepted_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="+")
    accepted_at = models.DateTimeField()
    sitting_out = models.BooleanField(default=False)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"], condition=models.Q(left_at__isnull=True), name="seat_number_taken_once"
            ),
            models.UniqueConstraint(
                fields=["table", "user"], condition=models.Q(left_at__isnull=True), name="seat_one_per_member"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.table} seat {self.number}"


class ComputerPlayer(models.Model):
    """The account a computer player sits and acts under (games/services/practice.py): never a member of a club,
    never able to log in, and seated only at practice tables (PostgreSQL refuses otherwise: migration 0012).
    ``strength`` names its policy in engine/players."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="computer")
    strength = models.CharField(max_length=10)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"computer player {self.user_id} ({self.strength})"


class Hand(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    rule_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="hands")
    # Seat number -> user id of everyone dealt in (JSON keys are strings).
    players = models.JSONField()
    button = models.PositiveSmallIntegerField()
    carry_in = models.BigIntegerField(default=0, help_text="Cents carried into this hand's pot.")
    deck = models.JSONField(help_text="The shuffled deck order; never shown before the hand ends.")
    # docs/design.md "Engine contract": scheme "merkle-sha256-v1" publishes the Merkle root of one salted
    # leaf per deck position (engine/verify.py) and keeps the 52 salts in ``salts``; hands
    # dealt before it ("deck-sha256") published SHA-256 of the whole deck and the one ``salt``.
    scheme = models.CharField(
        max_length=20,
        default="merkle-sha256-v1",
        choices=[
            ("deck-sha256", "One commitment of the whole deck"),
            ("merkle-sha256-v1", "One commitment per card (Merkle root)"),
            ("merkle-sha256-cut-v1", "Committed ahead, dealt through the players' cuts"),
            ("merkle-sha256-cut-v2", "Committed ahead, dealt through cuts signed by the members' devices"),
        ],
    )
    salt = models.CharField(max_length=64, blank=True)
    salts = models.JSONField(
        default=list, blank=True, help_text="One 128-bit salt per deck position; each opened only by right."
    )
    commitment = models.CharField(
        max_length=64,
        help_text="Published at the deal: the Merkle root of the "
        "deck's salted leaves (older hands: SHA-256 of the deck order and salt).",
    )
    # A hand read from a club export holds only what was opened to all (clubdata/archive.py): each other
    # position's card here is a stand-in, its salt is "", and this maps it (as text) to its leaf hash ("" under
    # the older scheme, which has no leaves). Such a card is never shown or opened.
    closed_leaves = models.JSONField(
        default=dict, blank=True, help_text="Deck position -> leaf hash of a card this site does not hold."
    )
    # Scheme "merkle-sha256-cut-v1": ``deck`` and ``salts`` are the deck as committed ahead (DeckAhead); the
    # order dealt is that deck permuted by the root and these cuts (engine/verify.py), each
    # {"cut": 32 hex digits, "by": user id, "at": ISO instant} in the order received. Empty: dealt without a cut.
    # Scheme "merkle-sha256-cut-v2" (docs/fairness.md): the deal's closed list (CutList), each
    # {"cut", "device" (fingerprint), "member_id", "signature"}, sorted by cut; PostgreSQL holds them equal.
    cuts = models.JSONField(default=list, blank=True, help_text="The cuts this hand was dealt through.")
    signed_table = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="A signed-cut hand read from a club export: the table id its cuts were signed for (its own else).",
    )
    state = models.JSONField()
    deal_events = models.JSONField(default=list, help_text="The events of the deal (antes, blinds, cards turned).")
    version = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="The earliest clock of the awaited seats (games/timing/turn_clock.py).",
    )
    # Seat number -> {"deadline": ISO instant, "since": the version at which that seat's turn began,
    # "began": the ISO instant it began (absent in clocks stored before the notice sweep)}:
    # each awaited seat's own clock (quiet hours and away make them differ in a sealed decision).
    clocks = models.JSONField(default=dict, blank=True)
    private_marks = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "Per seat dealt in: the version at which that seat's own part of the live table last changed "
            "(games/services/marks.py); a seat missing changed at the deal."
        ),
    )
    timeouts = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            "Per action a clock or an away member's default took, in order: [the line of the hand's log where "
            "its events begin, its first event's kind] (the log's timeout marks, games/presentation/presenters.py)."
        ),
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="hand_number_unique_per_table"),
            # A table deals one hand at a time: a second start or deal loses the race here.
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(finished_at__isnull=True), name="hand_one_unfinished_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} hand {self.number}"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    def turn_began(self, seat: int) -> int | None:
        """The version at which ``seat``'s awaited turn began (its clock's "since"), or None when no turn of
        that seat is awaited."""
        since = (self.clocks or {}).get(str(seat), {}).get("since")
        return None if since is None else int(since)


class HandDispute(models.Model):
    """An organiser's ruling that opens every card of a finished hand to its players, with the reason.

    docs/design.md "Engine contract": folded and dropped hands are opened only this way. Never edited or
    deleted: the record is what the players of the hand read.
    """

    hand = models.OneToOneField(Hand, on_delete=models.PROTECT, related_name="dispute")
    reason = models.TextField()
    ruled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="hand_dispute_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.hand} opened by {self.ruled_by}"


class HandAction(models.Model):
    """One applied action, in order: the log that replays to the hand's state."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="actions")
    sequence = models.PositiveIntegerField(help_text="The hand version this action produced.")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+")
    action = models.JSONField()
    events = models.JSONField(default=list)
    is_timeout = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "sequence"], name="hand_action_sequence_unique"),
        ]
        ordering = ["sequence"]

    def __str__(self) -> str:
        return f"{self.hand} #{self.sequence}"


class ClubExport(models.Model):
    """An organiser's download of the whole club (clubdata/archive.py), with the reason given.

    The file holds every finished hand's deck and salts, folded and dropped hands included, which the
    site otherwise opens only by a ruling (HandDispute): so each export is itself a ruling on record,
    read by the members on the page of every hand it holds. Never edited or deleted.
    """

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="exports")
    exported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Empty when made by the management command.",
    )
    reason = models.TextField()
    hands = models.PositiveIntegerField(help_text="How many finished hands, with their decks, the file holds.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="club_export_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.club} exported {self.created_at:%Y-%m-%d}"


class ChatMessage(models.Model):
    """One line of a table's chat (games/services/chat.py). An organiser may hide it for everyone; never deleted."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["table", "-id"], name="chat_table_newest")]
        constraints = [
            models.CheckConstraint(condition=~models.Q(text=""), name="chat_text_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.table}: {self.text[:30]}"


class AdvanceAction(models.Model):
    """A player's private choice of what to do when their turn comes (games/services/advance.py).

    Never shown to anyone but its owner and never sent through a group. ``kind`` is "bet" (the
    next betting turn) or "sealed" (the drop or the declaration); one of each per seat and hand.
    Cancelled rows stay (with the reason) so the owner can be told why.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for your turn"
        APPLIED = "applied", "Applied"
        CANCELLED = "cancelled", "Cancelled"

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="advance_actions")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=6)
    choice = models.CharField(max_length=20)
    owed = models.BigIntegerField(default=0, help_text="Cents the player owed when setting it (the assumption).")
    stage = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hand", "seat", "kind"],
                condition=models.Q(status="pending"),
                name="advance_one_pending_per_kind",
            ),
        ]
        indexes = [models.Index(fields=["hand", "status"], name="advance_hand_status")]

    def __str__(self) -> str:
        return f"{self.hand} seat {self.seat}: {self.choice} ({self.status})"


class DeckAhead(models.Model):
    """A table's deck for a coming deal, drawn and committed before anyone may cut it (issue: the cut).

    Only ``root`` is ever published while it waits; the cards and salts go to the hand dealt from it
    (``hand_id`` is that hand's id, reserved now, since every leaf binds it). PostgreSQL keeps a root bound
    to its deal number and closes the cuts once it is dealt (migration 0012)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="decks_ahead")
    number = models.PositiveIntegerField(help_text="The deal number at the table this deck is for.")
    hand_id = models.BigIntegerField(unique=True, help_text="The id the hand dealt from this deck takes.")
    deck = models.JSONField(help_text="The committed order; never shown before its hand ends.")
    salts = models.JSONField(help_text="One 128-bit salt per position; opened only by right.")
    root = models.CharField(max_length=64)
    scheme = models.CharField(
        max_length=20,
        default="merkle-sha256-cut-v2",
        help_text="The scheme its leaves and cuts follow (decks committed before version 2 keep version 1).",
    )
    # Set by PostgreSQL's clock at the INSERT (migration 0016): a device cuts only decks committed after it.
    created_at = models.DateTimeField(auto_now_add=True)
    dealt_at = models.DateTimeField(null=True, blank=True, help_text="Cuts close when the deck is dealt.")
    wait_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text=("House rule cut_required: this deal waits for a cut until then, and is then dealt without one."),
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="deck_ahead_one_per_deal")]

    def __str__(self) -> str:
        return f"{self.table} deal {self.number} root {self.root[:12]}"


class DealCut(models.Model):
    """A seated member's random cut of a coming deal, as received (never edited: migration 0012)."""

    deck = models.ForeignKey(DeckAhead, on_delete=models.CASCADE, related_name="cuts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    value = models.CharField(max_length=32)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deck", "user", "value"], name="deal_cut_once")]

    def __str__(self) -> str:
        return f"cut {self.value[:8]} of {self.deck}"


class DeviceCut(models.Model):
    """A member's cut of a coming deal, signed by one of their registered devices (docs/fairness.md).

    ``value`` is SHA-256 of ``signature`` cut to 16 bytes. PostgreSQL refuses one whose signature does not
    verify under the device's key over the deal's message, one from a device not the member's, retired, or
    registered after the deck was committed, one for a closed list, and any UPDATE or DELETE (migration 0016).
    """

    deck = models.ForeignKey(DeckAhead, on_delete=models.PROTECT, related_name="device_cuts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.ForeignKey("accounts.DeviceKey", on_delete=models.PROTECT, related_name="cuts")
    signature = models.CharField(max_length=512)
    value = models.CharField(max_length=32)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deck", "user"], name="device_cut_one_per_member"),
            models.UniqueConstraint(fields=["deck", "value"], name="device_cut_value_once"),
        ]

    def __str__(self) -> str:
        return f"signed cut {self.value[:8]} of {self.deck}"


class CutList(models.Model):
    """The closed list of a deal's cuts, shown before its deal (docs/fairness.md "Protocol" 6).

    PostgreSQL writes ``cuts`` itself at the INSERT from the deal's DeviceCut rows, sorted by value, refuses
    any cut after it, any UPDATE or DELETE, and a hand of the deal dealt through other cuts (migration 0016)."""

    deck = models.OneToOneField(DeckAhead, on_delete=models.PROTECT, related_name="cut_list")
    closed_at = models.DateTimeField(auto_now_add=True)
    closed_by = models.CharField(max_length=40, help_text="The public moment it closed: previous-deal or own-deal.")
    cuts = models.JSONField(default=list, help_text="[{cut, device, member_id, signature}] sorted by cut.")

    def __str__(self) -> str:
        return f"cuts of {self.deck}: {len(self.cuts or [])}"


class CutComplaint(models.Model):
    """A member's browser's complaint about a deal it cut, with its evidence (docs/fairness.md "Protocol" 10).
    Never edited or deleted (migration 0016); the organisers read it on the hand's page."""

    class Kind(models.TextChoices):
        MISSING = "missing", "My acknowledged cut is missing from the deal's cuts"
        UNKNOWN_DEVICE = "unknown-device", "A cut in my name came from a device my browsers do not know"
        OTHER_ROOT = "other-root", "The deal used another deck or scheme than the one I cut"
        REFUSED = "refused", "My cut was refused"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="cut_complaints")
    deal = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    evidence = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["table", "deal"], name="cut_complaint_deal")]

    def __str__(self) -> str:
        return f"{self.kind} complaint on {self.table} deal {self.deal}"
