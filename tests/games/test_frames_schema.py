"""Every message the live sockets send or accept matches its record in games/live/frames.py, as Zulip's
event_schema.py checks its events: real sockets (the real Redis channel layer, the real PostgreSQL) follow a hand
of Piranha and one of Piles, a cut taken and refused, chat, ``sync``, bad input and the lobby; every frame a
socket sent and every message it accepted is checked against its record: its keys, in the record's order, none
missing, none unknown, and each value of the declared type. A frame for "anyone" is the same bytes a spectator is
sent; a member's own frames go to that member only, and hold no card or sealed decision beyond theirs (the
hands' frames are each checked against the stored hand by tests/games/test_consumers_hands.py's ``play``).
docs/live.md's tables of messages are these records' names and keys.
"""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache

import engine
from accounts.models import User
from games import services
from games.live import consumer, frames
from games.live.frames import ACCEPTED, SENT, Malformed, Message, message_parse
from games.models import Hand, Table
from tests.games.cut_keys import registered
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_consumers import (  # noqa: F401
    close_worker_thread_connections,
    next_of,
    open_lobby,
    open_table,
    piranha_table,
)
from tests.games.test_consumers_hands import check_frame_db, play
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ORDER as PILES_ORDER
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

DOCS = Path(__file__).resolve().parents[2] / "docs" / "live.md"


# -- the checker ---------------------------------------------------------------------------------------------------


def conforms(value: Any, kind: Any) -> bool:
    """Whether the JSON value ``value`` is of the declared type ``kind`` (as a record's field declares it)."""
    if kind is Any or kind is object:
        return True
    if kind is None or kind is type(None):
        return value is None
    if kind in (int, str, bool, float):
        return type(value) is kind  # exactly: true is no number, 1 no boolean
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        return any(conforms(value, option) for option in typing.get_args(kind))
    if origin is list:
        (item,) = typing.get_args(kind)
        return isinstance(value, list) and all(conforms(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(kind)
        return isinstance(value, dict) and all(conforms(k, key) and conforms(v, item) for k, v in value.items())
    if typing.is_typeddict(kind):
        return isinstance(value, dict) and not schema_errors(value, kind)
    raise AssertionError(f"the checker does not know the type {kind!r}")


def schema_errors(value: dict[str, Any], kind: Any, *, ordered: bool = False) -> list[str]:
    """What is wrong with ``value`` as a ``kind``: a record (``type`` first, then its keys in order when
    ``ordered``) or a TypedDict inside one."""
    hints = typing.get_type_hints(kind)
    if isinstance(kind, type) and issubclass(kind, Message):
        keys, required = ("type", *kind.KEYS), {"type", *kind.KEYS}
        hints = {"type": str, **{key: hints[key] for key in kind.KEYS}}
        if value.get("type") != kind.TYPE:
            return [f"type {value.get('type')!r} is not {kind.TYPE!r}"]
    else:
        keys, required = tuple(hints), set(kind.__required_keys__)
    errors = [f"{kind.__name__}: unknown key {key!r}" for key in value if key not in hints]
    errors += [f"{kind.__name__}: no {key!r}" for key in required - set(value)]
    errors += [
        f"{kind.__name__}.{key}: {value[key]!r} is not {hints[key]}"
        for key in value
        if key in hints and not conforms(value[key], hints[key])
    ]
    if ordered and not errors and tuple(value) != keys:
        errors.append(f"{kind.__name__}: keys {tuple(value)} are not in the order {keys}")
    return errors


def frame_errors(text: str) -> list[str]:
    """What is wrong with one frame a socket sent, encoded as it went."""
    value = json.loads(text)
    record = SENT.get(value.get("type")) if isinstance(value, dict) else None
    if record is None:
        return [f"no record for the frame {text[:120]}"]
    errors = schema_errors(value, record, ordered=True)
    if not errors and frames.encode(value) != text:
        errors.append(f"{record.__name__}: not encoded by frames.encode: {text[:120]}")
    return errors


# -- what the sockets sent and accepted -----------------------------------------------------------------------------


@dataclass
class Wire:
    sent: list[tuple[Any, str]] = field(default_factory=list)  # (the socket's consumer, the frame's text)
    accepted: list[tuple[str, Message]] = field(default_factory=list)  # (the text, its record)
    lenient: bool = False  # while bad input is sent: its records are not checked as well-formed


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    """Every text frame the sockets sent, taken from the ASGI ``send`` each socket is given (so whatever path a
    frame takes inside the consumer, it is seen), and every message the one parser accepted."""
    seen = Wire()
    call = consumer._JsonConsumer.__call__

    async def recorded_call(self: Any, scope: Any, receive: Any, send: Any) -> None:
        async def recorded_send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.send" and message.get("text") is not None:
                seen.sent.append((self, message["text"]))
            await send(message)

        await call(self, scope, receive, recorded_send)

    parse = consumer.message_parse

    def recorded_parse(text: str | None, accepted: Any) -> Message:
        record = parse(text, accepted)
        if not seen.lenient:
            assert text is not None
            seen.accepted.append((text, record))
        return record

    monkeypatch.setattr(consumer._JsonConsumer, "__call__", recorded_call)
    monkeypatch.setattr(consumer, "message_parse", recorded_parse)
    return seen


def check_wire(seen: Wire, spectator: User) -> None:
    """Every frame sent and message accepted against its record, and each frame to whom its record allows."""
    errors = [error for _, text in seen.sent for error in frame_errors(text)]
    for text, record in seen.accepted:
        errors += [
            f"accepted {text}: {error}" for error in schema_errors(json.loads(text), type(record), ordered=False)
        ]
    assert not errors, "\n".join(errors[:20])

    def same(text: str) -> str:  # a full render's frame is stamped with its own time (docs/live.md "Order key")
        value = json.loads(text)
        value.pop("at", None)
        return json.dumps(value)

    watched = {sock.table_id for sock, _ in seen.sent if getattr(sock, "user", None) == spectator}
    to_spectator = {same(text) for sock, text in seen.sent if getattr(sock, "user", None) == spectator}
    for sock, text in seen.sent:
        record = SENT[json.loads(text)["type"]]
        user = getattr(sock, "user", None)
        if record.FOR == "anyone" and record.KEYS and getattr(sock, "table_id", None) in watched:
            # The same frame on every screen of the table: nothing in it a spectator is not sent.
            assert same(text) in to_spectator, f"{record.TYPE} to {user} not sent to the spectator: {text[:200]}"
        if record is frames.TablePrivate:
            assert user != spectator, f"a private frame reached the spectator: {text[:200]}"
    for sock, text in seen.sent:
        value = json.loads(text)
        if value["type"] == "hand.view" and value["view"] is not None and sock.user == spectator:
            assert value["view"]["you"] is None and not value["your_turn"]


# -- the flows ------------------------------------------------------------------------------------------------------


@database_sync_to_async
def piranha_dealt(setup: Any) -> Table:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    return table


@database_sync_to_async
def piles_dealt(setup: Any) -> Table:
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, engine.PilesRules(), players=[a, b, c])
    deck = fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
    services.table_start(table_id=table.pk, user=b, deck=deck)
    return table


@database_sync_to_async
def hand_now(table: Table) -> Hand:
    hand = Hand.objects.filter(table=table).order_by("-number").first()
    assert hand is not None
    return hand


async def chat_sync_and_bad_input(seen: Wire, table: Table, setup: Any) -> None:
    """On a table mid-hand: chat and its hiding, ``sync`` and ``ping``, and bad input answered with errors."""
    a = setup.members[0]
    player, organiser = await open_table(table.pk, a), await open_table(table.pk, setup.organiser)
    await player.send_json_to({"type": "chat", "text": "good luck"})
    line = await next_of(player, "chat.ok")
    await next_of(organiser, "chat.message")
    await organiser.send_json_to({"type": "chat.hide", "id": line["id"]})
    await next_of(player, "chat.hidden")
    hand = await hand_now(table)
    await player.send_json_to({"type": "sync"})
    for kind in ("hand.view", "table.private", "table.public"):
        message = await next_of(player, kind)
        await check_frame_db(json.dumps(message), hand.pk, a)  # no card, no sealed decision, beyond a's own
    await player.send_json_to({"type": "ping"})
    await next_of(player, "pong")
    seen.lenient = True
    for text in ('{"type": "chat"}', '{"type": "chat.hide", "id": "x"}', '{"type": "launch"}', "{not json"):
        await player.send_to(text_data=text)
        await next_of(player, "error")
    await player.send_json_to({"type": "action", "hand": hand.pk, "version": hand.version + 5, "action": "in"})
    await next_of(player, "error")
    seen.lenient = False
    for comm in (player, organiser):
        await comm.disconnect()


async def cuts(setup: Any) -> None:
    """A cut of a coming deal taken (``cut.ok``) and a malformed one refused (``cut.refused``)."""
    a = setup.members[0]
    device, _ = await database_sync_to_async(registered)(a, 0)  # before the table commits its decks ahead
    table = await piranha_table(setup)
    player = await open_table(table.pk, a)
    cut = await database_sync_to_async(device.cut_of)(table, 3)  # deal 1 dealt, deal 2's list closed, 3 open
    await player.send_json_to(cut)
    await next_of(player, "cut.ok")
    await player.send_json_to({**cut, "signature": "x"})
    await next_of(player, "cut.refused")
    await player.disconnect()


async def lobby(table: Table, setup: Any) -> None:
    """A lobby socket told of a change, and answering its own ``sync`` and ``ping``."""
    a, b, c = setup.members
    socket = await open_lobby(setup.club.pk, c)
    await socket.send_json_to({"type": "ping"})
    await next_of(socket, "pong")
    await socket.send_json_to({"type": "sync"})
    await next_of(socket, "lobby.changed")
    await database_sync_to_async(services.seat_sit_out)(table_id=table.pk, user=c)
    await next_of(socket, "lobby.changed")
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_every_message_of_a_game_of_each_kind_matches_its_record(club_setup, wire: Wire) -> None:
    cache.delete_many([f"chat-rate:{u.pk}" for u in club_setup.everyone])  # rate counts outlive the database
    a, b, c = club_setup.members
    spectator = club_setup.organiser
    table = await piranha_dealt(club_setup)
    await chat_sync_and_bad_input(wire, table, club_setup)  # mid-hand, in the sealed drop
    await play(table, {1: a, 2: b, 3: c}, spectator, [(1, "in"), (2, "in"), (3, "out")])
    script: list[tuple[int, str]] = []
    for stage in range(1, 10):
        for seat in PILES_ORDER:
            script.append((seat, ("bet:25" if seat == 2 else "call:25") if stage == 1 else "check"))
    script += [(1, "declare:pig"), (2, "declare:high"), (3, "declare:low")]
    await play(await piles_dealt(club_setup), {1: a, 2: b, 3: c}, spectator, script)
    await cuts(club_setup)
    await lobby(table, club_setup)

    check_wire(wire, spectator)
    sent = {json.loads(text)["type"] for _, text in wire.sent}
    accepted = {record.TYPE for _, record in wire.accepted}
    assert sent == set(SENT), f"never sent: {set(SENT) - sent}"
    assert accepted == set(ACCEPTED), f"never accepted: {set(ACCEPTED) - accepted}"


# -- the checker and the parser, alone --------------------------------------------------------------------------------

PUBLIC = {
    "type": "table.public",
    "table": 7,
    "hand": 31,
    "version": 12,
    "at": 0,
    "finished": False,
    "full": False,
    "to_act": [3],
    "clocks": [{"seat": 3, "deadline": "2026-12-02T01:02:03+00:00"}],
    "marks": {"1": 10, "2": 12, "3": 12},
    "html": "<div></div>",
}


def test_the_checker_refuses_an_undeclared_key_a_missing_one_a_wrong_type_and_another_order() -> None:
    assert frame_errors(frames.encode(PUBLIC)) == []
    assert "unknown key 'cards'" in " ".join(frame_errors(frames.encode({**PUBLIC, "cards": ["As"]})))
    assert "no 'html'" in " ".join(frame_errors(frames.encode({k: v for k, v in PUBLIC.items() if k != "html"})))
    assert frame_errors(frames.encode({**PUBLIC, "full": 1}))
    assert frame_errors(frames.encode({**PUBLIC, "clocks": [{"seat": 3, "deadline": None, "card": "As"}]}))
    assert frame_errors(frames.encode({**PUBLIC, "marks": {"1": "10"}}))
    assert "order" in " ".join(frame_errors(frames.encode({"html": "", **PUBLIC})))
    assert frame_errors('{"type": "pong"}')  # not what frames.encode makes of it
    assert frame_errors(frames.encode({"type": "table.secret"}))
    private = frames.TablePrivate(
        table=7, hand=31, version=12, at=0, seat=3, your_turn=True, acted=False, parts={"seat_actions": ""}
    )
    assert frame_errors(private.encoded()) == []
    assert frame_errors(frames.encode({**private.to_frame(), "parts": {"seat_actions": "", "others": ""}}))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (None, "Send JSON text frames."),
        ("{not json", "That message was not valid JSON."),
        ("[" * 2000 + "]" * 2000, "That message is nested too deeply."),
        ("[1, 2]", "Unknown message type."),
        ('{"type": "cut"}', "Unknown message type."),  # not accepted by this socket
        ('{"type": "chat", "text": 5}', "A chat message needs its text."),
        ('{"type": "chat.hide", "id": true}', "Which message?"),
    ],
)
def test_the_parser_refuses_malformed_messages_in_words(text: str | None, words: str) -> None:
    with pytest.raises(Malformed, match=re.escape(words)):
        message_parse(text, {"ping", "sync", "chat", "chat.hide"})


def test_the_parser_gives_each_message_its_record() -> None:
    both = set(ACCEPTED)
    assert message_parse('{"type": "sync", "extra": 1}', both) == frames.Sync()
    assert message_parse('{"type": "chat.hide", "id": 4}', both) == frames.ChatHide(id=4)
    act = message_parse('{"type": "action", "hand": 3, "version": 2, "action": {"type": "raise", "amount": 25}}', both)
    assert act == frames.Act(hand=3, version=2, action={"type": "raise", "amount": 25})
    assert message_parse('{"type": "cut", "deal": "x"}', both) == frames.Cut(deal="x", device=None, signature=None)
    # Each typed value of an accepted message has its words for the member.
    assert set(frames._WORDS) == {(kind, key) for kind, keys in frames._TYPED.items() for key in keys}
    for socket in (consumer.TableConsumer, consumer.LobbyConsumer):
        assert set(socket.handlers) <= set(ACCEPTED), socket


# -- docs/live.md ---------------------------------------------------------------------------------------------------


def documented() -> dict[str, list[str]]:
    """The rows of the tables of docs/live.md's two "Frames" sections: each message type and its keys, in order."""
    rows: dict[str, list[str]] = {}
    section = ""
    for line in DOCS.read_text().splitlines():
        section = line if line.startswith("## ") else section
        cells = [cell.strip() for cell in line.strip("|").split("|")] if line.startswith("| `") else []
        if section.startswith("## Frames,") and len(cells) >= 3:
            kind = cells[0].strip("`")
            assert kind not in rows, f"{kind} is listed twice in docs/live.md"
            rows[kind] = re.findall(r"`([a-z_]+)`", cells[1])
    return rows


def test_the_docs_list_every_message_with_its_keys() -> None:
    rows = documented()
    wanted = {record.TYPE: list(record.KEYS) for record in [*SENT.values(), *ACCEPTED.values()]}
    missing = {kind: keys for kind, keys in wanted.items() if rows.get(kind) != keys}
    table = "\n".join(
        f"| `{kind}` | {', '.join(f'`{k}`' for k in keys) or 'none'} | ... |" for kind, keys in missing.items()
    )
    assert not missing, f"docs/live.md's rows of messages differ from games/live/frames.py; they should read:\n{table}"
    assert set(rows) <= set(wanted), f"docs/live.md lists messages frames.py does not: {set(rows) - set(wanted)}"
