"""Writes of the table chat: post a line (length- and rate-limited), hide a line (organisers).

Each opens its own transaction and, on commit, tells the table's group so every open page
shows the change at once. Its reads are games/selectors/chat.py, its two plain form posts that work
without JavaScript games/views/chat.py; live delivery is the table socket's (games/live/consumer.py).
Chat text is public to the table, so it may travel through the group.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from redis.exceptions import RedisError

from accounts.access import is_member
from accounts.models import User
from games.models import ChatMessage, Table
from games.selectors.chat import chat_may_hide, chat_may_write, chat_payload
from games.signals import chat_announce
from kernel.errors import DomainError
from kernel.text import text_problem

MAX_CHARS = 500
RATE_COUNT = 5  # messages ...
RATE_SECONDS = 10  # ... per this many seconds, per member (Redis cache, shared by every web process)


class ChatRefused(DomainError):
    pass


def _announce(table_id: int, message: dict[str, Any]) -> None:
    """The line is stored; pages show it on their next load if this send is lost."""
    chat_announce(table_id, message)


def _rate_check(user: User) -> None:
    """At most RATE_COUNT lines per RATE_SECONDS per member, counted in Redis from the first line."""
    key = f"chat-rate:{user.pk}"
    try:
        cache.add(key, 0, timeout=RATE_SECONDS)
        try:
            count = cache.incr(key)
        except ValueError:  # the window expired between add and incr
            cache.add(key, 1, timeout=RATE_SECONDS)
            count = 1
    except (OSError, RedisError) as exc:  # Redis restarting: refuse plainly rather than post unlimited
        raise ChatRefused("The chat is unavailable for a moment: try again in a few seconds.") from exc
    if count > RATE_COUNT:
        raise ChatRefused(f"Slow down: at most {RATE_COUNT} messages every {RATE_SECONDS} seconds.")


def chat_post(*, table_id: int, user: User, text: str) -> ChatMessage:
    """Post one line to a table's chat. Raises ChatRefused (nothing stored) when the text is empty,
    longer than MAX_CHARS or holds control or format characters (kernel/text.py), the member is not seated at the table (spectators read only), no longer a
    member, or over the rate limit."""
    text = (text or "").strip()
    if not text:
        raise ChatRefused("Write something first.")
    if len(text) > MAX_CHARS:
        raise ChatRefused(f"A message holds at most {MAX_CHARS} characters.")
    problem = text_problem(text, what="A message", allow_joiners=True)
    if problem:
        raise ChatRefused(problem)
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ChatRefused("There is no such table.")
    if not is_member(user=user, club_id=table.club_id):
        raise ChatRefused("Only members of the club can chat at its tables.")
    if not chat_may_write(table=table, user=user):
        raise ChatRefused("Spectators can read the chat; take a seat to write.")
    _rate_check(user)
    with transaction.atomic():
        message = ChatMessage.objects.create(table=table, user=user, text=text)
        transaction.on_commit(partial(_announce, table.pk, {"type": "chat.message", "message": chat_payload(message)}))
    return message


def chat_hide(*, message_id: int, user: User) -> ChatMessage:
    """Hide a line for everyone (organisers only); hiding twice changes nothing. Raises ChatRefused."""
    with transaction.atomic():
        message = (
            ChatMessage.objects.select_for_update(of=("self",)).select_related("table").filter(pk=message_id).first()
        )
        if message is None:
            raise ChatRefused("There is no such message.")
        if not chat_may_hide(table=message.table, user=user):
            raise ChatRefused("Only the club's organisers can hide a message.")
        if message.hidden_at is None:
            message.hidden_at = timezone.now()
            message.hidden_by = user
            message.save(update_fields=["hidden_at", "hidden_by"])
            transaction.on_commit(partial(_announce, message.table_id, {"type": "chat.hidden", "id": message.pk}))
    return message
