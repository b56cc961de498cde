"""API keys of the read-only JSON API (games/api): made and revoked by their member; only a SHA-256
of each key is stored, so the key itself is shown once."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from .models import ApiToken, User

TOKEN_PREFIX = "hc_"  # noqa: S105 - the visible start of every API key, not a secret


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


def api_token_touch(*, token: ApiToken) -> None:
    """Note that ``token`` was used now (one UPDATE, no lock: the last of two requests wins)."""
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
