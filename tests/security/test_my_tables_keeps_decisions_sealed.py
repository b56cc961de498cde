"""My tables during a sealed decision (Piranha's drop): another seat's decision shows only as decided, and a
seat that makes none (its clock running out, going away: its default waits for the opening) shows exactly as a
seat that has done nothing at a twin table: no choice, no "clock ran out", and no clock but the viewer's own."""

from __future__ import annotations

import re

import pytest

from tests.games.async_helpers import awaited, user_at
from tests.security.test_reading_a_sealed_decision_before_the_reveal import (
    TELLING,
    _text,
    client_for,
    decide,
    prepare,
)


def my_row(user, table_id: int) -> str:
    html = client_for(user).get("/tables/mine/block/").content.decode()
    for mark in TELLING:
        assert mark not in html, (user, mark)
    match = re.search(rf'<li[^>]*data-table-id="{table_id}">(.*?)</li>', html, re.S)
    assert match, "no row of the table"
    return match.group(1)


def seen(club_setup, way: str) -> dict[int, str]:
    """x decides by ``way``; then what a and b see of the table on My tables, times and ids aside."""
    a, b, _ = club_setup.members
    table_id, hand_id = prepare(club_setup, way)
    decide(club_setup, way, hand_id)
    rows = {}
    for user in (a, b):
        row = my_row(user, table_id)
        assert len(re.findall(r"<time ", row)) == 1  # one's own clock: both are still deciding
        text = re.sub(r"/tables/\d+/", "/tables/N/", re.sub(r"<time.*?</time>", "T", row, flags=re.S))
        rows[user.pk] = _text(text)
    return rows


@pytest.mark.django_db
@pytest.mark.parametrize("way", ["timeout", "away"])
def test_my_tables_shows_a_timed_out_or_away_drop_as_a_seat_still_deciding(club_setup, way: str) -> None:
    assert seen(club_setup, way) == seen(club_setup, "nothing")


@pytest.mark.django_db
def test_my_tables_shows_no_other_seats_clock_during_a_drop(club_setup) -> None:
    """Once b has decided too, b's row names who is still deciding but shows no clock of theirs."""
    from games.models import Hand
    from tests.games.helpers import post_action

    a, b, x = club_setup.members
    table_id, hand_id = prepare(club_setup, "click")
    decide(club_setup, "click", hand_id)
    hand = Hand.objects.get(pk=hand_id)
    post_action(client_for(b), hand, "out")
    hand.refresh_from_db()
    assert [user_at(hand, s).pk for s in awaited(hand)] == [a.pk]
    row = my_row(b, table_id)
    assert "<time" not in row and f"Waiting for {a.shown_name}" in _text(row)
    assert "drops out" not in _text(row) and "stays in" not in _text(row)
    assert "<time" in my_row(a, table_id)  # a's own clock
