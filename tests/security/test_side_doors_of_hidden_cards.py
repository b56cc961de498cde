"""Every side door of a finished hand's data, walked for a hand with a dropped player and a hand a table's
closing stopped during the drop: no page, download or email may carry a card its viewer never saw or a
sealed decision that was never opened.

The doors: the hand page (its proof block and the proof JSON), the replay (each step's page and the JSON
of every step), the table's hand history and table page (its log), the API's hand endpoint, each member's
own data download, the ledger's CSV exports, the organiser's club export and the emails sent once the
table closed. Viewers: a member dealt into neither hand, the organiser (who played neither), and the
player who dropped in the first hand and had not decided in the second.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from typing import Any

import pytest
from django.core import mail
from django.test import Client

import engine
from accounts.models import User
from accounts.tokens import api_token_create
from clubdata.archive import club_export
from engine.cards import FULL_DECK
from games.models import Hand, Table
from games.selectors.hands import hand_committed_positions
from games.services.closing import table_close
from games.services.hands import hand_apply_timeout
from tests.games.async_helpers import expire, seat_of
from tests.games.conftest import fixed_decks  # noqa: F401 - the fixture
from tests.games.helpers import cards_in_view, fixed_deck, hidden_cards_in, post_action
from tests.games.test_hand_proof import Played, played  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db

#: Words that tell a sealed decision of the stopped hand: its choice, or that a clock took it (the default is
#: the house rules', so the mark tells the choice too).
DECISION_WORDS = (
    "stays in.",
    "drops out.",
    "(clock ran out)",
    '"type": "in"',
    '"type": "out"',
    '"type":"in"',
    '"type":"out"',
    "you chose",
    '"decision": "in"',
    '"decision": "out"',
)
HOLES_2 = {1: ["Tc", "Td", "Th", "Ts"], 2: ["9c", "9d", "9h", "Jc"], 3: ["8d", "8h", "8s", "Jd"]}
BOARD_2 = ["Qc", "Qd", "Qh", "Kc", "7c"]


@dataclass
class Scene:
    folded: Hand  # seats 1 and 2 show down; seat 3 drops
    stopped: Hand  # seat 1 "in" by a click, seat 2 "out" after its clock ran out, seat 3 undecided: then closed
    table: Table
    dropper: User  # seat 3 of both hands
    organiser: User
    watcher: User  # a member dealt into neither hand
    mails: list[Any]  # what was sent once the table closed


@pytest.fixture
def next_deck(fixed_decks) -> None:  # noqa: F811
    """The deck of the hand dealt when the first ends (the button moves to seat 2)."""
    fixed_decks(fixed_deck(HOLES_2, BOARD_2, button=2))


@pytest.fixture
def scene(club_setup, client_for, next_deck, played: Played) -> Scene:  # noqa: F811
    """``played`` (seats 1 and 2 show down, seat 3 drops), then the next hand's drop: seat 1 "in" by a click,
    seat 2 "out" by a click after its clock ran out, seat 3 undecided, and the organiser closes the table."""
    a, b, c = (played.players[n] for n in (1, 2, 3))
    folded, table = played.hand, played.hand.table
    stopped = table.hands.get(finished_at__isnull=True)
    assert stopped.state["phase"] == "drop" and stopped.deck[:12] == fixed_deck(HOLES_2, BOARD_2, button=2)[:12]
    post_action(client_for(a), stopped, "in")
    expire(stopped, [seat_of(stopped, b)])
    # b's clock ran out while c may still decide: its default waits for the opening (taken now, its moment would
    # tell it), so nothing is recorded and b may still choose, which b does.
    assert hand_apply_timeout(hand_id=stopped.pk, version=stopped.version) is False
    stopped.refresh_from_db()
    assert sorted(stopped.state["decisions"]) == ["", "", "in"]
    post_action(client_for(b), stopped, "out")
    stopped.refresh_from_db()
    assert sorted(stopped.state["decisions"]) == ["", "in", "out"]
    mail.outbox.clear()
    table_close(table_id=table.pk, user=club_setup.organiser, reason="Late night")
    stopped.refresh_from_db()
    assert stopped.is_finished and stopped.voided_at is not None
    return Scene(
        folded=folded,
        stopped=stopped,
        table=table,
        dropper=c,
        organiser=club_setup.organiser,
        watcher=played.spectator,
        mails=list(mail.outbox),
    )


def _seen(hand: Hand, user: User) -> set[str]:
    """The cards ``user`` saw of ``hand``: their seat's view of it as it ended (the board as turned, the
    hands shown, their own hole cards), or everyone's view."""
    state = engine.state_from_json(hand.state)
    seat = next((int(s) for s, uid in hand.players.items() if int(uid) == user.pk), None)
    return cards_in_view(engine.view(state, seat))


def _unseen(hand: Hand, user: User) -> list[str]:
    return [c for c in FULL_DECK if c not in _seen(hand, user)]


def _html_leaks(html: str, hand: Hand, user: User) -> set[str]:
    return hidden_cards_in(html, _unseen(hand, user))


def _json_leaks(data: Any, hand: Hand, user: User) -> set[str]:
    """Unseen cards anywhere in a JSON document: as a value, or in any HTML it carries."""
    unseen = set(_unseen(hand, user))
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            if value in unseen:
                found.add(value)
            elif "<" in value:
                found.update(hidden_cards_in(value, sorted(unseen)))

    walk(data)
    return found


def _no_decision(text: str, where: str) -> None:
    told = [w for w in DECISION_WORDS if w in text]
    assert not told, f"{where} tells the unopened sealed decision: {told}"


def _api(user: User) -> Client:
    _token, key = api_token_create(user=user, name="walk")
    return Client(HTTP_AUTHORIZATION=f"Bearer {key}")


def test_no_door_carries_an_unseen_card_or_an_unopened_decision(scene: Scene, client_for) -> None:
    viewers = [scene.watcher, scene.organiser, scene.dropper]
    hands = [scene.folded, scene.stopped]
    for user in viewers:
        client, api = client_for(user), _api(user)
        for hand in hands:
            where = f"hand {hand.number} to {user.username}"
            page = client.get(f"/hands/{hand.pk}/")
            assert page.status_code == 200
            html = page.content.decode()
            assert _html_leaks(html, hand, user) == set(), f"hand page of {where}"
            proof = client.get(f"/hands/{hand.pk}/proof.json").json()
            assert _json_leaks(proof, hand, user) == set(), f"proof of {where}"
            replay = client.get(f"/hands/{hand.pk}/replay.json")
            assert replay.status_code == 200
            steps = replay.json()["steps"]
            assert _json_leaks(replay.json(), hand, user) == set(), f"replay of {where}"
            for index in range(len(steps)):
                step = client.get(f"/hands/{hand.pk}/replay/?step={index}").content.decode()
                assert _html_leaks(step, hand, user) == set(), f"replay step {index} of {where}"
            record = api.get(f"/api/v1/hands/{hand.pk}")
            assert record.status_code == 200
            assert _json_leaks(record.json(), hand, user) == set(), f"API of {where}"
            if hand == scene.stopped:
                _no_decision(html, f"hand page of {where}")
                _no_decision(json.dumps(replay.json()), f"replay of {where}")
                for index in range(len(steps)):
                    _no_decision(
                        client.get(f"/hands/{hand.pk}/replay/?step={index}").content.decode(),
                        f"replay step {index} of {where}",
                    )
                told = record.json()
                told["view"].pop("legal_actions")  # the seat's own choices, not anyone's decision
                _no_decision(json.dumps(told), f"API of {where}")
        # The table's pages: its hand history and the table itself (its log of the stopped hand).
        history = client.get(f"/tables/{scene.table.pk}/hands/").content.decode()
        table_page = client.get(f"/tables/{scene.table.pk}/").content.decode()
        for text, name in ((history, "hand history"), (table_page, "table page")):
            _no_decision(text, f"{name} to {user.username}")
            assert _html_leaks(text, scene.stopped, user) == set(), f"{name} to {user.username}"
        # Their own data: each hand they were dealt into, as they saw it.
        own = client.get("/account/data/download.json").json()
        for entry in own["hands"]:
            hand = next(h for h in hands if h.pk == entry["hand"])
            assert _json_leaks(entry, hand, user) == set(), f"own data of {user.username}"
            if hand == scene.stopped:
                entry["what_you_saw"].pop("legal_actions")  # their own choices, not anyone's decision
                _no_decision(json.dumps(entry), f"own data of {user.username}")
    # The books as CSV hold no card and no decision.
    organiser = client_for(scene.organiser)
    club = scene.table.club_id
    for path in [
        f"/clubs/{club}/ledger/journal/export.csv",
        *(f"/clubs/{club}/ledger/members/{u.pk}/export.csv" for u in viewers),
    ]:
        response = organiser.get(path)
        assert response.status_code == 200, path
        text = b"".join(response.streaming_content if response.streaming else [response.content]).decode()
        assert hidden_cards_in(text, FULL_DECK) == set() and not re.search(r"\b[2-9TJQKA][cdhs]\b", text), path
        _no_decision(text, path)
    # The mails sent once the table closed.
    for message in scene.mails:
        _no_decision(message.subject + message.body, f"mail {message.subject!r}")
        for hand in hands:
            assert hidden_cards_in(message.body, _unseen(hand, scene.dropper)) == set()


def test_the_club_export_holds_only_what_everyone_saw(scene: Scene) -> None:
    out = io.BytesIO()
    club_export(club=scene.table.club, out=out, reason="Moving")
    archive = zipfile.ZipFile(out)
    rows = {r["id"]: r for r in map(json.loads, archive.read("data/hands.jsonl").decode().splitlines())}
    actions = [json.loads(line) for line in archive.read("data/hand_actions.jsonl").decode().splitlines()]
    for hand in (scene.folded, scene.stopped):
        public = {
            hand.deck[i]
            for i in hand_committed_positions(hand=hand, state=engine.state_from_json(hand.state), seat=None)
        }
        named = _strings(rows[hand.pk]) | set().union(*(_strings(a) for a in actions if a["hand_id"] == hand.pk))
        assert named & set(FULL_DECK) == public, f"hand {hand.number} names cards not opened to everyone"
    stopped = [a for a in actions if a["hand_id"] == scene.stopped.pk]
    assert [a["action"] for a in stopped] == [{"type": "decided"}, {"type": "decided"}]
    assert not any(a["is_timeout"] for a in stopped)
    assert sorted(rows[scene.stopped.pk]["state"]["decisions"]) == ["", "decided", "decided"]
    _no_decision(json.dumps(rows[scene.stopped.pk]) + json.dumps(stopped), "the club export")
    for name in ("books/journal.csv", "books/balances.csv"):
        _no_decision(archive.read(name).decode(), name)


def _strings(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set().union(*(_strings(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(_strings(v) for v in data)) if data else set()
    return {data} if isinstance(data, str) else set()
