"""Closing a table while a sealed decision is open: the hand ends without the decisions ever being opened,
so no view may tell them afterwards, not the choice ("Ann stays in.", ``{"type": "in"}``) and not a "clock
ran out" mark (a timeout takes the house rules' default, so the mark tells the choice too).

The scene (``test_side_doors_of_hidden_cards.scene``): seat 1 chose "in" by a click, seat 2's clock ran out (its
default waits for the opening, so nothing showed) and it then chose "out", seat 3 had not decided, then the
organiser closed the table.
"""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

from accounts.models import User
from clubdata.archive import club_export
from games.selectors.hands import hand_sealed_open
from tests.games.conftest import fixed_decks  # noqa: F401 - the fixture
from tests.games.test_hand_proof import played  # noqa: F401 - the fixture
from tests.security.test_side_doors_of_hidden_cards import Scene, _api, next_deck, scene  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


def _names(seen: Scene) -> list[str]:
    return [User.objects.get(pk=int(uid)).shown_name for _, uid in sorted(seen.stopped.players.items())]


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_hand_page_tells_each_decision_only_as_decided(scene: Scene, client_for) -> None:  # noqa: F811
    first, second, _ = _names(scene)
    for user in (scene.watcher, scene.organiser, scene.dropper):
        text = _text(client_for(user).get(f"/hands/{scene.stopped.pk}/").content.decode())
        assert f"{first} has decided." in text and f"{second} has decided." in text
        assert "stays in." not in text and "drops out." not in text and "(clock ran out)" not in text


def test_the_api_tells_each_decision_only_as_decided(scene: Scene) -> None:  # noqa: F811
    record = _api(scene.dropper).get(f"/api/v1/hands/{scene.stopped.pk}").json()
    assert [(a["action"], a["timeout"]) for a in record["actions"]] == [({"type": "decided"}, False)] * 2
    others = [s["decision"] for s in record["view"]["seats"] if s["seat"] != record["your_seat"]]
    assert others == ["decided", "decided"]


def test_the_replay_tells_each_decision_only_as_decided(scene: Scene, client_for) -> None:  # noqa: F811
    first, second, _ = _names(scene)
    steps = client_for(scene.watcher).get(f"/hands/{scene.stopped.pk}/replay.json").json()["steps"]
    told = " ".join(_text(s["html"]) for s in steps)
    assert f"{first} has decided." in told and f"{second} has decided." in told
    assert "stays in." not in told and "drops out." not in told and "(clock ran out)" not in told


def test_the_table_log_marks_no_timeout_of_the_closed_drop(scene: Scene, client_for) -> None:  # noqa: F811
    assert hand_sealed_open(hand=scene.stopped)  # never opened, though the hand has ended
    for user in (scene.watcher, scene.dropper):
        page = client_for(user).get(f"/tables/{scene.table.pk}/").content.decode()
        assert "(clock ran out)" not in page and "stays in." not in page and "drops out." not in page


def test_the_club_export_and_the_mails_tell_no_decision(scene: Scene) -> None:  # noqa: F811
    out = io.BytesIO()
    club_export(club=scene.table.club, out=out, reason="Moving")
    archive = zipfile.ZipFile(out)
    actions = [
        a
        for a in map(json.loads, archive.read("data/hand_actions.jsonl").decode().splitlines())
        if a["hand_id"] == scene.stopped.pk
    ]
    assert [(a["action"], a["is_timeout"]) for a in actions] == [({"type": "decided"}, False)] * 2
    hand = next(
        h
        for h in map(json.loads, archive.read("data/hands.jsonl").decode().splitlines())
        if h["id"] == scene.stopped.pk
    )
    assert "in" not in hand["state"]["decisions"] and "out" not in hand["state"]["decisions"]
    for message in scene.mails:
        assert "stays in." not in message.body and "drops out." not in message.body


def test_an_imported_copy_keeps_the_decisions_closed(scene: Scene, client_for) -> None:  # noqa: F811
    from clubdata.importing import club_import
    from games.models import Hand

    out = io.BytesIO()
    club_export(club=scene.table.club, out=out, reason="Moving")
    club = club_import(source=io.BytesIO(out.getvalue())).club
    copy = Hand.objects.get(table__club=club, number=scene.stopped.number)
    first, second, _ = _names(scene)
    client = client_for(scene.watcher)
    text = _text(client.get(f"/hands/{copy.pk}/").content.decode())
    assert f"{first} has decided." in text and f"{second} has decided." in text
    assert "stays in." not in text and "drops out." not in text and "(clock ran out)" not in text
    # The file does not hold the choices, so the copy's log no longer plays back: its replay says so.
    assert client.get(f"/hands/{copy.pk}/replay.json").status_code == 409
