from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.utils import timezone

from games.models import Game

from .selectors import Period


class PeriodForm(forms.Form):
    """The period and game of a results page (query parameters); every field may be left out."""

    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To (included)", widget=forms.DateInput(attrs={"type": "date"}))
    game = forms.ChoiceField(required=False, label="Game", choices=[("", "Both games"), *Game.choices])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and end < start:
            raise forms.ValidationError("The period ends before it starts: swap the two dates.")
        return data

    def period(self) -> Period:
        data = self.cleaned_data if self.is_valid() else {}
        return Period(_start_of(data.get("date_from")), _start_of(data.get("date_to"), days=1))

    def chosen_game(self) -> str:
        return str(self.cleaned_data.get("game") or "") if self.is_valid() else ""


def _start_of(day: date | None, days: int = 0) -> datetime | None:
    """Midnight at the start of ``day`` (+ ``days``) in the member's time zone."""
    if day is None:
        return None
    return timezone.make_aware(datetime.combine(day + timedelta(days=days), time.min))


class SeasonForm(forms.Form):
    name = forms.CharField(max_length=80, label="Name of the new season")
