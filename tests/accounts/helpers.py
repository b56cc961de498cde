"""Small helpers shared by the accounts tests."""

from __future__ import annotations

from accounts.models import Club, Invitation, Membership, User


def club_state(club: Club) -> tuple[object, ...]:
    """Everything an accounts page could change about a club, to check that a refusal changed nothing."""
    club.refresh_from_db()
    return (
        (club.name, club.currency, club.credit_limit),
        sorted(Membership.objects.filter(club=club).values_list("user_id", "role")),
        sorted(Invitation.objects.filter(club=club).values_list("pk", "used_at", "revoked_at")),
        User.objects.count(),
    )


def role_of(user: User, club: Club) -> str | None:
    membership = Membership.objects.filter(user=user, club=club).first()
    return membership.role if membership else None
