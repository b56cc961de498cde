"""The shuffle proof on a finished hand's page (docs/design.md "Engine contract"): everyone who may see the
hand can check the board and the hands shown at the showdown against the root published at the deal;
each player also opens their own hole cards, privately; the rest opens only by an organiser's logged
ruling, which the players of the hand read. A dropped hand is never on a spectator's page, and the
JSON export checks with the standalone verifier."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

import engine
from accounts.models import User
from engine import verify
from games import services
from games.models import Hand, HandDispute
from tests.accounts.factories import MembershipFactory
from tests.games.helpers import current_hand, fixed_deck, make_table, post_action, proof_in
from tests.games.test_piranha_game import BOARD_1, HOLES_1

ROOT = Path(__file__).resolve().parent.parent.parent
CLAIM = "does not show that the shuffle itself was fair"


@dataclass
class Played:
    hand: Hand
    players: dict[int, User]  # seat -> player; seat 3 dropped
    spectator: User  # a member who was not dealt in
    organiser: User


@pytest.fixture
def played(club_setup, client_for, fixed_decks) -> Played:
    """A finished Piranha hand: seats 1 and 2 stay in and show down, seat 3 drops."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    players = {1: a, 2: b, 3: c}
    for seat, action in ((1, "in"), (2, "in"), (3, "out")):
        post_action(client_for(players[seat]), hand, action)
        hand.refresh_from_db()
    assert hand.is_finished
    spectator = MembershipFactory(club=club_setup.club).user
    return Played(hand=hand, players=players, spectator=spectator, organiser=club_setup.organiser)


def page(client, hand: Hand) -> str:
    response = client.get(f"/hands/{hand.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def closed_salts(hand: Hand, opened_cards: set[str]) -> list[str]:
    return [salt for card, salt in zip(hand.deck, hand.salts, strict=True) if card not in opened_cards]


@pytest.mark.django_db
def test_a_spectator_checks_the_board_and_the_shown_hands_and_nothing_else(played, client_for) -> None:
    hand, spectator = played.hand, client_for(played.spectator)
    html = page(spectator, hand)
    proof = proof_in(html)
    public = set(HOLES_1[1] + HOLES_1[2] + BOARD_1)
    assert proof["scheme"] == "merkle-sha256-v1" and proof["root"] == hand.commitment
    assert {o["card"] for o in proof["openings"]} == public
    assert verify.check_export(proof) == []
    assert CLAIM in html and "no card opened below was changed after the deal" in html
    # No salt of a closed position anywhere: not on the hand page, its export, the table or the history.
    export = spectator.get(f"/hands/{hand.pk}/proof.json").content.decode()
    assert json.loads(export) == proof
    table_page = spectator.get(f"/tables/{hand.table_id}/").content.decode()
    history = spectator.get(f"/tables/{hand.table_id}/hands/").content.decode()
    for salt in closed_salts(hand, public):
        assert salt not in html and salt not in export and salt not in table_page and salt not in history
    assert not set(HOLES_1[3]) & {o["card"] for o in proof["openings"]}
    assert " ".join(hand.deck) not in html and 'data-deck="' not in html
    # Every opened salt is on the page to be checked.
    for o in proof["openings"]:
        assert o["salt"] in html and hand.salts[o["position"]] == o["salt"]


@pytest.mark.django_db
def test_each_player_opens_their_own_hole_cards_privately(played, client_for) -> None:
    hand = played.hand
    public = set(HOLES_1[1] + HOLES_1[2] + BOARD_1)
    dropped = client_for(played.players[3])
    proof = proof_in(page(dropped, hand))
    mine = {o["card"]: o["opened_as"] for o in proof["openings"]}
    assert set(mine) == public | set(HOLES_1[3]) and verify.check_export(proof) == []
    assert all(mine[c] == "your hole card" for c in HOLES_1[3])
    for seat in (1, 2):  # the others never get the dropped hand's salts
        html = page(client_for(played.players[seat]), hand)
        assert {o["card"] for o in proof_in(html)["openings"]} == public
        for salt in closed_salts(hand, public):
            assert salt not in html


@pytest.mark.django_db
def test_an_organiser_opens_the_rest_only_by_a_ruling_its_players_read(played, client_for) -> None:
    hand = played.hand
    public = set(HOLES_1[1] + HOLES_1[2] + BOARD_1)
    organiser, member = client_for(played.organiser), client_for(played.players[1])
    assert {o["card"] for o in proof_in(page(organiser, hand))["openings"]} == public  # no right by office alone
    assert "Open the whole hand by a ruling" in page(organiser, hand)
    assert "Open the whole hand by a ruling" not in page(member, hand)

    assert member.post(f"/hands/{hand.pk}/open/", {"reason": "I want to see"}).status_code == 403
    html = organiser.post(f"/hands/{hand.pk}/open/", {"reason": "   "}, follow=True).content.decode()
    assert "Give the reason" in html and not HandDispute.objects.exists()

    reason = "Ben says the dropped hand held the ace of spades"
    html = organiser.post(f"/hands/{hand.pk}/open/", {"reason": reason}, follow=True).content.decode()
    ruling = HandDispute.objects.get(hand=hand)
    assert ruling.ruled_by == played.organiser and ruling.reason == reason
    assert "opened to its players" in html

    for client in (client_for(p) for p in played.players.values()):
        html = page(client, hand)
        proof = proof_in(html)
        assert len(proof["openings"]) == 52 and verify.check_export(proof) == []
        assert reason in html and proof["ruling"]["reason"] == reason
    assert len(proof_in(page(organiser, hand))["openings"]) == 52
    # A spectator reads neither the ruling nor the cards it opened.
    html = page(client_for(played.spectator), hand)
    assert reason not in html and {o["card"] for o in proof_in(html)["openings"]} == public
    for salt in closed_salts(hand, public):
        assert salt not in html
    # One ruling a hand.
    html = organiser.post(f"/hands/{hand.pk}/open/", {"reason": "again"}, follow=True).content.decode()
    assert "already been opened" in html and HandDispute.objects.count() == 1


@pytest.mark.django_db
def test_a_hand_in_play_cannot_be_opened(played) -> None:
    playing = current_hand(played.hand.table)
    with pytest.raises(services.proof.DisputeRefused, match="still being played"):
        services.hand_dispute_open(hand_id=playing.pk, user=played.organiser, reason="peek")
    assert not HandDispute.objects.exists()


@pytest.mark.django_db
def test_the_export_obeys_who_may_see_the_hand(played, client_for, club_setup) -> None:
    hand = played.hand
    assert client_for(club_setup.outsider).get(f"/hands/{hand.pk}/proof.json").status_code == 404
    response = client_for(played.spectator).get(f"/hands/{hand.pk}/proof.json")
    assert response["Content-Disposition"] == f'attachment; filename="hand-{hand.pk}.json"'
    playing = current_hand(hand.table)
    assert client_for(played.spectator).get(f"/hands/{playing.pk}/proof.json").status_code == 302
    version = hand.rule_version
    type(version).objects.filter(pk=version.pk).update(spectators_allowed=False)
    assert client_for(played.spectator).get(f"/hands/{hand.pk}/proof.json").status_code == 403
    assert client_for(played.players[3]).get(f"/hands/{hand.pk}/proof.json").status_code == 200


@pytest.mark.django_db
def test_the_standalone_verifier_checks_an_exported_hand(played, client_for, tmp_path) -> None:
    export = client_for(played.players[3]).get(f"/hands/{played.hand.pk}/proof.json").content
    good = tmp_path / "hand.json"
    good.write_bytes(export)

    def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
        # -S -E: no site-packages and no PYTHONPATH, so only the standard library can be imported.
        return subprocess.run([sys.executable, "-S", "-E", *args], cwd=cwd, capture_output=True, text=True, timeout=60)

    ok = run("-m", "engine.verify", str(good))
    # the board (5), the two hands shown (8) and the dropped player's own four
    assert ok.returncode == 0 and "OK: 17 opened card(s)" in ok.stdout and not ok.stderr, ok.stderr

    # The script alone, away from the project: only the standard library.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(ROOT / "engine" / "verify.py", alone / "verify.py")
    assert run("verify.py", str(good), cwd=alone).returncode == 0

    data = json.loads(export)
    data["openings"][0]["card"] = next(c for c in engine.cards.FULL_DECK if c != data["openings"][0]["card"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    failed = run("-m", "engine.verify", str(bad))
    assert failed.returncode == 1 and "FAIL: position" in failed.stdout

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert run("-m", "engine.verify", str(broken)).returncode == 2


def older_hand(hand: Hand, salt: str) -> Hand:
    """A finished hand as dealt before the per-card scheme: the same deal under one whole-deck commitment."""
    return Hand.objects.create(
        table_id=hand.table_id,
        number=hand.number + 100,
        rule_version_id=hand.rule_version_id,
        players=hand.players,
        button=hand.button,
        deck=hand.deck,
        scheme="deck-sha256",
        salt=salt,
        commitment=engine.deck_commitment(hand.deck, salt),
        state=hand.state,
        finished_at=hand.finished_at,
    )


@pytest.mark.django_db
def test_older_hands_keep_their_whole_deck_commitment_and_say_so(played, client_for, tmp_path) -> None:
    hand = played.hand
    salt = "0f" * 16
    hand = older_hand(hand, salt)
    # Who dropped saw every hand of it (the others were shown): the whole deck, under the older scheme.
    html = page(client_for(played.players[3]), hand)
    proof = proof_in(html)
    assert "older scheme" in html and proof["scheme"] == "deck-sha256"
    assert proof["deck"] == hand.deck and verify.check_export(proof) == []
    # To the others the deck opens only by a ruling (tests/security/test_folded_hands_in_a_club_export.py).
    assert "Open the whole hand by a ruling" in page(client_for(played.organiser), hand)


@pytest.mark.django_db
def test_postgresql_keeps_a_committed_deal_and_a_ruling_as_they_are(played) -> None:
    hand = played.hand
    changed = list(hand.salts)
    changed[0] = "0" * 32
    for change in (
        {"salts": changed},
        {"commitment": "0" * 64},
        {"deck": list(reversed(hand.deck))},
        {"scheme": "deck-sha256"},
        {"closed_leaves": {"0": "ab" * 32}},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            Hand.objects.filter(pk=hand.pk).update(**change)
    Hand.objects.filter(pk=hand.pk).update(version=hand.version)  # the rest of the row still moves
    ruling = services.hand_dispute_open(hand_id=hand.pk, user=played.organiser, reason="A claim")
    with pytest.raises(IntegrityError), transaction.atomic():
        HandDispute.objects.filter(pk=ruling.pk).update(reason="Nothing to see")
    with pytest.raises(IntegrityError), transaction.atomic():
        HandDispute.objects.filter(pk=ruling.pk).delete()
    assert HandDispute.objects.get(pk=ruling.pk).reason == "A claim"
