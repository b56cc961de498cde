"""The page of a finished hand: the story told once, one line per event, and the board as it stood at the end."""

from __future__ import annotations

import re

import pytest

import engine
from games import services
from games.services.hands import hand_apply_timeout
from tests.games.async_helpers import awaited, expire, user_at
from tests.games.helpers import fixed_deck, hidden_cards_in, labels, make_table

PILES_HOLES = {1: ["Js", "9c", "6d", "3h", "2s"], 2: ["Kc", "Kh", "Qc", "Qh", "Tc"]}
SQUARE1 = ["3d", "8s", "Jh", "Jc"]
SQUARE2 = ["Ac", "4s", "9h", "Qd"]
ROW = ["5h", "Jd", "2c", "Ks", "7d"]


def steps_of(html: str) -> list[str]:
    block = re.search(r'<ol class="steps">(.*?)</ol>', html, re.S)
    assert block, "no list of actions"
    return [
        " ".join(re.sub(r"<[^>]+>", "", li).split()) for li in re.findall(r"<li[^>]*>(.*?)</li>", block.group(1), re.S)
    ]


def board_of(html: str) -> str:
    match = re.search(
        r'<h2>Final board</h2>\s*<div class="board board-\w+" role="group" aria-label="Board">(.*?)\n  </div>',
        html,
        re.S,
    )
    assert match, "no final board"
    return match.group(1)


@pytest.mark.django_db
def test_a_piles_hand_page_tells_each_action_once_marks_the_timeout_and_shows_the_board(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(
        table_id=table.pk, user=a, deck=fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
    )
    first = awaited(hand)[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, first), action={"type": "bet", "amount": 25}, version=0)
    expire(hand)  # the other's clock runs out facing a bet: they fold, and the hand is over
    assert hand_apply_timeout(hand_id=hand.pk, version=1) is True
    hand.refresh_from_db()
    assert hand.is_finished

    html = client_for(a).get(f"/hands/{hand.pk}/").content.decode()
    steps = steps_of(html)
    bettor, folder = (a, b) if first == 1 else (b, a)
    # One line per event: the narration, never the action label beside it.
    assert f"{bettor.shown_name} bets $0.25." in steps
    assert f"{folder.shown_name} folds. (clock ran out)" in steps
    assert not any(s.startswith(f"{bettor.shown_name}: ") or s.startswith("Dealer:") for s in steps)
    assert sum("clock ran out" in s for s in steps) == 1
    assert 'class="timeout"' in html
    # The board as it stood: stage 1 turned two cards of square 1; the rest stay card backs, unrevealed.
    board = board_of(html)
    assert re.findall(r"<p class=\"pile-label\">([^<]+)</p>", board) == ["Square 1", "Square 2", "Row"]
    shown = re.findall(r'class="card suit-[cdhs]" role="img" aria-label="([a-z ]+)"', board)
    assert shown == labels(SQUARE1[:2])
    assert board.count('class="card back" role="img" aria-label="face-down card"') == 2 + 4 + 5
    assert hidden_cards_in(html.split("<h2>Actions in order</h2>")[0], SQUARE1[2:] + SQUARE2 + ROW) == set()


PIRANHA_HOLES = {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"]}
PIRANHA_BOARD = ["Kd", "Kh", "8c", "2d", "6s"]


@pytest.mark.django_db
def test_a_piranha_hand_page_shows_all_five_board_cards_and_the_sealed_decisions_once_open(
    club_setup, client_for
) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(PIRANHA_HOLES, PIRANHA_BOARD, button=1))
    for version, user in enumerate((a, b)):
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "in"}, version=version)
    hand.refresh_from_db()
    assert hand.is_finished

    html = client_for(b).get(f"/hands/{hand.pk}/").content.decode()
    shown = re.findall(r'class="card suit-[cdhs]" role="img" aria-label="([a-z ]+)"', board_of(html))
    assert shown == labels(PIRANHA_BOARD)
    steps = steps_of(html)
    assert f"{a.shown_name} stays in." in steps and f"{b.shown_name} stays in." in steps
    assert not any("has decided" in s for s in steps)
    assert not any("clock ran out" in s for s in steps)
