"""Reads of the table chat."""

from __future__ import annotations

from typing import Any

from accounts.models import Membership, User
from games.models import ChatMessage, Table

RECENT = 50


def chat_recent(*, table: Table, limit: int = RECENT) -> list[ChatMessage]:
    """The newest visible lines of a table's chat, oldest first (hidden lines are left out for everyone)."""
    rows = list(
        ChatMessage.objects.filter(table=table, hidden_at__isnull=True).select_related("user").order_by("-id")[:limit]
    )
    rows.reverse()
    return rows


def chat_message_place(*, message_id: int) -> tuple[int, int] | None:
    """The table and the club of chat line ``message_id`` (hidden or not), or None."""
    return ChatMessage.objects.filter(pk=message_id).values_list("table_id", "table__club_id").first()


def chat_may_write(*, table: Table, user: User) -> bool:
    """Players seated at the table write; spectators (other members) only read."""
    return table.seats.filter(user=user, left_at__isnull=True).exists()


def chat_may_hide(*, table: Table, user: User) -> bool:
    """The club's organisers may hide a line for everyone."""
    return Membership.objects.filter(club_id=table.club_id, user=user, role=Membership.Role.ORGANISER).exists()


def chat_payload(message: ChatMessage) -> dict[str, Any]:
    """The public JSON of one line (the client puts ``text`` in with textContent, never as HTML)."""
    return {
        "id": message.pk,
        "author": message.user.shown_name,
        "text": message.text,
        "at": message.created_at.isoformat(),
    }
