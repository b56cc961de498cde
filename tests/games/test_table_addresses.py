"""The table area's addresses (presenters ``table_urls``), kept by every id they are made of: each is the one
Django's ``reverse`` gives for that table, hand and next game, whatever was asked before it."""

from __future__ import annotations

import pytest
from django.urls import reverse

import engine
from games.models import Hand, Table
from games.presentation.presenters import table_urls
from tests.games.helpers import make_table, three_players_started

_BY_TABLE = (
    "hand_act",
    "table_start",
    "table_new_game",
    "seat_sit_in",
    "seat_sit_out",
    "seat_leave",
    "seat_take",
    "advance_set",
    "advance_cancel",
    "table_close",
    "hand_history",
    "table",
)
_BY_HAND = ("hand_detail", "hand_so_far", "hand_so_far_json")


def _reversed(table: Table, hand: Hand | None) -> dict[str, str]:
    game = table.rule_version.rule_set.game
    urls = {name: reverse(f"games:{name}", args=[table.pk]) for name in _BY_TABLE}
    urls["away_toggle"] = reverse("away_toggle")
    urls["lobby"] = reverse("games:lobby", args=[table.club_id])
    urls["rule_version"] = reverse("games:rule_version", args=[table.club_id, table.rule_version_id])
    urls["how_to_play"] = reverse("clubhouse:how_to_play", args=[table.club_id, game])
    if table.next_game_id is not None:
        urls["next_game"] = reverse("games:table", args=[table.next_game_id])
    if hand is not None:
        urls |= {name: reverse(f"games:{name}", args=[hand.pk]) for name in _BY_HAND}
    return urls


@pytest.mark.django_db
def test_each_table_hand_and_next_game_gets_its_own_addresses(club_setup) -> None:
    table, _ = three_players_started(club_setup, engine.PiranhaRules(ante=25))
    other = make_table(club_setup.club, club_setup.organiser, engine.PilesRules())
    hand = Hand.objects.get(table=table)
    for t, h in ((table, None), (table, hand), (other, None), (other, hand), (table, None)):
        assert table_urls(table=t, hand=h) == _reversed(t, h)
    table.next_game = other  # the players opened the next game while this hand is played
    assert table_urls(table=table, hand=hand) == _reversed(table, hand)
    assert table_urls(table=table, hand=hand)["next_game"] == reverse("games:table", args=[other.pk])
