"""Who may see a club's pages: one place for every club-scoped view.

Anonymous visitors are sent to log in (login_required); a non-member gets 404
(the club's existence is not revealed); a member on an organiser-only page gets 403.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from .models import Club, Membership, User


@dataclass(frozen=True)
class ClubAccess:
    club: Club
    membership: Membership

    @property
    def is_organiser(self) -> bool:
        return self.membership.is_organiser


def club_access(request: HttpRequest, club_id: int, *, organiser: bool = False) -> ClubAccess:
    """Return the club and the requesting user's membership, or raise 404/403."""
    user = request.user
    if not isinstance(user, User):
        raise Http404("No such club.")
    membership = Membership.objects.select_related("club").filter(club_id=club_id, user=user).first()
    if membership is None:
        raise Http404("No such club.")
    if organiser and not membership.is_organiser:
        raise PermissionDenied("Only the club's organisers can do that.")
    return ClubAccess(club=membership.club, membership=membership)


def membership_of(*, user: User, club_id: int) -> Membership | None:
    return Membership.objects.filter(club_id=club_id, user=user).first()


def is_member(*, user: User, club_id: int) -> bool:
    """Whether ``user`` belongs to the club now (checked afresh: memberships end)."""
    return Membership.objects.filter(club_id=club_id, user=user).exists()
