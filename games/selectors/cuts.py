"""Reads of the cut: the roots of a table's coming deals, and the cuts a member made of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accounts.models import User
from games.models import DealCut, DeckAhead, Table


def decks_coming(*, table: Table) -> list[dict[str, Any]]:
    """The table's deals whose decks are committed and not dealt yet, first coming first: {deal, root, at}.
    Only roots: a coming deck's cards and salts never leave the database before its hand ends."""
    rows = (
        DeckAhead.objects.filter(table=table, dealt_at__isnull=True)
        .order_by("number")
        .values_list("number", "root", "created_at", "wait_until")
    )
    return [
        {"deal": number, "root": root, "at": at.isoformat(), "waits_until": until.isoformat() if until else None}
        for number, root, at, until in rows
    ]


def deal_wait_until(*, table_id: int) -> datetime | None:
    """Until when the table's next deal waits for a cut (house rule ``cut_required``); None: it does not."""
    return (
        DeckAhead.objects.filter(table_id=table_id, dealt_at__isnull=True, wait_until__isnull=False)
        .order_by("number")
        .values_list("wait_until", flat=True)
        .first()
    )


def cuts_made(*, table: Table, user: User) -> dict[int, int]:
    """Deal number -> how many cuts ``user`` made of each coming deal of ``table``."""
    out: dict[int, int] = {}
    for number in DealCut.objects.filter(deck__table=table, deck__dealt_at__isnull=True, user=user).values_list(
        "deck__number", flat=True
    ):
        out[number] = out.get(number, 0) + 1
    return out
