"""Forms: rule-set agreements in the club's currency units, tables, seats and actions.

Money is entered in units of the club's currency (0.25) and kept in cents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms

import engine
from accounts.models import Club
from accounts.money import cents_from_units, units_from_cents
from engine.rules import MAX_RAISES, MAX_STAKE, MAX_TURN_SECONDS, MIN_TURN_SECONDS
from games.errors import IllegalMove, StaleVersion
from games.models import Game, Hand, RuleSetVersion
from games.services.practice import MAX_COMPUTERS, STRENGTHS
from kernel.text import validate_name

CLOCK_UNITS = [("seconds", "seconds"), ("minutes", "minutes"), ("hours", "hours"), ("days", "days")]
UNIT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
MAX_PLAYERS = {Game.PIRANHA: 11, Game.PILES: 7}


def reject_control_characters(value: str) -> None:
    """A name shows on pages and in email subjects: kernel.text's one rule for names (no control or
    format characters: line breaks, tabs, bidi overrides, zero-width characters...)."""
    validate_name(value)


class MoneyField(forms.DecimalField):
    """A stake in the club's currency units (0.25), at most MAX_STAKE cents; ``clean`` returns cents (int)."""

    def __init__(self, *, required: bool = True, allow_zero: bool = True, **kwargs: Any) -> None:
        self.allow_zero = allow_zero
        self.max_cents = MAX_STAKE  # docs/hands-and-data.md "Pot limit": amounts the engine and the books handle
        kwargs.setdefault("max_digits", 12)
        kwargs.setdefault("decimal_places", 2)
        super().__init__(required=required, **kwargs)
        self.error_messages["max_decimal_places"] = "Use at most two decimal places, like 0.25."
        self.error_messages["invalid"] = "Enter an amount like 0.25."

    def prepare_value(self, value: Any) -> Any:
        return value

    def clean(self, value: Any) -> int | None:
        amount = super().clean(value)
        if amount is None:
            return None
        if amount < 0:
            raise forms.ValidationError(f"{self.label or 'The amount'} cannot be negative.")
        if amount == 0 and not self.allow_zero:
            raise forms.ValidationError(f"{self.label or 'The amount'} must be more than zero.")
        cents = cents_from_units(amount)
        if cents > self.max_cents:
            raise forms.ValidationError(
                f"{self.label or 'The amount'} may be at most {units_from_cents(self.max_cents):,}."
            )
        return cents


class RuleSetForm(forms.Form):
    """Fields shared by both games; subclasses add the game's own and build the engine rules."""

    game: str = ""

    name = forms.CharField(
        max_length=80, help_text="For example: Friday night, low stakes.", validators=[reject_control_characters]
    )
    max_seats = forms.IntegerField(label="Seats at a table", min_value=1, max_value=99)
    clock_amount = forms.IntegerField(
        label="Turn clock",
        min_value=1,
        max_value=10_000_000,
        help_text="How long each player has to act (10 seconds to 7 days).",
    )
    clock_unit = forms.ChoiceField(label="Clock unit", choices=CLOCK_UNITS)
    spectators_allowed = forms.BooleanField(label="Club members who are not seated may watch", required=False)
    cut_required = forms.BooleanField(
        label="Deal only once a seated player's browser has cut the deal",
        required=False,
        help_text="A deal nobody cut waits, one turn clock at most, then is dealt without a cut.",
    )

    def __init__(self, *args: Any, currency: str = "USD", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.currency = currency
        for field in self.fields.values():
            if isinstance(field, MoneyField) and not field.help_text:
                field.help_text = f"In {currency}, like 0.25."

    def clean_max_seats(self) -> int:
        seats = int(self.cleaned_data["max_seats"])
        top = MAX_PLAYERS[Game(self.game)]
        if not 2 <= seats <= top:
            raise forms.ValidationError(f"{Game(self.game).label} is for 2 to {top} players.")
        return seats

    def turn_seconds(self) -> int | None:
        amount = self.cleaned_data.get("clock_amount")
        unit = self.cleaned_data.get("clock_unit")
        if amount is None or unit not in UNIT_SECONDS:
            return None
        return int(amount) * UNIT_SECONDS[str(unit)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        seconds = self.turn_seconds()
        if seconds is not None and not MIN_TURN_SECONDS <= seconds <= MAX_TURN_SECONDS:
            self.add_error("clock_amount", "The turn clock must be between 10 seconds and 7 days.")
        if not self.errors:
            rules = self.build_rules()
            for message in rules.validate():
                self.add_error(None, message + ".")
        return cleaned

    def build_rules(self) -> engine.Rules:
        raise NotImplementedError

    @property
    def rules(self) -> engine.Rules:
        """The engine's rules from valid data."""
        return self.build_rules()

    @staticmethod
    def clock_initial(seconds: int) -> dict[str, Any]:
        for unit in ("days", "hours", "minutes"):
            if seconds % UNIT_SECONDS[unit] == 0:
                return {"clock_amount": seconds // UNIT_SECONDS[unit], "clock_unit": unit}
        return {"clock_amount": seconds, "clock_unit": "seconds"}


class PiranhaRulesForm(RuleSetForm):
    game = Game.PIRANHA

    ante = MoneyField(label="Ante")
    ante_each_hand = forms.TypedChoiceField(
        label="When players ante",
        coerce=lambda v: v == "every",
        choices=[("every", "Every hand"), ("first", "First hand of a game only")],
    )
    match_cap = MoneyField(
        label="Pot-match cap",
        required=False,
        allow_zero=False,
        help_text="The most a loser pays into the next pot. Leave empty for no cap.",
    )
    betting_round = forms.BooleanField(label="Add one betting round before the drop", required=False)
    bet_size = MoneyField(label="Bet size of that round", allow_zero=False)
    max_raises = forms.IntegerField(label="Raises allowed in that round", min_value=0, max_value=MAX_RAISES)
    nobody_in = forms.ChoiceField(
        label="When nobody stays in",
        choices=[
            ("carry", "The pot carries to a fresh deal"),
            ("split", "The game ends and the pot is split among those dealt in"),
        ],
    )

    field_order = [
        "name",
        "ante",
        "ante_each_hand",
        "match_cap",
        "betting_round",
        "bet_size",
        "max_raises",
        "nobody_in",
        "max_seats",
        "clock_amount",
        "clock_unit",
        "spectators_allowed",
        "cut_required",
    ]

    def build_rules(self) -> engine.PiranhaRules:
        d = self.cleaned_data
        return engine.PiranhaRules(
            ante=d["ante"],
            ante_each_hand=bool(d["ante_each_hand"]),
            match_cap=d.get("match_cap"),
            betting_round=bool(d.get("betting_round")),
            bet_size=d["bet_size"],
            max_raises=d["max_raises"],
            nobody_in=d["nobody_in"],
            turn_seconds=self.turn_seconds() or 0,
            cut_required=bool(d.get("cut_required")),
        )

    @classmethod
    def initial_from(cls, rules: engine.PiranhaRules) -> dict[str, Any]:
        return {
            "ante": units_from_cents(rules.ante),
            "ante_each_hand": "every" if rules.ante_each_hand else "first",
            "match_cap": None if rules.match_cap is None else units_from_cents(rules.match_cap),
            "betting_round": rules.betting_round,
            "bet_size": units_from_cents(rules.bet_size),
            "max_raises": rules.max_raises,
            "nobody_in": rules.nobody_in,
            **cls.clock_initial(rules.turn_seconds),
            "cut_required": rules.cut_required,
        }


class PilesRulesForm(RuleSetForm):
    game = Game.PILES

    forced = forms.ChoiceField(label="Forced bets", choices=[("ante", "Ante"), ("blinds", "Blinds")])
    ante = MoneyField(label="Ante")
    small_blind = MoneyField(label="Small blind")
    big_blind = MoneyField(label="Big blind", allow_zero=False)
    stage_1 = MoneyField(label="Bet after stage 1", allow_zero=False)
    stage_2 = MoneyField(label="Bet after stage 2", allow_zero=False)
    stage_3 = MoneyField(label="Bet after stage 3", allow_zero=False)
    stage_4 = MoneyField(label="Bet after stage 4", allow_zero=False)
    stage_5 = MoneyField(label="Bet after stage 5", allow_zero=False)
    stage_6 = MoneyField(label="Bet after stage 6", allow_zero=False)
    stage_7 = MoneyField(label="Bet after stage 7", allow_zero=False)
    stage_8 = MoneyField(label="Bet after stage 8", allow_zero=False)
    stage_9 = MoneyField(label="Bet after stage 9", allow_zero=False)
    max_raises = forms.IntegerField(label="Raises allowed a round", min_value=0, max_value=MAX_RAISES)
    low_variant = forms.BooleanField(
        label="Low variant (repeated ranks allowed in a low, five or lower; high needs a full house)", required=False
    )
    pig_tie_counts = forms.BooleanField(label="A pig that ties for a half still wins it", required=False)
    declare_timeout = forms.ChoiceField(
        label="A declaration that runs out of time", choices=[("fold", "Folds"), ("high", "Counts as high")]
    )

    field_order = [
        "name",
        "forced",
        "ante",
        "small_blind",
        "big_blind",
        *[f"stage_{n}" for n in range(1, 10)],
        "max_raises",
        "low_variant",
        "pig_tie_counts",
        "declare_timeout",
        "max_seats",
        "clock_amount",
        "clock_unit",
        "spectators_allowed",
        "cut_required",
    ]

    def build_rules(self) -> engine.PilesRules:
        d = self.cleaned_data
        return engine.PilesRules(
            forced=d["forced"],
            ante=d["ante"],
            small_blind=d["small_blind"],
            big_blind=d["big_blind"],
            stage_bets=tuple(int(d[f"stage_{n}"]) for n in range(1, 10)),
            max_raises=d["max_raises"],
            low_variant=bool(d.get("low_variant")),
            pig_tie_counts=bool(d.get("pig_tie_counts")),
            declare_timeout=d["declare_timeout"],
            turn_seconds=self.turn_seconds() or 0,
            cut_required=bool(d.get("cut_required")),
        )

    @classmethod
    def initial_from(cls, rules: engine.PilesRules) -> dict[str, Any]:
        out: dict[str, Any] = {
            "forced": rules.forced,
            "ante": units_from_cents(rules.ante),
            "small_blind": units_from_cents(rules.small_blind),
            "big_blind": units_from_cents(rules.big_blind),
            "max_raises": rules.max_raises,
            "low_variant": rules.low_variant,
            "pig_tie_counts": rules.pig_tie_counts,
            "declare_timeout": rules.declare_timeout,
            **cls.clock_initial(rules.turn_seconds),
            "cut_required": rules.cut_required,
        }
        for n, bet in enumerate(rules.stage_bets, start=1):
            out[f"stage_{n}"] = units_from_cents(bet)
        return out


FORMS: dict[str, type[PiranhaRulesForm] | type[PilesRulesForm]] = {
    Game.PIRANHA: PiranhaRulesForm,
    Game.PILES: PilesRulesForm,
}


def rules_form_initial(
    game: str,
    *,
    rules: engine.Rules | None = None,
    max_seats: int | None = None,
    spectators_allowed: bool = True,
    name: str = "",
) -> dict[str, Any]:
    """Initial data for a rule-set form: the given rules, else the docs/design.md defaults."""
    if game == Game.PIRANHA:
        piranha = rules if isinstance(rules, engine.PiranhaRules) else engine.PiranhaRules()
        initial = PiranhaRulesForm.initial_from(piranha)
        seats = max_seats or 8
    else:
        piles = rules if isinstance(rules, engine.PilesRules) else engine.PilesRules()
        initial = PilesRulesForm.initial_from(piles)
        seats = max_seats or 7
    return {**initial, "name": name, "max_seats": seats, "spectators_allowed": spectators_allowed}


class VersionChoiceField(forms.ModelChoiceField[RuleSetVersion]):
    def label_from_instance(self, obj: RuleSetVersion) -> str:
        return f"{obj.rule_set.name} ({obj.rule_set.get_game_display()}, version {obj.number})"


class TableForm(forms.Form):
    name = forms.CharField(max_length=80, validators=[reject_control_characters])
    rule_version = VersionChoiceField(
        queryset=RuleSetVersion.objects.none(),
        label="House rules",
        error_messages={"invalid_choice": "Choose one of the club's house-rule versions."},
    )

    def __init__(self, *args: Any, club_id: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_club_rule_versions(self, club_id)


def _offer_club_rule_versions(form: forms.Form, club_id: int) -> None:
    """Offer the newest version of each of the club's agreements in ``form``'s ``rule_version``."""
    from games.selectors.rules import rule_versions_latest

    field = form.fields["rule_version"]
    assert isinstance(field, forms.ModelChoiceField)
    field.queryset = rule_versions_latest(club_id=club_id)


class SeatForm(forms.Form):
    """Taking a seat: the seat number and the exact rule-set version the page showed."""

    number = forms.TypedChoiceField(
        label="Seat", coerce=int, choices=[], error_messages={"invalid_choice": "That seat is not free."}
    )
    version = forms.IntegerField(
        widget=forms.HiddenInput,
        error_messages={
            "required": "The rules you accepted are missing; please read them again.",
            "invalid": "The rules you accepted are missing; please read them again.",
        },
    )
    accept = forms.BooleanField(
        label="I accept these house rules",
        error_messages={"required": "Tick the box to accept the house rules before you sit down."},
    )

    def __init__(self, *args: Any, free_seats: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["number"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(n, f"Seat {n}") for n in free_seats]


def parse_action(value: str, amount: str | None = None) -> dict[str, Any]:
    """'raise' / 'call:50' / 'declare:pig' -> an engine action dict; raises ValueError when malformed."""
    kind, _, extra = (value or "").strip().partition(":")
    if not kind or len(value) > 40:
        raise ValueError("Choose an action.")
    action: dict[str, Any] = {"type": kind}
    if kind == "declare":
        action["choice"] = extra
    elif extra:
        amount = extra
    if amount not in (None, ""):
        action["amount"] = _cents(str(amount))
    return action


def _cents(text: str) -> int:
    """An amount typed in a form: ASCII digits only. ``int`` would also read other scripts' digits
    ('２５', '٢٥'), a sign, spaces and underscores: an amount the member did not see as a number."""
    text = text.strip()
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    if any(c.isdigit() or c.isnumeric() for c in text if not c.isascii()):
        raise ValueError("The amount must be written with the digits 0 to 9.")
    raise ValueError("The amount must be a whole number of cents.")


@dataclass(frozen=True)
class ActRequest:
    """A player's action as sent, read once: the hand (None: none was sent, which hand_act refuses), its version,
    the action."""

    hand_id: int | None
    version: int
    action: engine.Action


def _whole(value: Any) -> int | None:
    """A whole number from a JSON number or the ASCII digits of a form field, else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and 0 < len(value) <= 18 and value.isascii() and value.isdigit():
        return int(value)
    return None


def act_request_parse(*, hand: Any, version: Any, action: Any, amount: Any = None) -> ActRequest:
    """Read a player's action from a form post (strings) or a socket frame (JSON values) alike: the same
    checks and the same words for both. ``action``: 'raise:25' / 'declare:pig' or {"type": ..., ...}.
    Raises IllegalMove (a DomainError) with a sentence for the member."""
    hand_id = None if hand in (None, "") else _whole(hand)
    if hand not in (None, "") and hand_id is None:
        raise IllegalMove("That hand is not being played at this table.")
    number = _whole(version)
    if number is None:  # a garbled version is as good as a stale one: the page shows the current state
        raise StaleVersion()
    try:
        if isinstance(action, str):
            data = parse_action(action, amount if isinstance(amount, str) else None)
        elif isinstance(action, Mapping):
            data = dict(action)
        else:
            raise ValueError("Choose an action.")
        parsed = engine.action_from_dict(data)
    except ValueError as exc:
        raise IllegalMove(str(exc)) from None
    except engine.EngineError as exc:
        message = str(exc).strip()
        raise IllegalMove(message if message.endswith((".", "!", "?")) else message + ".") from None
    return ActRequest(hand_id=hand_id, version=number, action=parsed)


class HandChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.table.name}, hand {obj.number} ({obj.started_at:%Y-%m-%d})"


class VoidHandForm(forms.Form):
    """The organisers' "void this hand" form on the ledger's Rulings page (games/views/voiding.py)."""

    hand = HandChoiceField(
        queryset=Hand.objects.none(),
        label="Hand",
        error_messages={"invalid_choice": "Choose a finished hand of this club."},
    )
    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Reason",
        error_messages={"required": "A ruling needs a reason."},
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "void_%s")
        super().__init__(*args, **kwargs)
        hand_field = self.fields["hand"]
        assert isinstance(hand_field, forms.ModelChoiceField)
        hand_field.queryset = (
            Hand.objects.filter(
                table__club=club, table__practice=False, voided_at__isnull=True, finished_at__isnull=False
            )
            .select_related("table")
            .order_by("-pk")
        )
        # Years of hands: the menu offers the latest hundred; any hand of the club validates.
        recent = list(hand_field.queryset[:100])
        hand_field.widget.choices = [
            ("", "Choose a hand"),
            *((h.pk, f"{h.table.name}, hand {h.number} ({h.started_at:%Y-%m-%d})") for h in recent),
        ]


class PracticeForm(forms.Form):
    """A practice table from the lobby (games/services/practice.py checks each choice again)."""

    game = forms.ChoiceField(choices=Game.choices)
    rule_version = VersionChoiceField(
        queryset=RuleSetVersion.objects.none(), required=False, empty_label="The defaults", label="House rules"
    )
    computers = forms.TypedChoiceField(
        label="Computer players", coerce=int, initial=3, choices=[(n, str(n)) for n in range(1, MAX_COMPUTERS + 1)]
    )
    strength = forms.ChoiceField(label="They play", initial="strong", choices=[(s, s.capitalize()) for s in STRENGTHS])

    def __init__(self, *args: Any, club_id: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_club_rule_versions(self, club_id)
