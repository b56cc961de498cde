"""Three players' sockets (and a spectator's) follow a full hand of Piranha and of Piles, acting over
their sockets. Each socket receives every version's public frame (the same bytes as the spectator's) and
its member's private frame when their own part changed, and no frame to anyone ever holds a card its
receiver may not see (another's hole cards, a face-down board card, the undealt deck) or another seat's
sealed decision before the reveal: neither the JSON views nor the public or private frames. Every
received frame is checked against the hand's state in the database.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

import engine
from accounts.models import User
from engine.cards import FULL_DECK, Card
from games import services
from games.models import Hand, Table
from tests.engine.helpers import visible_cards
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_consumers import close_worker_thread_connections, open_table  # noqa: F401
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ORDER as PILES_ORDER
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

SEALED_PHASES = {"drop", "declare"}


def check_frame(text: str, hand: Hand, user: User) -> None:
    """Nothing in ``text`` that ``user`` may not see of ``hand`` as stored now."""
    state = engine.state_from_json(hand.state)
    seat = next((int(s) for s, uid in hand.players.items() if int(uid) == user.pk), None)
    hidden = set(FULL_DECK) - visible_cards(state, seat)
    # No salt of the deal's commitment rides on a socket (openings are on the finished hand's page).
    for salt in hand.salts:
        assert salt not in text, f"{user} got a salt of the deal"
    kind = json.loads(text).get("type")
    if kind == "table.public":
        seat = None  # the public frame: what a spectator may see, whoever it is sent to
        hidden = set(FULL_DECK) - visible_cards(state, None)
    if kind in ("table.public", "table.private"):
        # The last hand's result (its showdown, public once it was over) is told above this hand's area.
        text = re.sub(r'<section class=\\"previous\\".*?</section>', "", text, flags=re.S)
    for code in hidden:
        assert f'"{code}"' not in text, f"{user} got hidden card {code}: {text[:300]}"
        at = text.find(Card.parse(code).label)
        assert at < 0, f"{user} got hidden card {Card.parse(code).label}: {text[max(0, at - 300) : at + 100]}"
        assert Card.parse(code).pretty not in text, f"{user} got hidden card {Card.parse(code).pretty}"
    message = json.loads(text)
    if message.get("type") == "table.public":
        check_fragment(message["html"], state, None, user)
    if message.get("type") == "table.private":
        assert set(message["parts"]) <= {"own_hand", "seat_actions", "row"}
        check_fragment("".join(message["parts"].values()), state, seat, user, whole=False)
    view = message.get("view") if message.get("type") == "hand.view" else None
    if message.get("type") == "hand.view":
        # Nothing rides along: the frame is the receiver's own engine view and a few public numbers.
        assert set(message) == {"type", "table", "hand", "number", "version", "finished", "your_turn", "view"}
        assert view == json.loads(json.dumps(engine.view_to_json(engine.view(state, seat))))
    if not view or view["phase"] not in SEALED_PHASES:
        return
    for j, other in enumerate(state.seats):
        if other == seat or not state.decisions[j]:
            continue
        entry = next(s for s in view["seats"] if s["seat"] == other)
        assert entry["decision"] in ("decided", "waiting"), f"{user} saw seat {other}'s sealed decision"
        assert entry["last_action"] != state.decisions[j]
        for event in view["events"]:
            if event.get("seat") == other:
                assert state.decisions[j] not in event.values(), f"{user} saw seat {other}'s decision in {event}"


DECISION_WORDS = re.compile(r"\u00b7\s*(in|out|high|low|pig)\b|stays in|drops out|declares (high|low|pig)")


def check_fragment(html: str, state: Any, seat: int | None, user: User, *, whole: bool = True) -> None:
    """In a sealed phase, no other seat's row (nor the log) of the table area tells its decision.
    ``whole``: the area, with every seat's row (else a member's own parts)."""
    if state.phase not in SEALED_PHASES:
        return
    rows = dict(re.findall(r'<li class="seat[^"]*" data-seat="(\d+)">(.*?)</li>', html, flags=re.S))
    assert rows or not whole, html[:300]
    for j, other in enumerate(state.seats):
        if other == seat or not state.decisions[j] or str(other) not in rows:
            continue
        row = rows[str(other)]
        assert not DECISION_WORDS.search(row), f"{user} saw seat {other}'s sealed decision: {row}"
        assert "decided" in row
    log = html.split('id="log-title"', 1)[-1] if 'id="log-title"' in html else ""
    assert not re.search(r"stays in|drops out|declares (high|low|pig)", log), f"{user} saw a decision in the log"


@database_sync_to_async
def check_frame_db(text: str, hand_id: int, user: User) -> tuple[int, bool]:
    hand = Hand.objects.get(pk=hand_id)
    check_frame(text, hand, user)
    return hand.version, hand.is_finished


@database_sync_to_async
def targets_after(hand_id: int) -> list[tuple[int, int]]:
    """The (hand, version) keys every socket must now receive: this hand's version, and the next hand's
    first one when this hand ended and the next was dealt in the same transaction."""
    hand = Hand.objects.get(pk=hand_id)
    keys = [(hand.pk, hand.version)]
    newer = Hand.objects.filter(table_id=hand.table_id, number__gt=hand.number).order_by("number").first()
    if newer is not None:
        keys.append((newer.pk, newer.version))
    return keys


async def read_checked(comm: WebsocketCommunicator, user: User, hand_id: int) -> dict[str, Any]:
    """The next frame, checked against the stored hand it names (else the hand being followed)."""
    text = (await comm.receive_output(timeout=10))["text"]
    message = json.loads(text)
    assert message["type"] != "error", message
    framed = message["type"] in ("hand.view", "table.public", "table.private")
    version, _ = await check_frame_db(text, message["hand"] if framed else hand_id, user)
    if framed:
        assert message["version"] == version  # in lock-step: what it got is what is stored
    message["text"] = text
    return message


async def play(table: Table, players: dict[int, User], spectator: User, script: list[tuple[int, str]]) -> int:
    """Play ``script`` (seat, action) over the sockets; every socket must see every version. Returns the hand id."""
    comms: dict[Any, tuple[WebsocketCommunicator, User]] = {
        seat: (await open_table(table.pk, user), user) for seat, user in players.items()
    }
    comms["spectator"] = (await open_table(table.pk, spectator), spectator)
    hand = await database_sync_to_async(lambda: Hand.objects.get(table=table, number=1))()
    for step, (seat, action) in enumerate(script, start=1):
        comm, user = comms[seat]
        await comm.send_json_to({"type": "action", "hand": hand.pk, "version": step - 1, "action": action})
        publics: dict[Any, dict[tuple[int, int], str]] = {who: {} for who in comms}
        privates: dict[Any, set[tuple[int, int]]] = {who: set() for who in comms}

        def note(who: Any, message: dict[str, Any], publics: Any = publics, privates: Any = privates) -> None:
            key = (message["hand"], message["version"])
            if message["type"] == "table.public":
                publics[who][key] = message["text"]
            elif message["type"] == "table.private":
                privates[who].add(key)

        while (message := await read_checked(comm, user, hand.pk))["type"] != "action.ok":
            note(seat, message)
        assert message["version"] == step
        keys = await targets_after(hand.pk)
        assert keys[0] == (hand.pk, step)
        for who, (other, other_user) in comms.items():
            while set(keys) - set(publics[who]):
                note(who, await read_checked(other, other_user, hand.pk))
        # The public frame: the same bytes on every screen, a spectator's among them.
        for key in keys:
            assert {publics[who][key] for who in comms} == {publics["spectator"][key]}
        # A private frame only to the members whose own part changed, as the public frame's marks say;
        # none to the spectator. It comes before its public frame.
        last = json.loads(publics["spectator"][keys[-1]])
        assert not privates["spectator"]
        for who in players:
            mark = last["marks"][str(who)]
            assert (keys[-1] in privates[who]) == (last["full"] or mark > step - 1), (who, last["marks"])
    for comm, _ in comms.values():
        assert await comm.receive_nothing(timeout=0.2)
        await comm.disconnect()
    return hand.pk


@pytest.mark.django_db(transaction=True)
async def test_three_sockets_follow_a_full_piranha_hand(club_setup) -> None:
    a, b, c = club_setup.members

    @database_sync_to_async
    def setup() -> Table:
        table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
        services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
        return table

    table = await setup()
    # The sealed drop: A and B stay in, C drops; opened together, A's aces full beat B.
    hand_id = await play(table, {1: a, 2: b, 3: c}, club_setup.organiser, [(1, "in"), (2, "in"), (3, "out")])
    hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    assert hand.is_finished and engine.result(engine.state_from_json(hand.state)).winners == (1,)


@pytest.mark.django_db(transaction=True)
async def test_three_sockets_follow_a_full_piles_hand(club_setup) -> None:
    a, b, c = club_setup.members

    @database_sync_to_async
    def setup() -> Table:
        table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
        deck = fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
        services.table_start(table_id=table.pk, user=b, deck=deck)
        return table

    table = await setup()
    script: list[tuple[int, str]] = []
    for stage in range(1, 10):
        for seat in PILES_ORDER:
            script.append((seat, ("bet:25" if seat == 2 else "call:25") if stage == 1 else "check"))
    script += [(1, "declare:pig"), (2, "declare:high"), (3, "declare:low")]
    hand_id = await play(table, {1: a, 2: b, 3: c}, club_setup.organiser, script)
    hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    assert hand.is_finished and engine.result(engine.state_from_json(hand.state)).winners == (1,)
