"""A member's Web Push subscriptions and choices (sending: notices/webpush.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from accounts.models import User
from kernel.errors import DomainError
from notices.models import PushChoice, PushSubscription
from notices.webpush import push_endpoint_check, push_keys_check


def push_subscribe(*, user: User, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Keep this browser's subscription for ``user`` (the same endpoint again: its keys replaced; an
    endpoint another member had: now this member's, as the browser moved to them). At most
    ``PUSH_SUBSCRIPTIONS_PER_MEMBER`` a member: the oldest goes."""
    push_endpoint_check(endpoint)
    push_keys_check(p256dh=p256dh, auth=auth)
    with transaction.atomic():
        sub, _ = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
        )
        PushChoice.objects.get_or_create(user=user)
        keep = list(
            PushSubscription.objects.filter(user=user)
            .order_by("-created_at", "-pk")
            .values_list("pk", flat=True)[: settings.PUSH_SUBSCRIPTIONS_PER_MEMBER]
        )
        PushSubscription.objects.filter(user=user).exclude(pk__in=keep).delete()
    return sub


def push_unsubscribe(*, user: User, endpoint: str) -> bool:
    """Forget this browser's subscription of ``user``; True when there was one."""
    if not isinstance(endpoint, str) or len(endpoint) > PushSubscription.ENDPOINT_MAX:
        raise DomainError("That push address is missing or too long.")
    deleted, _ = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return bool(deleted)


def push_choice_set(*, user: User, turn: bool, reminder: bool, digest: bool) -> PushChoice:
    """Which notices ``user`` takes by push."""
    choice, _ = PushChoice.objects.update_or_create(
        user=user, defaults={"turn": turn, "reminder": reminder, "digest": digest}
    )
    return choice
