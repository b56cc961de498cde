"""A member leaves the site: their personal fields are erased and their name replaced; the rows
that name them (ledger lines, hands, rulings) stay, so the books keep balancing."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from .models import ApiToken, Invitation, Membership, User

TOKEN_PREFIX = "hc_"  # noqa: S105 - the visible start of every API key, not a secret


def former_member_name(user_id: int) -> str:
    return f"Former member #{user_id}"


def user_anonymise(*, user: User) -> User:
    """Erase ``user``'s personal fields and disable their login. Expects the caller's transaction
    (and its checks: no hand being played, not the last organiser). Their memberships stay (as plain
    members) so their balances stay on the balance sheets; their API tokens and pending invitations
    are revoked."""
    now = timezone.now()
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
    return user


# --- API tokens --------------------------------------------------------------------------------


def api_token_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns it and its key (shown once, never stored)."""
    key = TOKEN_PREFIX + secrets.token_urlsafe(32)
    name = (name or "").strip()[:60] or "API key"
    with transaction.atomic():
        token = ApiToken.objects.create(user=user, name=name, key_hash=api_token_hash(key), prefix=key[:10])
    return token, key


def api_token_revoke(*, user: User, token_id: int) -> ApiToken | None:
    """Revoke one of ``user``'s tokens (another member's id finds nothing: None)."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(user=user, pk=token_id).first()
        if token is not None and token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
    return token
