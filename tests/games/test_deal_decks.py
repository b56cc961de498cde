"""The deal's one statement over the decks ahead (games/services/decks.py ``deck_ahead_deal``): the deal's deck
marked dealt, the next deal's list closed, the deck after next drawn under the id the deal left spare."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

import engine
from games import services
from games.models import CutList, DeckAhead, Table
from games.services.decks import deck_ahead_deal
from tests.games.helpers import make_table

pytestmark = pytest.mark.django_db


def _spare_id() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('\"games_hand\"', 'id'))")
        return int(cursor.fetchone()[0])


def test_the_deal_closes_the_next_list_and_draws_the_deck_after_next_in_its_one_statement(club_setup) -> None:
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=players)
    services.table_start(table_id=table.pk, user=players[0])  # deal 1 dealt; decks 2 and 3 drawn
    spare = _spare_id()
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        rules = engine.rules_from_dict(locked.rule_version.rules)
        with CaptureQueriesContext(connection) as ctx:
            ahead, cuts, drawn = deck_ahead_deal(table=locked, number=2, rules=rules, spare_id=spare)
    assert len(ctx.captured_queries) == 1 and drawn and cuts == []
    assert ahead.hand_id < spare and DeckAhead.objects.get(pk=ahead.pk).dealt_at is not None
    assert DeckAhead.objects.get(table=table, number=4).hand_id == spare
    assert CutList.objects.get(deck__table=table, deck__number=3).closed_by == "previous-deal"
    assert not CutList.objects.filter(deck__table=table, deck__number=4).exists()


def test_a_deal_without_a_deck_drawn_ahead_draws_it_now_and_leaves_the_decks_after_it_to_be_filled(
    club_setup,
) -> None:
    """No deck was committed for the deal (nobody could cut it): it is drawn now under a newer id than the
    spare one, so the deck after next is not drawn with the spare id (hand ids grow with the deals)."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=players)
    services.table_start(table_id=table.pk, user=players[0])
    spare = _spare_id()
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        rules = engine.rules_from_dict(locked.rule_version.rules)
        ahead, cuts, drawn = deck_ahead_deal(table=locked, number=7, rules=rules, spare_id=spare)
    assert not drawn and cuts == [] and ahead.hand_id > spare
    assert CutList.objects.get(deck=ahead).closed_by == "own-deal"
    assert not DeckAhead.objects.filter(table=table, number__in=[8, 9]).exists()
    assert not DeckAhead.objects.filter(hand_id=spare).exists()
