"""A full hand of Piles through the pages: nine betting rounds, a sealed declaration with a pig.

The worked example of piles.txt ("One hand, both ways"): the player holding J♠9♣6♦3♥2♠ makes
four jacks and 5-4-3-2-A, declares pig and wins both halves.
"""

from __future__ import annotations

import re

import pytest

import engine
from engine import verify
from engine.piles import turned
from ledger.services import balance_of
from tests.games.helpers import (
    card_labels_in,
    fixed_deck,
    hidden_cards_in,
    http_start,
    http_table,
    labels,
    make_rule_set,
    post_action,
    proof_in,
)

HOLES = {1: ["Js", "9c", "6d", "3h", "2s"], 2: ["Kc", "Kh", "Qc", "Qh", "Tc"], 3: ["4c", "6h", "7c", "8c", "5c"]}
SQUARE1 = ["3d", "8s", "Jh", "Jc"]
SQUARE2 = ["Ac", "4s", "9h", "Qd"]
ROW = ["5h", "Jd", "2c", "Ks", "7d"]
ORDER = (2, 3, 1)  # the button is seat 1: seat 2 acts first in every round


def face_down(hand) -> list[str]:
    state = engine.state_from_json(hand.state)
    up = turned(state)
    return SQUARE1[up["square1"] :] + SQUARE2[up["square2"] :] + ROW[up["row"] :]


def check_pages(clients, hand, sealed: dict[int, str]) -> dict[int, str]:
    pages = {}
    hidden = face_down(hand)
    for seat, client in clients.items():
        html = client.get(f"/tables/{hand.table_id}/").content.decode()
        seen = card_labels_in(html)
        assert set(labels(HOLES[seat])) <= seen
        for other, cards in HOLES.items():
            if other != seat:
                assert not set(labels(cards)) & seen, f"seat {seat} sees seat {other}'s cards"
        assert not set(labels(hidden)) & seen, f"seat {seat} sees a face-down card"
        others = [c for other, cards in HOLES.items() if other != seat for c in cards]
        assert hidden_cards_in(html, others + hidden) == set(), f"seat {seat}'s page holds a hidden card"
        for other, choice in sealed.items():
            if other != seat:
                row = re.search(rf'data-seat="{other}">(.*?)</li>', html, re.S)
                assert row and "decided" in row.group(1) and choice not in row.group(1)
        pages[seat] = html
    return pages


@pytest.mark.django_db
def test_a_full_hand_of_piles_to_a_declaration_with_a_pig(club_setup, client_for, fixed_decks) -> None:
    a, b, c = club_setup.members
    club = club_setup.club
    clients = {1: client_for(a), 2: client_for(b), 3: client_for(c)}
    # Through the pages: A opens the table, each takes a seat accepting the rules, B starts.
    table = http_table(
        club, make_rule_set(club, club_setup.organiser, engine.PilesRules()), [clients[1], clients[2], clients[3]]
    )
    fixed_decks(fixed_deck(HOLES, SQUARE1 + SQUARE2 + ROW, button=1))
    hand = http_start(clients[2], table)
    assert {u: balance_of(club=club, user=u) for u in (a, b, c)} == {a: -25, b: -25, c: -25}

    # Round 1: seat 2 bets 25, the others call. Rounds 2-9: everyone checks. Before each action
    # every page is checked; only the seat to act has action buttons, with the stage's bet size.
    for stage in range(1, 10):
        for seat in ORDER:
            action = ("bet:25" if seat == 2 else "call:25") if stage == 1 else "check"
            pages = check_pages(clients, hand, {})
            assert f"stage {stage} of 9" in pages[seat]
            assert f'value="{action}"' in pages[seat]
            if seat == 2:  # the first to act may bet the stage's size (piles.txt 3.2 table)
                size = [25, 25, 25, 25, 25, 25, 50, 50, 100][stage - 1]
                assert stage == 1 or f'value="bet:{size}"' in pages[seat]
            for other in ORDER:
                if other != seat:
                    assert 'name="action"' not in pages[other]
            post_action(clients[seat], hand, action)
            hand.refresh_from_db()
    assert balance_of(club=club, user=a) == -50
    pages = check_pages(clients, hand, {})
    assert "four jacks" in pages[1] and "5-4-3-2-A low" in pages[1]  # the hand helper: best legal high and low
    assert 'value="declare:pig"' in pages[1]

    # The declaration is sealed until all have declared.
    post_action(clients[1], hand, "declare:pig")
    hand.refresh_from_db()
    check_pages({2: clients[2], 3: clients[3]}, hand, {1: "pig"})
    post_action(clients[2], hand, "declare:high")
    hand.refresh_from_db()
    check_pages({3: clients[3]}, hand, {1: "pig", 2: "high"})
    html = post_action(clients[3], hand, "declare:low")
    hand.refresh_from_db()
    assert hand.is_finished

    result = engine.result(engine.state_from_json(hand.state))
    assert result.winners == (1,) and result.failed_pigs == ()
    assert "declared pig" in html and "four jacks" in html and "winner" in html
    # Ledger: pot 150 (three antes, three bets of 25), all to the pig; the next hand is dealt at
    # once (button on seat 2) and its antes are posted too.
    assert balance_of(club=club, user=a) == -50 + 150 - 25
    assert balance_of(club=club, user=b) == -50 - 25
    assert balance_of(club=club, user=c) == -50 - 25
    nxt = table.hands.get(number=2)
    assert nxt.button == 2 and not nxt.is_finished
    history = clients[3].get(f"/hands/{hand.pk}/").content.decode()
    # The hand's page tells each action once (the narration) and shows the whole board at the end.
    assert f"{a.shown_name} declares pig (both ways)." in history and "Declare pig" not in history
    # The shown hands and the whole board are opened against the root; nothing else.
    proof = proof_in(history)
    assert verify.check_export(proof) == [] and "Verify" in history
    assert {o["card"] for o in proof["openings"]} == set(SQUARE1 + SQUARE2 + ROW).union(*(h.hole for h in result.hands))
    final = history.split("<h2>Final board</h2>")[1].split("<h2>")[0]
    assert re.findall(r'aria-label="([a-z ]+)">', final) == labels(SQUARE1 + SQUARE2 + ROW)
    assert history.count("<tr>") >= 1 + 6 + 1  # header, six payments, one award
