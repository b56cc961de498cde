"""The daily digest: once a local day, at ``TURN_DIGEST_HOUR``, the tables waiting for a member who chose a
digest instead of a notice per turn (by email: turn notices "digest"; by push: the push choice "digest")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.selectors.mine import hands_waiting_for
from notices.services.turns import header_safe, local_time, table_url
from notices.webpush import PushMessage, push_enqueue, push_wanted


@dataclass(frozen=True)
class WaitingTable:
    table_id: int
    table_name: str
    club_name: str
    deadline: datetime
    url: str


def tables_waiting_for(*, user: User) -> list[WaitingTable]:
    """Tables whose current hand waits for ``user``'s decision (practice tables left out), soonest of their
    clocks first."""
    out = [
        WaitingTable(
            table_id=waiting.hand.table_id,
            table_name=waiting.hand.table.name,
            club_name=waiting.hand.table.club.name,
            deadline=local_time(waiting.deadline, user),
            url=table_url(waiting.hand.table_id),
        )
        for waiting in hands_waiting_for(user=user, practice=False)
    ]
    return sorted(out, key=lambda w: w.deadline)


def summary_links(*, user: User) -> list[tuple[str, str]]:
    """(club name, absolute link of its "since you were last here" page) for each of the member's clubs."""
    return [
        (name, f"{settings.SITE_URL.rstrip('/')}{reverse('clubhouse:summary', args=[club_id])}")
        for club_id, name in user.memberships.order_by("club__name").values_list("club_id", "club__name")
    ]


def digests_send(*, now: datetime | None = None) -> int:
    """Send today's digest to each member who chose one (by email: turn notices "digest" with an address;
    by push: notices/webpush.py), once their local hour reaches ``TURN_DIGEST_HOUR`` and something waits for
    them; at most one a local day. Returns how many members were sent one."""
    now = now or timezone.now()
    sent = 0
    chosen = (Q(turn_notices=User.TurnNotices.DIGEST) & ~Q(email="")) | Q(
        push_choice__digest=True, push_subscriptions__isnull=False
    )
    for user in User.objects.filter(chosen, is_active=True).distinct():
        local = local_time(now, user)
        if local.hour < settings.TURN_DIGEST_HOUR or user.digest_sent_on == local.date():
            continue
        waiting = tables_waiting_for(user=user)
        if not waiting:
            continue
        subject = f"{len(waiting)} table{'s' if len(waiting) != 1 else ''} waiting for you"
        with transaction.atomic():
            claimed = (
                User.objects.filter(pk=user.pk).exclude(digest_sent_on=local.date()).update(digest_sent_on=local.date())
            )
            if not claimed:
                continue  # another run sent it
            if user.turn_notices == User.TurnNotices.DIGEST and user.email:
                send_mail(
                    subject=subject,
                    message=render_to_string(
                        "email/digest.txt",
                        {
                            "user": user,
                            "waiting": waiting,
                            "zone": user.time_zone,
                            "summaries": summary_links(user=user),
                        },
                    ),
                    from_email=settings.DEFAULT_FROM_EMAIL,
                    recipient_list=[user.email],
                )
        if push_wanted(user_id=user.pk, kind="digest"):
            push_enqueue(
                user_id=user.pk,
                kind="digest",
                message=PushMessage(
                    title=subject,
                    body=", ".join(header_safe(w.table_name) for w in waiting[:5]),
                    url=waiting[0].url,
                    tag="digest",
                ),
            )
        sent += 1
    return sent
