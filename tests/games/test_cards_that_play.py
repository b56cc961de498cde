"""At a showdown the cards that play in each shown hand are marked and said "plays" in their names
(issue 29: how each hand is made): the hand's page, the table's box of the last hand and the replay's
last step; never a card of a hand that was not shown."""

from __future__ import annotations

import re

import pytest

import engine
from games import services
from games.presentation.reasons import ShownRow
from tests.games.helpers import fixed_deck, hidden_cards_in, labels, make_table

HOLES = {1: ["As", "Ad", "Ah", "4c"], 2: ["2c", "3d", "7h", "9s"], 3: ["Qc", "Qd", "Js", "Ts"]}
BOARD = ["Kd", "Kh", "8c", "2d", "6s"]
ACES_FULL = ["As", "Ad", "Ah", "Kd", "Kh"]  # seat 1: three aces of the hand, two kings of the board
KINGS_AND_TWOS = ["Kd", "Kh", "2c", "2d", "9s"]  # seat 2: two pair with a nine
NEXT_HOLES = {1: ["3c", "3h", "5d", "5s"], 2: ["6c", "6d", "7c", "7d"]}
NEXT_BOARD = ["Tc", "Td", "Jc", "Jd", "Qh"]
MARKED = re.compile(r'class="card suit-[cdhs] plays" role="img" aria-label="([a-z ]+), (plays[a-z ]*)"')
ANY_CARD = re.compile(r'class="card suit-[cdhs][^"]*" role="img" aria-label="([a-z ]+)[",]')


def shown_items(html: str) -> list[str]:
    block = re.search(r'<ul class="shown-hands">(.*?)</ul>', html, re.S)
    assert block, "no hands shown"
    return re.findall(r"<li[^>]*>(.*?)</li>", block.group(1), re.S)


def aces_then_kings(items: list[str]) -> list[str]:
    """The two shown hands, seat 1's first (the list goes in showdown order, from the dealer's left)."""
    assert len(items) == 2
    return sorted(items, key=lambda item: "ace of spades" not in item)


def assert_marks(item: str, five: list[str], hole: list[str]) -> None:
    marked = MARKED.findall(item)
    assert {label for label, _ in marked} == set(labels(five))
    assert {how for _, how in marked} == {"plays"}
    unmarked = set(ANY_CARD.findall(item)) - {label for label, _ in marked}
    assert unmarked == set(labels(hole)) - set(labels(five))


@pytest.fixture
def piranha_showdown(club_setup, fixed_decks):
    """Seats 1 and 2 stay in, seat 3 drops: a showdown of two hands, the third never shown."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    fixed_decks(fixed_deck(NEXT_HOLES, NEXT_BOARD, button=2))  # the next hand, dealt when this one ends
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES, BOARD, button=1))
    for version, (user, action) in enumerate(((a, "in"), (b, "in"), (c, "out"))):
        services.hand_act(hand_id=hand.pk, user=user, action={"type": action}, version=version)
    hand.refresh_from_db()
    assert hand.is_finished
    return table, hand


@pytest.mark.django_db
def test_the_hand_page_marks_exactly_the_five_each_shown_hand_plays(club_setup, client_for, piranha_showdown):
    _, hand = piranha_showdown
    html = client_for(club_setup.members[1]).get(f"/hands/{hand.pk}/").content.decode()
    first, second = aces_then_kings(shown_items(html))
    assert_marks(first, ACES_FULL, HOLES[1])
    assert_marks(second, KINGS_AND_TWOS, HOLES[2])
    assert "ace of spades, plays" in first and "four of clubs, plays" not in first
    assert hidden_cards_in(html.split("<h2>Ledger entries</h2>")[0], HOLES[3]) == set()


@pytest.mark.django_db
def test_the_table_box_of_the_last_hand_and_the_replay_mark_them_too(club_setup, client_for, piranha_showdown):
    table, hand = piranha_showdown
    viewer = client_for(club_setup.members[2])  # dropped: sees the two shown hands, and the next deal
    html = viewer.get(f"/tables/{table.pk}/").content.decode()
    previous = re.search(r'<section class="previous".*?</section>', html, re.S)
    assert previous, "no box of the last hand"
    first, second = aces_then_kings(shown_items(previous.group(0)))
    assert_marks(first, ACES_FULL, HOLES[1])
    assert_marks(second, KINGS_AND_TWOS, HOLES[2])

    spectator = client_for(club_setup.organiser)
    last = spectator.get(f"/hands/{hand.pk}/replay/?step=4").content.decode()
    assert "Showdown and payouts" in last
    first, second = aces_then_kings(shown_items(last))
    assert_marks(first, ACES_FULL, HOLES[1])
    assert_marks(second, KINGS_AND_TWOS, HOLES[2])
    assert hidden_cards_in(last, HOLES[3]) == set()
    assert not MARKED.findall(spectator.get(f"/hands/{hand.pk}/replay/?step=3").content.decode())


def test_a_piles_hole_card_says_which_half_it_plays_in():
    """piles.txt "One hand, both ways": J♠9♣ play in the high, 3♥2♠ in the low, 6♦ in neither."""
    row = ShownRow(
        seat=1,
        who="Ann",
        won=True,
        hole=("Js", "9c", "6d", "3h", "2s"),
        declared="pig",
        high=engine.HighHand("four jacks", "four jacks with a nine", ("Js", "Jh", "Jc", "Jd", "9c")),
        low=engine.LowHand("5-4-3-2-A low", ("5h", "4s", "3h", "2s", "Ac")),
    )
    assert row.hole_marks == [
        ("Js", "plays in the high"),
        ("9c", "plays in the high"),
        ("6d", ""),
        ("3h", "plays in the low"),
        ("2s", "plays in the low"),
    ]
