"""Writes for members and clubs (STYLE.md: services own every write)."""

from __future__ import annotations

from django.db import transaction

from .models import Club, Membership, User


def club_create(*, name: str, currency: str, credit_limit: int, creator: User) -> Club:
    """Create a club; its creator becomes its first organiser."""
    with transaction.atomic():
        club = Club.objects.create(name=name.strip(), currency=currency.upper(), credit_limit=credit_limit)
        Membership.objects.create(club=club, user=creator, role=Membership.Role.ORGANISER)
    return club
