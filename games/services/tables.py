"""Starting play at a table: the first hand dealt."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction

import engine
from accounts.models import User
from games.errors import TableRefused
from games.models import Hand, Table
from games.selectors.cuts import deal_wait_until
from games.services.after_commit import on_commit_work
from games.services.dealing import active_seats, hand_deal
from games.services.decks import DealWaitsForCut
from games.services.hands import hand_settle


def table_start(*, table_id: int, user: User, deck: Sequence[str] | None = None) -> Hand:
    """Start play: deal the first hand when at least two are seated and playing.

    Only a seated player may start. ``deck``: a fixed deck order (tests).
    Opens the durable transaction and locks the table row.
    """
    with transaction.atomic(durable=True):
        table = Table.objects.select_for_update(of=("self",)).select_related("rule_version").filter(pk=table_id).first()
        if table is None:
            raise TableRefused("There is no such table.")
        if table.status == Table.Status.FINISHED:
            raise TableRefused("This game is over.")
        if table.status == Table.Status.RUNNING or table.hands.filter(finished_at__isnull=True).exists():
            raise TableRefused("This table is already playing.")
        if not table.seats.filter(user=user, left_at__isnull=True).exists():
            raise TableRefused("Only a player seated at this table can start it.")
        rules = engine.rules_from_dict(table.rule_version.rules)
        if len(active_seats(table)) < rules.min_players:
            raise TableRefused("At least two players must be seated and playing to start.")
        try:
            with transaction.atomic():
                hand = hand_deal(table=table, created_by=user, deck=deck)
        except IntegrityError:
            raise TableRefused("This table is already playing.") from None
        if hand is not None:
            on_commit_work(hand_settle(hand=hand, state=engine.state_from_json(hand.state), created_by=user, after=-1))
    if hand is None:  # the deal's wait for a cut is recorded (committed); it is dealt when cut or timed out
        raise DealWaitsForCut(until=deal_wait_until(table_id=table_id))
    return hand
