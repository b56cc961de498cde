"""Piles under the low variant (piles.txt 5.1: a high must be a full house or better), played through the
services and read on the table page: what the hand helper and the result box say when no high qualifies.

Ann and Ben declare high and neither can make a full house; Olive declares low with 4-3-2-2-A.
"""

from __future__ import annotations

import pytest

import engine
from games import services
from tests.games.helpers import fixed_deck, make_table

SQUARE1 = ["3d", "8s", "Jh", "Jc"]
SQUARE2 = ["Ac", "4s", "9h", "Qd"]
ROW = ["5h", "Jd", "2c", "Ks", "7d"]
# Ann: ace-high straight at best; Ben: queen-high straight; Olive: 4-3-2-2-A, no full house for anyone.
HOLES = {1: ["Kd", "9s", "7s", "6s", "Tc"], 2: ["Qh", "Th", "8d", "6h", "4d"], 3: ["2h", "3c", "6d", "Td", "9d"]}


def _play_to_the_declarations(club_setup):
    ann, ben, olive = club_setup.members
    users = {1: ann, 2: ben, 3: olive}
    table = make_table(
        club_setup.club, club_setup.organiser, engine.PilesRules(low_variant=True), players=[ann, ben, olive]
    )
    hand = services.table_start(table_id=table.pk, user=ann, deck=fixed_deck(HOLES, SQUARE1 + SQUARE2 + ROW, button=1))
    while True:
        hand.refresh_from_db()
        state = engine.state_from_json(hand.state)
        if state.phase != "betting":
            return table, hand, users
        seat = engine.to_act(state)[0]
        services.hand_act(hand_id=hand.pk, user=users[seat], action={"type": "check"}, version=hand.version)


@pytest.mark.django_db
def test_with_every_card_up_the_helper_says_no_high_is_possible(club_setup, client_for) -> None:
    table, hand, users = _play_to_the_declarations(club_setup)
    page = client_for(users[1]).get(f"/tables/{table.pk}/").content.decode()
    assert "Your best legal high: <strong>no high possible</strong>" in page
    assert "Your best legal low: <strong>no low possible</strong>" in page
    olive = client_for(users[3]).get(f"/tables/{table.pk}/").content.decode()
    assert "Your best legal high: <strong>no high possible</strong>" in olive
    assert "Your best legal low: <strong>4-3-2-2-A low</strong>" in olive


@pytest.mark.django_db
def test_two_claimed_the_high_half_but_no_high_qualified(club_setup, client_for, fixed_decks) -> None:
    table, hand, users = _play_to_the_declarations(club_setup)
    fixed_decks(fixed_deck(HOLES, SQUARE1 + SQUARE2 + ROW, button=2))  # the next hand, dealt when this one ends
    for seat, choice in ((1, "high"), (2, "high"), (3, "low")):
        hand.refresh_from_db()
        services.hand_act(
            hand_id=hand.pk, user=users[seat], action={"type": "declare", "choice": choice}, version=hand.version
        )
    hand.refresh_from_db()
    outcome = engine.result(engine.state_from_json(hand.state))
    assert outcome.low_winners == (3,) and outcome.high_winners == () and outcome.winners == (3,)
    page = client_for(users[3]).get(f"/tables/{table.pk}/").content.decode()
    assert "No high qualified (a high must be a full house or better), so the low takes the whole pot." in page
    assert "Nobody claimed the high half" not in page
