"""Forms of the ledger pages: they parse and bound input; the services decide."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django import forms
from django.db import models
from django.utils import timezone

from accounts.models import Club, User

from .models import EntryKind, JournalEntry
from .selectors import StatementFilter
from .services import MAX_AMOUNT


class MemberChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return str(obj.shown_name)


def member_field(club: Club, label: str) -> MemberChoiceField:
    return MemberChoiceField(
        queryset=User.objects.filter(memberships__club=club).order_by("display_name", "username"),
        label=label,
        error_messages={"invalid_choice": "Choose a member of this club.", "required": "Choose a member."},
    )


class CentsField(forms.DecimalField):
    """An amount typed in currency units ("12.50"), cleaned to integer cents."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_digits", 12)
        kwargs.setdefault("decimal_places", 2)
        kwargs.setdefault("error_messages", {"max_decimal_places": "Give the amount to the cent at most (e.g. 12.50)."})
        super().__init__(**kwargs)

    def clean(self, value: Any) -> int | None:
        amount = super().clean(value)
        if amount is None:
            return None
        cents = int((Decimal(amount) * 100).to_integral_value())
        if cents <= 0:
            raise forms.ValidationError("The amount must be more than zero.")
        if cents > MAX_AMOUNT:
            raise forms.ValidationError("That amount is too large.")
        return cents


def date_picker() -> forms.DateInput:
    """A browser date picker: it reads and writes ISO dates only, whatever the site's date format."""
    return forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def _related(model: type[models.Model], name: str) -> type[models.Model]:
    """The model at the other end of ``model``'s relation ``name``: the ledger reaches the games' tables
    through its own foreign keys and imports nothing from the app above it."""
    other = model._meta.get_field(name).related_model
    assert other is not None and not isinstance(other, str)
    return other


def _game_choices() -> list[tuple[str, str]]:
    """The games a table may play: the choices of its rule set's ``game`` (entry -> table -> rule version ->
    rule set)."""
    rule_set = _related(_related(_related(JournalEntry, "table"), "rule_version"), "rule_set")
    game = rule_set._meta.get_field("game")
    assert isinstance(game, models.Field)
    return [(str(value), str(label)) for value, label in game.choices or ()]


class StatementFilterForm(forms.Form):
    date_from = forms.DateField(required=False, label="From", widget=date_picker())
    date_to = forms.DateField(required=False, label="To", widget=date_picker())
    table = forms.ModelChoiceField(
        queryset=JournalEntry.objects.none(),
        required=False,
        label="Table",
        error_messages={"invalid_choice": "Choose a table of this club."},
    )
    game = forms.ChoiceField(choices=[("", "Any game")], required=False)
    kind = forms.ChoiceField(choices=[("", "Any kind"), *EntryKind.choices], required=False, label="Kind")
    before = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=2**62,
        widget=forms.HiddenInput,
        error_messages={"invalid": "That page link is broken; start from the newest."},
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        table_field = self.fields["table"]
        assert isinstance(table_field, forms.ModelChoiceField)
        # Practice tables move no money (docs/design.md "Engine contract"): no statement lists them.
        table_field.queryset = (
            _related(JournalEntry, "table")._default_manager.filter(club=club, practice=False).order_by("name", "pk")
        )
        game_field = self.fields["game"]
        assert isinstance(game_field, forms.ChoiceField)
        game_field.choices = [("", "Any game"), *_game_choices()]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The start date is after the end date.")
        return data

    def to_filter(self) -> StatementFilter:
        data = self.cleaned_data
        tz = timezone.get_current_timezone()

        def start_of(day: dt.date | None) -> dt.datetime | None:
            return None if day is None else dt.datetime.combine(day, dt.time.min, tzinfo=tz)

        end = data.get("date_to")
        table = data.get("table")
        return StatementFilter(
            date_from=start_of(data.get("date_from")),
            date_to=start_of(end + dt.timedelta(days=1)) if end else None,
            table_id=table.pk if table else None,
            game=data.get("game") or "",
            kind=data.get("kind") or "",
        )


class SettlementForm(forms.Form):
    payer = forms.ModelChoiceField(queryset=User.objects.none(), label="Who paid")
    payee = forms.ModelChoiceField(queryset=User.objects.none(), label="Who was paid")
    amount = CentsField(label="Amount")
    paid_on = forms.DateField(label="Paid on", widget=date_picker())
    note = forms.CharField(max_length=200, required=False, label="Note")

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["payer"] = member_field(club, "Who paid")
        self.fields["payee"] = member_field(club, "Who was paid")
        self.fields["paid_on"].initial = timezone.localdate()
        self.fields["amount"].widget.attrs.update({"inputmode": "decimal", "min": "0.01", "step": "0.01"})


class AdjustmentForm(forms.Form):
    from_user = forms.ModelChoiceField(queryset=User.objects.none())
    to_user = forms.ModelChoiceField(queryset=User.objects.none())
    amount = CentsField(label="Amount")
    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Reason",
        error_messages={"required": "A ruling needs a reason."},
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        # The rulings page shows this form beside the void-a-hand form: each keeps its own element ids.
        kwargs.setdefault("auto_id", "adjust_%s")
        super().__init__(*args, **kwargs)
        self.fields["from_user"] = member_field(club, "From (pays)")
        self.fields["to_user"] = member_field(club, "To (receives)")
        self.fields["amount"].widget.attrs.update({"inputmode": "decimal", "min": "0.01", "step": "0.01"})


class SettlementLimitForm(forms.Form):
    settlement_max = CentsField(label="Largest settlement")
