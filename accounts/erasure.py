"""A member leaves the site: their personal fields are erased and their name replaced; the rows
that name them (ledger lines, hands, rulings) stay, so the books keep balancing."""

from __future__ import annotations

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.utils import timezone

from .models import ApiToken, Invitation, Membership, User


def former_member_name(user_id: int) -> str:
    return f"Former member #{user_id}"


def user_anonymise(*, user: User) -> User:
    """Erase ``user``'s personal fields and disable their login. Expects the caller's transaction
    (and its checks: no hand being played, not the last organiser). Their memberships stay (as plain
    members) so their balances stay on the balance sheets; their API tokens and pending invitations
    are revoked; their address leaves the invitations and their name the log-in records."""
    now = timezone.now()
    old_username, old_email = user.username, user.email
    user.username = f"former-member-{user.pk}"
    user.display_name = former_member_name(user.pk)
    user.email = user.first_name = user.last_name = ""
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.away = False
    user.quiet_start = user.quiet_end = None
    user.time_zone = "UTC"
    user.turn_notices = User.TurnNotices.OFF
    user.turn_reminder = False
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    Membership.objects.filter(user=user).update(role=Membership.Role.MEMBER)
    ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now)
    Invitation.objects.filter(created_by=user, used_at__isnull=True, revoked_at__isnull=True).update(revoked_at=now)
    # Their address on the invitations that brought them in, and the log-in records under their name.
    Invitation.objects.filter(used_by=user).update(email="")
    if old_email:
        Invitation.objects.filter(email__iexact=old_email).update(email="")
    for model in (AccessAttempt, AccessLog, AccessFailureLog):
        model.objects.filter(username=old_username).delete()
    return user
