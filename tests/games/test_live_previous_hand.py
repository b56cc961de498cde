"""The last hand's section of the table area is rendered once per process for each hand and time zone and kept
(games/presentation/area.py ``previous_hand``, by ``PreviousHand.key``): every frame that shows it from the kept
copy is byte for byte the frame rendered afresh, and what changes the section (a player's name, a voiding
ruling) shows in the next frame."""

from __future__ import annotations

import json
import random
import re

import pytest

import engine
from games.live import render
from games.models import Hand
from games.presentation import area
from games.selectors.snapshot import table_snapshot_read
from games.services.voiding import hand_void
from ledger.services import LedgerError
from tests.games.helpers import act_at_random, three_players_started


def _frame_html(table_id: int) -> str:
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    return str(json.loads(render.public_frame(snapshot))["html"])


def _previous_section(html: str) -> str:
    found = re.search(r'<section class="previous".*?</section>', html, re.S)
    return found.group(0) if found else ""


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_every_frame_from_the_kept_section_is_the_frame_rendered_afresh(club_setup, rules: engine.Rules) -> None:
    table, players = three_players_started(club_setup, rules)
    rng = random.Random(11)
    shown = 0
    for _ in range(120):
        kept = _frame_html(table.pk)  # the section from the kept copy when an earlier frame rendered it
        area._PREVIOUS_HANDS._entries.clear()
        assert kept == _frame_html(table.pk)
        shown += bool(_previous_section(kept))
        if not act_at_random(table.pk, players, rng):
            break
    assert shown > 5, "the game never showed a last hand"


@pytest.mark.django_db
def test_a_renamed_player_and_a_voided_hand_show_in_the_next_frame(club_setup) -> None:
    table, players = three_players_started(club_setup, engine.PilesRules())
    a, b, c = club_setup.members
    rng = random.Random(3)
    while not _previous_section(_frame_html(table.pk)):
        assert act_at_random(table.pk, players, rng), "the game ended before a second hand"
    named = next(u for u in (a, b, c) if u.shown_name in _previous_section(_frame_html(table.pk)))
    named.display_name = "Bea Renamed"
    named.save(update_fields=["display_name"])
    assert "Bea Renamed" in _previous_section(_frame_html(table.pk))

    while True:  # a last hand whose pot carried into the next can't be voided: play on to one that can
        section = _previous_section(_frame_html(table.pk))  # the section kept, not voided
        previous = Hand.objects.filter(table_id=table.pk, finished_at__isnull=False).order_by("-number").first()
        assert previous is not None
        try:
            if section:
                hand_void(hand=previous, reason="Misdeal: two cards face up", ruled_by=club_setup.organiser)
                break
        except LedgerError:  # its pot carried into the hand after it
            pass
        assert act_at_random(table.pk, players, rng), "no last hand could be voided"
    assert "Voided" not in section
    section = _previous_section(_frame_html(table.pk))
    assert "Voided" in section and "Misdeal: two cards face up" in section
