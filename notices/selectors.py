"""Reads of the notices: a member's push settings and browsers."""

from __future__ import annotations

from accounts.models import User
from notices.models import PushChoice, PushSubscription


def push_choice_of(*, user: User) -> PushChoice:
    """The member's push settings per kind of notice; the defaults (unsaved) until they save some."""
    return PushChoice.objects.filter(user=user).first() or PushChoice(user=user)


def push_browser_count(*, user: User) -> int:
    """How many browsers receive the member's push notices."""
    return PushSubscription.objects.filter(user=user).count()
