"""An organiser's club export and the older hands' whole deck: a folded or dropped hand reaches nobody.

The export holds of each finished hand only the cards opened to everyone (the board as turned, the hands
shown at a showdown), every other position as its leaf hash: the root published at the deal recomputes
from the file, each opened card verifies with ``python -m engine.verify``, and the club imports again
without those cards (its pages show none of them, not even to the player who held them). A hand dealt
under the older whole-deck scheme shows its deck only to who saw every hand of it, or after a ruling.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

import engine
from clubdata.archive import club_export
from clubdata.importing import club_import
from engine import verify
from engine.cards import FULL_DECK
from games import services
from games.models import Hand
from games.selectors.hands import hand_committed_positions
from games.services.closing import table_close
from tests.games.conftest import fixed_decks  # noqa: F401 - the fixture
from tests.games.helpers import hidden_cards_in, proof_in
from tests.games.test_hand_proof import Played, older_hand, page, played  # noqa: F401 - the fixture
from tests.games.test_piranha_game import HOLES_1

pytestmark = pytest.mark.django_db
DROPPED = HOLES_1[3]  # seat 3 dropped


def _export(played: Played) -> bytes:  # noqa: F811
    table_close(table_id=played.hand.table_id, user=played.organiser, reason="Done")  # stops the next hand
    out = io.BytesIO()
    club_export(club=played.hand.table.club, out=out, reason="Moving to a new host")
    return out.getvalue()


def _strings(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set().union(set(), *(_strings(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(set(), *(_strings(v) for v in data))
    return {data} if isinstance(data, str) else set()


def _levels(row: dict[str, Any]) -> list[list[bytes]]:
    """The tree of a hand of the file, built with the standalone verifier's encoding: the leaf of each
    opened card from its card and salt, the file's leaf hash for every other position."""
    tag = verify.TAG_V2 if row["scheme"] == verify.SCHEME_CUT_V2 else verify.TAG  # each scheme its own leaves
    leaves = [
        bytes.fromhex(row["closed_leaves"][str(i)])
        if str(i) in row["closed_leaves"]
        else verify.leaf_hash(row["id"], i, row["deck"][i], row["salts"][i], tag)
        for i in range(52)
    ]
    level = leaves + [hashlib.sha256(b"\x02" + tag).digest()] * 12
    levels = [level]
    while len(level) > 1:
        level = [verify.node_hash(level[k], level[k + 1]) for k in range(0, len(level), 2)]
        levels.append(level)
    return levels


def test_the_export_holds_a_dropped_hand_as_leaf_hashes_only(played: Played, tmp_path: Path) -> None:  # noqa: F811
    archive = zipfile.ZipFile(io.BytesIO(_export(played)))
    rows = {r["id"]: r for r in map(json.loads, archive.read("data/hands.jsonl").decode().splitlines())}
    actions = [json.loads(line) for line in archive.read("data/hand_actions.jsonl").decode().splitlines()]
    assert len(rows) == 2  # the hand played, and the next one the closing stopped
    for hand in Hand.objects.filter(pk__in=rows):
        row = rows[hand.pk]
        public = sorted(hand_committed_positions(hand=hand, state=engine.state_from_json(hand.state), seat=None))
        named = _strings(row).union(*(_strings(a) for a in actions if a["hand_id"] == hand.pk))
        assert named & set(FULL_DECK) == {hand.deck[i] for i in public}, hand.number
        assert sorted(int(p) for p in row["closed_leaves"]) == sorted(set(range(52)) - set(public))
        assert all(row["deck"][i] is None and row["salts"][i] is None for i in map(int, row["closed_leaves"]))
        # The root published at the deal recomputes from the file alone.
        levels = _levels(row)
        assert levels[-1][0].hex() == row["commitment"] == hand.commitment
        if row["scheme"] != verify.SCHEME_MERKLE:
            continue  # a signed-cut hand's proof (its cuts, seats and dealt places) is checked in tests/games
        # Each opened card verifies with the standalone checker.
        openings = [
            {
                "position": i,
                "card": row["deck"][i],
                "salt": row["salts"][i],
                "path": [levels[k][(i >> k) ^ 1].hex() for k in range(6)],
            }
            for i in public
        ]
        proof = tmp_path / f"hand-{hand.pk}.json"
        proof.write_text(
            json.dumps(
                {"scheme": verify.SCHEME_MERKLE, "hand_id": hand.pk, "root": row["commitment"], "openings": openings}
            )
        )
        assert verify.main([str(proof)]) == 0
    assert not set(DROPPED) & _strings([rows[played.hand.pk], [a for a in actions if a["hand_id"] == played.hand.pk]])


def test_the_imported_club_shows_no_dropped_card_even_to_who_held_it(played: Played, client_for) -> None:  # noqa: F811
    club = club_import(source=io.BytesIO(_export(played))).club
    dropper = played.players[3]
    originals = {h.number: h for h in Hand.objects.filter(table_id=played.hand.table_id)}
    for hand in Hand.objects.filter(table__club=club):
        assert hand.closed_leaves and hand.is_finished
        original = originals[hand.number]
        # Every card the file left out (the dropped hand among them), as it was dealt.
        left_out = [original.deck[int(p)] for p in hand.closed_leaves]
        assert hand.number != played.hand.number or set(DROPPED) <= set(left_out)
        for user in (dropper, played.organiser, played.players[1]):
            client = client_for(user)
            html = page(client, hand)
            assert hidden_cards_in(html, left_out) == set(), (hand.number, user.username)
            steps = client.get(f"/hands/{hand.pk}/replay.json")
            if steps.status_code == 200:
                for step in steps.json()["steps"]:
                    assert hidden_cards_in(step["html"], left_out) == set()
            proof = client.get(f"/hands/{hand.pk}/proof.json").json()
            public = sorted(hand_committed_positions(hand=hand, state=engine.state_from_json(hand.state), seat=None))
            assert [o["position"] for o in proof["openings"]] == [p for p in public if str(p) not in hand.closed_leaves]
        with pytest.raises(services.proof.DisputeRefused, match="club export"):
            services.hand_dispute_open(hand_id=hand.pk, user=played.organiser, reason="Show me")


def test_an_older_hand_shows_its_deck_only_to_who_saw_every_hand_of_it(played: Played, client_for) -> None:  # noqa: F811
    hand = older_hand(played.hand, "0f" * 16)
    hidden_from = [played.spectator, played.players[1], played.players[2], played.organiser]
    for user in hidden_from:  # seat 3 dropped: its cards were never shown to them
        html = page(client_for(user), hand)
        assert hidden_cards_in(html, DROPPED) == set(), user.username
        assert proof_in(html)["deck"] is None and verify.check_export(proof_in(html)) == []
        assert hand.salt not in html
        export = client_for(user).get(f"/hands/{hand.pk}/proof.json").json()
        assert export["deck"] is None and export["salt"] is None
    # Who dropped saw every hand of it (the two others were shown at the showdown): the whole deck checks.
    seen = proof_in(page(client_for(played.players[3]), hand))
    assert seen["deck"] == hand.deck and verify.check_export(seen) == []
    # An organiser's ruling opens it to the hand's players and the organisers; others still see no deck.
    services.hand_dispute_open(hand_id=hand.pk, user=played.organiser, reason="Ben asked")
    for user in (played.players[1], played.organiser):
        opened = proof_in(page(client_for(user), hand))
        assert opened["deck"] == hand.deck and verify.check_export(opened) == []
    assert hidden_cards_in(page(client_for(played.spectator), hand), DROPPED) == set()
