"""A full game of Piranha through the pages: three players, three hands, ending in an uncontested drop.

Every player's page is checked at each step for what it must show and what it must never show
(another's hole cards, a face-down board card, a sealed decision before the reveal), and the ledger
after each hand.
"""

from __future__ import annotations

import re

import pytest

import engine
from engine import verify
from games.models import HandAction, Table
from ledger.services import balance_of
from tests.games.helpers import (
    card_labels_in,
    current_hand,
    fixed_deck,
    hidden_cards_in,
    http_start,
    http_table,
    labels,
    make_rule_set,
    post_action,
    proof_in,
)

HOLES_1 = {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["4c", "5d", "Jh", "Qs"]}
BOARD_1 = ["Kd", "Kh", "8c", "2d", "6s"]
HOLES_2 = {1: ["Tc", "Td", "3s", "4h"], 2: ["5c", "6d", "7s", "8h"], 3: ["9c", "Jd", "Qh", "2h"]}
BOARD_2 = ["Ac", "Kc", "Qc", "4d", "5s"]
HOLES_3 = {1: ["Qd", "Qc", "7c", "7d"], 2: ["8d", "9d", "Th", "2s"], 3: ["3c", "4s", "5h", "6h"]}
BOARD_3 = ["Qs", "Js", "7s", "Ts", "9h"]


def seat_row(html: str, seat: int) -> str:
    match = re.search(rf'<li class="seat[^"]*" data-seat="{seat}">(.*?)</li>', html, re.S)
    assert match, f"no row for seat {seat}"
    return " ".join(match.group(1).split())


def check_pages(pages: dict[int, str], holes: dict[int, list[str]], board: list[str], board_up: int) -> None:
    """Each seat sees its own cards and the face-up board, never another's cards or a face-down card."""
    for seat, html in pages.items():
        seen = card_labels_in(html)
        assert set(labels(holes[seat])) <= seen, f"seat {seat} does not see its own cards"
        assert set(labels(board[:board_up])) <= seen
        for other, cards in holes.items():
            if other != seat:
                assert not set(labels(cards)) & seen, f"seat {seat} sees seat {other}'s cards"
        assert not set(labels(board[board_up:])) & seen, f"seat {seat} sees a face-down board card"
        hidden = [c for other, cards in holes.items() if other != seat for c in cards] + board[board_up:]
        assert hidden_cards_in(html, hidden) == set(), f"seat {seat}'s page holds a hidden card"
        assert html.count('class="card back"') >= 5 - board_up


@pytest.mark.django_db
def test_a_full_game_of_piranha_ends_in_an_uncontested_drop(club_setup, client_for, fixed_decks) -> None:
    a, b, c = club_setup.members
    spectator = club_setup.organiser
    clients = {1: client_for(a), 2: client_for(b), 3: client_for(c)}
    watcher = client_for(spectator)
    club = club_setup.club
    # Through the pages: A opens the table, each takes a seat accepting the rules, A starts.
    rule_set = make_rule_set(club, club_setup.organiser, engine.PiranhaRules(ante=25))
    table = http_table(club, rule_set, [clients[1], clients[2], clients[3]])

    # Hand 1: the button is seat 1; A and B stay in, C drops; A's aces full beat B.
    fixed_decks(fixed_deck(HOLES_1, BOARD_1, button=1))
    fixed_decks(fixed_deck(HOLES_2, BOARD_2, button=2))
    fixed_decks(fixed_deck(HOLES_3, BOARD_3, button=3))
    hand = http_start(clients[1], table)
    assert hand.number == 1 and hand.button == 1
    assert balance_of(club=club, user=a) == -25

    pages = {s: cl.get(f"/tables/{table.pk}/").content.decode() for s, cl in clients.items()}
    check_pages(pages, HOLES_1, BOARD_1, 3)
    assert "aces full of kings" in pages[1]  # the hand helper, from four hole cards and three up
    for html in pages.values():
        assert 'value="in"' in html and 'value="out"' in html
        assert 'data-hand-version="0"' in html
    for html in pages.values():  # deck and salt stay secret until the hand ends
        assert not any(salt in html for salt in hand.salts)
        assert " ".join(hand.deck[:8]) not in html and hand.commitment in html
    assert client_for(a).get(f"/hands/{hand.pk}/").status_code == 302  # no history of a hand in play
    public = watcher.get(f"/tables/{table.pk}/").content.decode()
    assert not set(labels(sum(HOLES_1.values(), []))) & card_labels_in(public)
    assert 'value="in"' not in public

    post_action(clients[1], hand, "in")
    hand.refresh_from_db()
    # A's sealed decision: "decided" to everyone else, never "in" before the reveal.
    for seat in (2, 3):
        html = clients[seat].get(f"/tables/{table.pk}/").content.decode()
        row = seat_row(html, 1)
        assert "decided" in row and "· in" not in row
        assert re.findall(r'<span class="seat-state">(.*?)</span>', row) == ["decided"], row
        check_pages({seat: html}, HOLES_1, BOARD_1, 3)
    assert "you chose in" in seat_row(clients[1].get(f"/tables/{table.pk}/").content.decode(), 1)

    post_action(clients[2], hand, "in")
    hand.refresh_from_db()
    post_action(clients[3], hand, "out")
    hand.refresh_from_db()
    assert hand.is_finished
    last = table.hands.get(number=1)
    result = engine.result(engine.state_from_json(last.state))
    assert result and result.winners == (1,) and result.next_pot == 75
    # The reveal: everyone sees the last hand's showdown (A and B), never C's dropped cards.
    for client in clients.values():
        page = client.get(f"/tables/{table.pk}/").content.decode()
        prev = re.search(r'<section class="previous".*?</section>', page, re.S)
        assert prev and "Won by" in prev.group(0)
        shown = set(re.findall(r'aria-label="([a-z ]+)[",]', prev.group(0)))
        assert set(labels(HOLES_1[1] + HOLES_1[2])) <= shown
        assert not set(labels(HOLES_1[3])) & shown
    # Ledger after hand 1 (hand 2 is dealt at once, so its ante is posted too).
    assert balance_of(club=club, user=a) == -25 + 75 - 25
    assert balance_of(club=club, user=b) == -25 - 75 - 25
    assert balance_of(club=club, user=c) == -25 - 25
    history = clients[2].get(f"/hands/{last.pk}/").content.decode()
    assert "aces full of kings" in history and "Winner" in history.title()
    # The reveal opens the board and the two shown hands against the root published at the deal,
    # never C's dropped cards; the page's script checks them again.
    proof = proof_in(history)
    assert proof["root"] == last.commitment and verify.check_export(proof) == []
    assert {o["card"] for o in proof["openings"]} == set(HOLES_1[1] + HOLES_1[2] + BOARD_1)
    assert 'src="/static/js/hand-proof.js"' in history and "<script>" not in history

    # Hand 2 is dealt at once: button on seat 2, the 75 matched carries in; everyone drops.
    table.refresh_from_db()
    hand = current_hand(table)
    assert hand.number == 2 and hand.button == 2 and hand.carry_in == 75
    pages = {s: cl.get(f"/tables/{table.pk}/").content.decode() for s, cl in clients.items()}
    check_pages(pages, HOLES_2, BOARD_2, 3)
    assert "Hand 2" in pages[1]
    for seat in (2, 3, 1):
        post_action(clients[seat], hand, "out")
        hand.refresh_from_db()
    assert hand.is_finished
    table.refresh_from_db()
    assert table.hands_played == 2
    assert balance_of(club=club, user=a) == 25 - 25  # hand 3's ante
    assert balance_of(club=club, user=b) == -125 - 25
    assert balance_of(club=club, user=c) == -50 - 25

    # Hand 3: the pot is 150 carried + 75 antes; A alone stays in and the game is over.
    hand = current_hand(table)
    assert hand.number == 3 and hand.button == 3 and hand.carry_in == 150
    pages = {s: cl.get(f"/tables/{table.pk}/").content.decode() for s, cl in clients.items()}
    check_pages(pages, HOLES_3, BOARD_3, 3)
    post_action(clients[2], hand, "out")
    hand.refresh_from_db()
    post_action(clients[1], hand, "in")
    hand.refresh_from_db()
    post_action(clients[3], hand, "out")
    hand.refresh_from_db()
    assert hand.is_finished
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.hands.count() == 3
    assert balance_of(club=club, user=a) == 0 + 225
    assert balance_of(club=club, user=b) == -150
    assert balance_of(club=club, user=c) == -75
    final = clients[2].get(f"/tables/{table.pk}/").content.decode()
    assert "The game is over" in final
    # An uncontested win shows no one's cards.
    assert not set(labels(HOLES_3[1])) & card_labels_in(final)
    assert HandAction.objects.filter(hand__table=table).count() == 9
