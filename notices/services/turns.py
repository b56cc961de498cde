""" "Your turn" emails: a notice after a grace period, a reminder before the clock runs out, or a
daily digest instead (notices/services/digest.py; each a member setting on ``accounts.User``), by email and/or Web Push
(notices/webpush.py). No notice of a turn while the member is present at its club (a table or the lobby of
that club open and live: games/live/presence.py); the sweep sends it once they left, if the turn still waits.

Every function re-reads the hand and sends only while that same turn is still waiting (the seat
is awaited and its clock began at ``since``), so a late or repeated task sends nothing. At most
one notice of each kind goes out per seat and turn: the ``TurnNotice`` row is written first, in
the transaction that sends, and its unique constraint turns a second delivery into a no-op (a
failed send rolls the row back, so a retry may send). Links are absolute (``SITE_URL``).

The tasks that send them are scheduled on commit; ``turn_notices_sweep`` (beat) is the backstop for
a lost message: it sends what is due from each waiting seat's clock ("began", games/services/clocks.py).

Email goes through Django's backend: console in development, SMTP from the environment in
production (config/settings).
"""

from __future__ import annotations

import logging
import unicodedata
import zoneinfo
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.live.presence import is_present
from games.models import Hand
from games.selectors.hands import hand_seat_users
from games.timing.turn_clock import clock_deadline
from notices.models import TurnNotice
from notices.reminders import turn_notice_moments
from notices.webpush import PushMessage, push_enqueue, push_wanted

log = logging.getLogger(__name__)

SWEEP_BATCH = 200  # hands read per query by the notice sweep


def table_url(table_id: int) -> str:
    return settings.SITE_URL.rstrip("/") + reverse("games:table", args=[table_id])


def _waiting_turn(hand: Hand | None, seat: int, since: int) -> bool:
    if hand is None or hand.is_finished or hand.voided_at is not None:
        return False
    return hand.turn_began(seat) == since


def header_safe(text: str) -> str:
    """``text`` on one line for a mail header: line breaks and other control characters become spaces
    (the forms refuse them in names; this keeps an older name from raising BadHeaderError)."""
    return " ".join("".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text).split())


def local_time(moment: datetime, user: User) -> datetime:
    try:
        return moment.astimezone(zoneinfo.ZoneInfo(user.time_zone or "UTC"))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return moment


def turn_notice_send(*, hand_id: int, seat: int, since: int, kind: str) -> bool:
    """Send the ``kind`` ("turn" or "reminder") notice for the turn of ``seat`` that began at version
    ``since``, by email and by push as the member chose; True when sent. Nothing when the turn is over,
    the member acted, is away or is present (a table or lobby page open), chose neither (email: turn
    notices "each" with an address, reminder on; push: notices/webpush.py), or it was sent already.
    """
    hand = Hand.objects.select_related("table__club").filter(pk=hand_id).first()
    if hand is None or hand.table.practice or not _waiting_turn(hand, seat, since):
        return False  # practice never sends a notice (docs/design.md "Engine contract"; PostgreSQL refuses one too)
    user = hand_seat_users(hand=hand).get(seat)
    if user is None or not user.is_active or user.away:
        return False
    if kind == TurnNotice.Kind.TURN:
        by_email = user.turn_notices == User.TurnNotices.EACH
    else:
        by_email = bool(user.turn_reminder)
    by_email = by_email and bool(user.email)
    by_push = push_wanted(user_id=user.pk, kind=str(kind))
    if not (by_email or by_push):
        return False
    if is_present(user_id=user.pk, club_id=hand.table.club_id):
        return False  # the page tells them; the sweep sends it should they leave while the turn still waits
    deadline = clock_deadline(hand.clocks[str(seat)])
    table = hand.table
    url = table_url(table.pk)
    context = {
        "user": user,
        "table": table,
        "club": table.club,
        "hand": hand,
        "url": url,
        "deadline": local_time(deadline, user),
        "zone": user.time_zone,
    }
    name = header_safe(table.name)
    if kind == TurnNotice.Kind.TURN:
        subject = f"Your turn at {name}"
        template = "email/turn.txt"
        line = f"{table.club.name}: the table waits for you."
    else:
        subject = f"Your clock at {name} runs out soon"
        template = "email/reminder.txt"
        line = f"{table.club.name}: act before {local_time(deadline, user):%H:%M} or the default applies."
    try:
        with transaction.atomic():
            TurnNotice.objects.create(hand=hand, seat=seat, since=since, kind=kind, user=user)
            if by_email:
                send_mail(
                    subject=subject,
                    message=render_to_string(template, context),
                    from_email=settings.DEFAULT_FROM_EMAIL,
                    recipient_list=[user.email],
                )
    except IntegrityError:
        return False  # sent already (a duplicate delivery)
    if by_push:  # sent by the push worker, never here: the alarm and the sweep apply clocks
        push_enqueue(
            user_id=user.pk,
            kind=str(kind),
            club_id=table.club_id,
            message=PushMessage(title=subject, body=header_safe(line), url=url, tag=f"table-{table.pk}"),
        )
    return True


def turn_notices_sweep(*, now: datetime | None = None, hand_ids: Sequence[int] | None = None) -> int:
    """Send every "your turn" notice and reminder that is due but was not sent (the beat's backstop, and a
    hand's alarm for its own: ``hand_ids``); returns how many were sent.

    Due: a waiting seat whose turn began (clock "began") ``TURN_NOTICE_GRACE_SECONDS`` ago or more,
    and for the reminder whose ``reminder_at`` has passed; not when its clock ran out already (the
    timeout sweep applies the default) or never ran (away). Entries without "began" are skipped: their
    tasks were scheduled before the sweep existed. Each goes through ``turn_notice_send``, which
    re-checks the turn and the member's preferences and sends at most once; the ``TurnNotice`` rows
    already written are skipped in bulk. Reads running hands by key, ``SWEEP_BATCH`` at a time.
    """
    now = now or timezone.now()
    turn, reminder = TurnNotice.Kind.TURN.value, TurnNotice.Kind.REMINDER.value
    sent = 0
    after = 0
    while True:
        running = Hand.objects.filter(
            finished_at__isnull=True, voided_at__isnull=True, deadline__isnull=False, pk__gt=after
        )
        if hand_ids is not None:
            running = running.filter(pk__in=list(hand_ids))
        rows = list(running.order_by("pk").values_list("pk", "clocks")[:SWEEP_BATCH])
        if not rows:
            break
        after = rows[-1][0]
        due: list[tuple[int, int, int, str]] = []
        for hand_id, clocks in rows:
            for seat, entry in (clocks or {}).items():
                moments = turn_notice_moments(entry)
                if moments is None or clock_deadline(entry) <= now:
                    continue  # nobody to tell (away), or overdue: the default is (being) applied
                key = (hand_id, int(seat), int(entry["since"]))
                if now >= moments[0]:
                    due.append((*key, turn))
                if moments[1] is not None and now >= moments[1]:
                    due.append((*key, reminder))
        if due:
            done = set(
                TurnNotice.objects.filter(hand_id__in={d[0] for d in due}).values_list(
                    "hand_id", "seat", "since", "kind"
                )
            )
            for hand_id, seat, since, kind in due:
                if (hand_id, seat, since, kind) in done:
                    continue
                try:
                    sent += turn_notice_send(hand_id=hand_id, seat=seat, since=since, kind=kind)
                except Exception:  # one failed mail must not stop the others; the next run retries it
                    log.exception("Notice %s of hand %s seat %s failed", kind, hand_id, seat)
        if len(rows) < SWEEP_BATCH:
            break
    return sent
