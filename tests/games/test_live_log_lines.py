"""The hand log's lines are worded once each and kept with their hand, the names and the currency
(presenters ``_log_lines``): at every step of whole games the log the area shows is the one worded afresh, and
a player renamed mid-hand is named anew in every line."""

from __future__ import annotations

import json
import random

import pytest
from markupsafe import escape

import engine
from games.live.render import public_frame
from games.presentation.presenters import _log_lines, log_with_timeouts, public_context
from games.presentation.words import event_words
from games.selectors.snapshot import TableSnapshot, table_snapshot_read
from tests.games.helpers import act_at_random, three_players_started


def _snapshot(table_id: int) -> TableSnapshot:
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    return snapshot


def _worded_afresh(snapshot: TableSnapshot) -> list[str]:
    context = public_context(snapshot, snapshot.table.club.currency)
    view = context["view"]
    lines = [event_words(e, names=context["names"], currency=snapshot.table.club.currency) for e in view.events]
    return log_with_timeouts(hand=snapshot.hand, lines=lines)


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_the_kept_log_is_the_log_worded_afresh_and_follows_a_rename(club_setup, rules: engine.Rules) -> None:
    table, players = three_players_started(club_setup, rules)
    b = club_setup.members[1]
    rng = random.Random(5)
    for step in range(80):
        snapshot = _snapshot(table.pk)
        log = public_context(snapshot, table.club.currency)["log"]
        assert log == _worded_afresh(snapshot)
        if step == 6:
            b.display_name = "Bea Renamed"
            b.save(update_fields=["display_name"])
            renamed = public_context(_snapshot(table.pk), table.club.currency)["log"]
            assert any("Bea Renamed" in line for line in renamed) and not any(b.username in line for line in renamed)
        if not act_at_random(table.pk, players, rng, stay=0.9):
            break


def test_a_kept_log_is_reused_only_where_its_events_are_the_ones_shown() -> None:
    """The log kept for a hand serves the next version only as far as its events are that version's first ones:
    a log that is not the kept one's continuation (another state of the same hand id) is worded afresh."""
    names, currency = {1: "Ann", 2: "Bea"}, "USD"
    first = (engine.Ante(1, 25), engine.Ante(2, 25), engine.Check(1))
    other = (engine.Ante(1, 25), engine.Ante(2, 50), engine.Fold(1), engine.Check(2))

    def afresh(events: tuple[engine.Event, ...]) -> list[str]:
        return [event_words(e, names=names, currency=currency) for e in events]

    hand_id = 987_654_321  # no real hand's: the kept logs are the process's
    assert list(_log_lines(hand_id, first, names, currency)[0]) == afresh(first)
    assert list(_log_lines(hand_id, (*first, engine.Fold(2)), names, currency)[0]) == afresh((*first, engine.Fold(2)))
    assert list(_log_lines(hand_id, other, names, currency)[0]) == afresh(other)
    assert list(_log_lines(hand_id, first[:2], names, currency)[0]) == afresh(first[:2])


@pytest.mark.django_db
def test_the_public_frame_lists_each_line_of_the_log_escaped(club_setup) -> None:
    """A member's name that reads as markup is listed in the log as words, in every version's frame (each line
    is escaped once and listed again from then on)."""
    table, players = three_players_started(club_setup, engine.PiranhaRules(ante=25, betting_round=True))
    b = club_setup.members[1]
    b.display_name = '<b onclick="steal()">Bea</b> & Co'
    b.save(update_fields=["display_name"])
    rng = random.Random(7)
    for _ in range(3):
        snapshot = _snapshot(table.pk)
        html = json.loads(public_frame(snapshot))["html"]
        listed = html.split('id="log-title"', 1)[1].split("<ol>", 1)[1].split("</ol>", 1)[0]
        assert listed == "".join(f"<li>{escape(line)}</li>" for line in _worded_afresh(snapshot))
        assert str(escape(b.display_name)) in listed and "<b " not in html.split('id="log-title"', 1)[1]
        act_at_random(table.pk, players, rng, stay=1.0)
