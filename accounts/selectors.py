"""Reads for members and clubs (STYLE.md: selectors own every read)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from .models import Club, Invitation, Membership, User


def club_list_for(*, user: User) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("club").order_by("club__name")


def club_members(*, club: Club) -> QuerySet[Membership]:
    """Organisers first, then members, each by username."""
    return Membership.objects.filter(club=club).select_related("user").order_by("-role", "user__username")


def invitation_list_pending(*, club: Club, now: datetime | None = None) -> QuerySet[Invitation]:
    """Invitations to the club that are neither used, revoked nor expired; soonest to expire first."""
    return (
        Invitation.objects.filter(
            club=club, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now or timezone.now(),
        )
        .select_related("created_by")
        .order_by("expires_at", "pk")
    )
