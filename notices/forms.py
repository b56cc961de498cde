"""The notifications page's form."""

from __future__ import annotations

from django import forms

from notices.models import PushChoice


class PushChoiceForm(forms.ModelForm):
    """A member's Web Push choice per kind of turn notice (the notifications page)."""

    class Meta:
        model = PushChoice
        fields = ["turn", "reminder", "digest"]
