"""The messages of the live table and lobby sockets, as records: every frame the server sends and every message
it accepts, with their keys in the order they go on the wire; the limits, close codes and the one encoder
(docs/live.md "Messages", checked against these records by tests/games/test_frames_schema.py).

A frame sent is a frozen record whose ``to_frame()`` gives the JSON object, ``type`` first and then its fields
in the order declared; ``encoded()`` is that object through ``encode``. A message accepted is parsed here, once
(``message_parse``), into its record, with the words an ``error`` frame gives for anything malformed.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Container
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypedDict

CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_REPLACED = 4408
CLOSE_FLOOD = 4429
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013  # Redis unreachable: the page reconnects with backoff
CLOSE_SERVER_ERROR = 1011  # the socket failed on a group message (what the server sends when an app fails)

MAX_FRAME_BYTES = 4096  # also uvicorn's --ws-max-size on every server command (config/serve.py)
# A member playing fast against quick computers sends about two messages a second (an action each turn, a
# ping, a sync): the limit leaves twice that, so a move is never refused for pace; a script beyond it is.
RATE_COUNT = 40  # messages per socket ...
RATE_SECONDS = 10.0  # ... in this many seconds; beyond it each message gets an error,
FLOOD_COUNT = 80  # and beyond this many the socket is closed (4429).

PUBLIC = "table.public"
PRIVATE = "table.private"


# One encoder for every frame: ``json.dumps`` with separators of its own builds a new one at each call (2.4 of
# a short frame's 4.3 us of CPU).
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def encode(payload: dict[str, Any]) -> str:
    return _ENCODER.encode(payload)


def carried(kind: str, text: str) -> dict[str, Any]:
    """The group message that carries an encoded frame: each socket sends ``text`` as it is."""
    return {"type": kind, "text": text}


class Message:
    """A message of the sockets: ``TYPE`` on the wire, ``KEYS`` its fields in wire order (set by ``_records``)."""

    __slots__ = ()
    TYPE: ClassVar[str]
    KEYS: ClassVar[tuple[str, ...]] = ()
    # Who may be sent a frame of this type: a frame for "anyone" at the table holds only what a spectator sees.
    FOR: ClassVar[str] = "this socket"

    def to_frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": self.TYPE}
        for key in self.KEYS:
            frame[key] = getattr(self, key)
        return frame

    def encoded(self) -> str:
        return encode(self.to_frame())


# -- the values inside frames --


class Clock(TypedDict):
    seat: int
    deadline: str | None  # an ISO instant; none while a decision is sealed


class _SeatActions(TypedDict):
    seat_actions: str


class Parts(_SeatActions, total=False):  # (NotRequired is not seen in postponed annotations before Python 3.12)
    """A member's own parts of the table area (games/live/render.py ``PARTS``) and their seat row."""

    own_hand: str  # none while they hold no cards
    row: str  # none when not seated


class ChatLine(TypedDict):
    """One chat line (games/selectors/chat.py ``chat_payload``): the page puts ``text`` in as text, never HTML."""

    id: int
    author: str
    text: str
    at: str


class Receipt(TypedDict):
    """The receipt of a cut (games/services/cuts.py ``CutReceipt.to_dict``), kept by the browser."""

    table: int
    deal: int
    scheme: str
    root: str
    device: str
    cut: str
    at: str
    id: int


# -- server to client --


@dataclass(frozen=True, slots=True)
class _Ordered(Message):
    """The order key every table frame carries (docs/live.md "Order key")."""

    table: int
    hand: int | None
    version: int | None
    at: int


@dataclass(frozen=True, slots=True)
class TablePublic(_Ordered):
    """The table area as a spectator sees it, once per version, the same bytes to every socket of the table."""

    TYPE: ClassVar[str] = PUBLIC
    FOR: ClassVar[str] = "anyone"
    finished: bool
    full: bool
    to_act: list[int]
    clocks: list[Clock]
    marks: dict[str, int]
    html: str


@dataclass(frozen=True, slots=True)
class TablePrivate(_Ordered):
    """A member's own parts, to their own group only."""

    TYPE: ClassVar[str] = PRIVATE
    FOR: ClassVar[str] = "its member"
    seat: int | None
    your_turn: bool
    acted: bool
    parts: Parts


@dataclass(frozen=True, slots=True)
class HandView(Message):
    """The member's engine view of the hand (``engine.view_to_json``), on connect and ``sync``."""

    TYPE: ClassVar[str] = "hand.view"
    FOR: ClassVar[str] = "its member"
    table: int
    hand: int | None
    number: int | None
    version: int | None
    finished: bool
    your_turn: bool
    view: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ChatHistory(Message):
    TYPE: ClassVar[str] = "chat.history"
    messages: list[ChatLine]


@dataclass(frozen=True, slots=True)
class ChatPosted(Message):
    """A new chat line, to every socket of the table."""

    TYPE: ClassVar[str] = "chat.message"
    FOR: ClassVar[str] = "anyone"
    message: ChatLine


@dataclass(frozen=True, slots=True)
class ChatHidden(Message):
    TYPE: ClassVar[str] = "chat.hidden"
    FOR: ClassVar[str] = "anyone"
    id: int


@dataclass(frozen=True, slots=True)
class ActionOk(Message):
    TYPE: ClassVar[str] = "action.ok"
    hand: int
    version: int


@dataclass(frozen=True, slots=True)
class ChatOk(Message):
    TYPE: ClassVar[str] = "chat.ok"
    id: int


@dataclass(frozen=True, slots=True)
class CutOk(Message):
    TYPE: ClassVar[str] = "cut.ok"
    receipt: Receipt


@dataclass(frozen=True, slots=True)
class CutRefused(Message):
    TYPE: ClassVar[str] = "cut.refused"
    deal: int | None  # the deal named, when it was a deal number
    error: str


@dataclass(frozen=True, slots=True)
class Error(Message):
    """A message refused: nothing changed."""

    TYPE: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE: ClassVar[str] = "pong"


@dataclass(frozen=True, slots=True)
class LobbyChanged(Message):
    """To a club's lobby sockets, and to a member's table sockets at their other tables: tables, seats or turns
    changed; the page re-fetches its blocks (a table page, its header's count)."""

    TYPE: ClassVar[str] = "lobby.changed"
    FOR: ClassVar[str] = "anyone"


# -- client to server --


@dataclass(frozen=True, slots=True)
class Sync(Message):
    """Send me everything now (the one full render)."""

    TYPE: ClassVar[str] = "sync"


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True)
class Act(Message):
    """An action, as the form posts it. Its values are read by ``games.forms.act_request_parse``, in the same
    words as a form post's: ``action`` is "raise:25" or an object such as {"type": "raise", "amount": 25}."""

    TYPE: ClassVar[str] = "action"
    hand: object
    version: object
    action: object


@dataclass(frozen=True, slots=True)
class Chat(Message):
    TYPE: ClassVar[str] = "chat"
    text: str


@dataclass(frozen=True, slots=True)
class ChatHide(Message):
    """An organiser hides a chat line."""

    TYPE: ClassVar[str] = "chat.hide"
    id: int


@dataclass(frozen=True, slots=True)
class Cut(Message):
    """A seated member's signed cut of a coming deal (docs/fairness.md "Protocol" 5). Its values are checked by
    ``games.services.cuts.cut_take``, which answers a malformed one with ``cut.refused`` in words."""

    TYPE: ClassVar[str] = "cut"
    deal: object
    device: object
    signature: object


def _records(*records: type[Message]) -> dict[str, type[Message]]:
    for record in records:
        record.KEYS = tuple(field.name for field in fields(record))  # type: ignore[arg-type]
    return {record.TYPE: record for record in records}


SENT = _records(
    TablePublic,
    TablePrivate,
    HandView,
    ChatHistory,
    ChatPosted,
    ChatHidden,
    ActionOk,
    ChatOk,
    CutOk,
    CutRefused,
    Error,
    Pong,
    LobbyChanged,
)
ACCEPTED = _records(Sync, Ping, Act, Chat, ChatHide, Cut)


class Malformed(ValueError):
    """A message that cannot be read; its text is the ``error`` frame's words."""


# The words for a value of an accepted message that is not of its record's type (a field declared ``object`` is
# passed on as sent, for the service that reads it to answer in its own words).
_WORDS = {(Chat.TYPE, "text"): "A chat message needs its text.", (ChatHide.TYPE, "id"): "Which message?"}
_TYPED = {
    record.TYPE: {
        key: kind for key, kind in typing.get_type_hints(record).items() if key in record.KEYS and kind is not object
    }
    for record in ACCEPTED.values()
}


def _value(kind: str, data: dict[str, Any], key: str) -> Any:
    value = data.get(key)
    declared = _TYPED[kind].get(key)
    if declared is not None and type(value) is not declared:  # exactly: true is not a number here
        raise Malformed(_WORDS[kind, key])
    return value


def message_parse(text: str | None, accepted: Container[str]) -> Message:
    """The record of one text frame a socket was sent, of a type in ``accepted``; raises Malformed with words for
    the member. Keys a record does not name are ignored; values the services check (an action's, a cut's) are
    passed on as sent."""
    if text is None:
        raise Malformed("Send JSON text frames.")
    try:
        data = json.loads(text)
    except RecursionError:
        raise Malformed("That message is nested too deeply.") from None
    except ValueError:
        raise Malformed("That message was not valid JSON.") from None
    kind = data.get("type") if isinstance(data, dict) else None
    record = ACCEPTED.get(kind) if isinstance(kind, str) and kind in accepted else None
    if record is None:
        raise Malformed("Unknown message type.")
    return record(**{key: _value(record.TYPE, data, key) for key in record.KEYS})
