"""Every write of the clubhouse: seasons opened and closed, a member caught up on a club."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.access import membership_of
from accounts.models import Club, User
from kernel.errors import DomainError

from .models import ClubVisit, Season


class SeasonRefused(DomainError):
    pass


def _check_organiser(club: Club, user: User) -> None:
    membership = membership_of(user=user, club_id=club.pk)
    if membership is None or not membership.is_organiser:
        raise SeasonRefused("Only the club's organisers can open or close a season.")


def season_open(*, club: Club, user: User, name: str) -> Season:
    """Open a season from now. Raises SeasonRefused for a member who is not an organiser, an empty
    or over-long name, or while another season of the club is still open."""
    _check_organiser(club, user)
    name = name.strip()
    if not name:
        raise SeasonRefused("Give the season a name.")
    if len(name) > 80:
        raise SeasonRefused("A season's name can be at most 80 characters.")
    try:
        with transaction.atomic():
            return Season.objects.create(club=club, name=name, opened_at=timezone.now(), opened_by=user)
    except IntegrityError as exc:
        raise SeasonRefused("Close the season that is open before opening another.") from exc


def season_close(*, club: Club, user: User, season_id: int) -> Season:
    """Close the club's open season now. Raises SeasonRefused for a member who is not an organiser,
    or when the season is not the club's or is closed already."""
    _check_organiser(club, user)
    with transaction.atomic():
        season = Season.objects.select_for_update().filter(club=club, pk=season_id).first()
        if season is None:
            raise SeasonRefused("There is no such season in this club.")
        if season.closed_at is not None:
            raise SeasonRefused(f"{season.name} was closed already.")
        season.closed_at = max(timezone.now(), season.opened_at)
        season.closed_by = user
        season.save(update_fields=["closed_at", "closed_by"])
    return season


def visit_mark_seen(*, club: Club, user: User) -> ClubVisit:
    """The member is caught up on the club now: the next summary starts here."""
    visit, _ = ClubVisit.objects.update_or_create(club=club, user=user, defaults={"seen_at": timezone.now()})
    return visit
