"""Reads for members and clubs (docs/style.md: selectors own every read)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from kernel.text import name_key

from .models import ApiToken, Club, Invitation, Membership, User
from .tokens import api_token_hash


def club_list_for(*, user: User) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("club").order_by("club__name")


def club_membership(*, user: User, club_id: int) -> Membership | None:
    """``user``'s membership of club ``club_id`` with its club, or None (not a member, no such club)."""
    return Membership.objects.select_related("club").filter(club_id=club_id, user=user).first()


def club_member_get(*, club: Club, user_id: int) -> Membership | None:
    """The membership of member ``user_id`` in ``club`` with its member, or None."""
    return Membership.objects.select_related("user").filter(club=club, user_id=user_id).first()


def club_list_by_id(*, user: User) -> QuerySet[Membership]:
    """``user``'s memberships with their clubs, in the order the clubs were made (the API's list)."""
    return Membership.objects.filter(user=user).select_related("club").order_by("club_id")


def api_token_for_key(*, key: str) -> ApiToken | None:
    """The API key's token with its member (revoked or not: the caller checks), or None."""
    return ApiToken.objects.select_related("user").filter(key_hash=api_token_hash(key)).first()


def api_token_list(*, user: User, limit: int = 20) -> list[ApiToken]:
    """The member's newest API tokens (the profile page lists them)."""
    return list(user.api_tokens.order_by("-pk")[:limit])


def club_members(*, club: Club) -> QuerySet[Membership]:
    """Organisers first, then members, each by username."""
    return Membership.objects.filter(club=club).select_related("user").order_by("-role", "user__username")


def invitation_list_pending(*, club: Club, now: datetime | None = None) -> QuerySet[Invitation]:
    """Invitations to the club that are neither used, revoked nor expired; soonest to expire first."""
    return (
        Invitation.objects.filter(
            club=club,
            used_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=now or timezone.now(),
        )
        .select_related("created_by")
        .order_by("expires_at", "pk")
    )


def name_clashes(*, user: User, name: str, club_ids: list[int] | None = None) -> list[Club]:
    """The clubs (of ``club_ids``, else every club ``user`` belongs to) where another member is already
    shown as ``name`` (their display name, else their username), compared case-insensitively
    (kernel.text.name_key): a member must be able to tell who is who at a table."""
    if club_ids is None:
        club_ids = list(Membership.objects.filter(user=user).values_list("club_id", flat=True))
    key = name_key(name)
    others = (
        Membership.objects.filter(club_id__in=club_ids)
        .exclude(user_id=user.pk)
        .select_related("club")
        .only("club__name", "user__username", "user__display_name")
    )
    clubs: dict[int, Club] = {}
    for membership in others.order_by("club__name", "club_id"):
        if name_key(membership.user.display_name or membership.user.username) == key:
            clubs.setdefault(membership.club_id, membership.club)
    return list(clubs.values())
