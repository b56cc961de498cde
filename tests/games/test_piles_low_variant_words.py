"""Piles under the low variant (piles.txt 5.1: a high must be a full house or better), played through the
services and read on the table page: what the hand helper and the result box say when no high qualifies.
The helper says "none yet" only while a card still face down could give one (engine/reach.py).

Ann and Ben declare high and neither can make a full house; Olive declares low with 4-3-2-2-A.
"""

from __future__ import annotations

import re

import pytest

import engine
from games import services
from tests.games.helpers import fixed_deck, make_table

SQUARE1 = ["3d", "8s", "Jh", "Jc"]
SQUARE2 = ["Ac", "4s", "9h", "Qd"]
ROW = ["5h", "Jd", "2c", "Ks", "7d"]
# Ann: ace-high straight at best; Ben: queen-high straight; Olive: 4-3-2-2-A, no full house for anyone.
HOLES = {1: ["Kd", "9s", "7s", "6s", "Tc"], 2: ["Qh", "Th", "8d", "6h", "4d"], 3: ["2h", "3c", "6d", "Td", "9d"]}


def _play_to_the_declarations(club_setup, stage: int | None = None):
    """The hand with every betting round checked through (to the declarations), or to the betting round of
    ``stage``."""
    ann, ben, olive = club_setup.members
    users = {1: ann, 2: ben, 3: olive}
    table = make_table(
        club_setup.club, club_setup.organiser, engine.PilesRules(low_variant=True), players=[ann, ben, olive]
    )
    hand = services.table_start(table_id=table.pk, user=ann, deck=fixed_deck(HOLES, SQUARE1 + SQUARE2 + ROW, button=1))
    while True:
        hand.refresh_from_db()
        state = engine.state_from_json(hand.state)
        if state.phase != "betting" or state.stage == stage:
            return table, hand, users
        seat = engine.to_act(state)[0]
        services.hand_act(hand_id=hand.pk, user=users[seat], action={"type": "check"}, version=hand.version)


def _helper(page: str) -> str:
    found = re.search(r'<p class="helper">(.*?)</p>', page, re.S)
    assert found, "no hand helper"
    return " ".join(found.group(1).split())


NEEDS = "the low variant needs a full house or better"


@pytest.mark.django_db
def test_once_no_full_house_can_be_made_the_helper_no_longer_says_none_yet(club_setup, client_for) -> None:
    """Both squares up at stage 4: Ann's cards can make no full house whatever the row turns, so her helper
    says so, while Olive's low may still come with the row."""
    table, hand, users = _play_to_the_declarations(club_setup, stage=4)
    ann = _helper(client_for(users[1]).get(f"/tables/{table.pk}/").content.decode())
    assert (
        ann
        == "Your best legal high: <strong>no high possible</strong>. Your best legal low: <strong>no low possible</strong>."
    )
    olive = _helper(client_for(users[3]).get(f"/tables/{table.pk}/").content.decode())
    assert (
        olive
        == "Your best legal high: <strong>no high possible</strong>. Your best legal low: <strong>none yet</strong>."
    )
    ben = _helper(client_for(users[2]).get(f"/tables/{table.pk}/").content.decode())
    assert ben.startswith("Your best legal high: <strong>none yet</strong>.")  # queens full could still come

    table, hand, users = _play_to_the_declarations(club_setup, stage=5)  # the row's first card: a legal five
    ann = _helper(client_for(users[1]).get(f"/tables/{table.pk}/").content.decode())
    assert "Your best legal high: <strong>none that qualifies (your best is " in ann and NEEDS in ann, ann


@pytest.mark.django_db
def test_with_every_card_up_the_helper_names_the_high_that_does_not_qualify(club_setup, client_for) -> None:
    table, hand, users = _play_to_the_declarations(club_setup)
    page = client_for(users[1]).get(f"/tables/{table.pk}/").content.decode()
    assert _helper(page) == (
        f"Your best legal high: <strong>none that qualifies (your best is ace-high straight; {NEEDS})</strong>. "
        "Your best legal low: <strong>no low possible</strong>."
    )
    olive = client_for(users[3]).get(f"/tables/{table.pk}/").content.decode()
    assert "Your best legal high: <strong>none that qualifies (your best is " in _helper(olive)
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
    assert (
        f"{users[1].shown_name} and {users[2].shown_name} declared high, but neither has a full house or better, "
        "which a high needs in the low variant, so the low takes the whole pot." in page
    )
    assert "Nobody claimed the high half" not in page
