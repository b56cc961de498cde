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
from accounts.models import User
from games import services
from games.live import render
from games.models import Hand
from games.presentation import area
from games.selectors.snapshot import table_snapshot_read
from games.services.voiding import hand_void
from ledger.services import LedgerError
from tests.games.helpers import make_table


def _frame_html(table_id: int) -> str:
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    return str(json.loads(render.public_frame(snapshot))["html"])


def _previous_section(html: str) -> str:
    found = re.search(r'<section class="previous".*?</section>', html, re.S)
    return found.group(0) if found else ""


def _act_once(table_id: int, players: dict[int, User], rng: random.Random, *, stay: float = 0.8) -> bool:
    """One random legal action in the table's current hand, staying in with odds ``stay``; False once the game is
    over."""
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    assert hand is not None
    if hand.is_finished:
        return False
    state = engine.state_from_json(hand.state)
    seat = rng.choice(list(engine.to_act(state)))
    legal = list(engine.legal_actions(state, seat))
    staying = [a for a in legal if a.type not in ("fold", "out")]
    action = rng.choice(staying if staying and rng.random() < stay else legal)
    services.hand_act(hand_id=hand.pk, user=players[int(hand.players[str(seat)])], action=action, version=hand.version)
    return True


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_every_frame_from_the_kept_section_is_the_frame_rendered_afresh(club_setup, rules: engine.Rules) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, rules, players=[a, b, c])
    services.table_start(table_id=table.pk, user=a)
    players = {u.pk: u for u in (a, b, c)}
    rng = random.Random(11)
    shown = 0
    for _ in range(120):
        kept = _frame_html(table.pk)  # the section from the kept copy when an earlier frame rendered it
        area._PREVIOUS_HANDS._entries.clear()
        assert kept == _frame_html(table.pk)
        shown += bool(_previous_section(kept))
        if not _act_once(table.pk, players, rng):
            break
    assert shown > 5, "the game never showed a last hand"


@pytest.mark.django_db
def test_a_renamed_player_and_a_voided_hand_show_in_the_next_frame(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a)
    players = {u.pk: u for u in (a, b, c)}
    rng = random.Random(3)
    while not _previous_section(_frame_html(table.pk)):
        assert _act_once(table.pk, players, rng), "the game ended before a second hand"
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
        assert _act_once(table.pk, players, rng), "no last hand could be voided"
    assert "Voided" not in section
    section = _previous_section(_frame_html(table.pk))
    assert "Voided" in section and "Misdeal: two cards face up" in section
