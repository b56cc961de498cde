"""Reads for members and clubs (STYLE.md: selectors own every read)."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import Club, Membership, User


def club_list_for(*, user: User) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("club").order_by("club__name")


def club_members(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("user").order_by("-role", "user__username")
