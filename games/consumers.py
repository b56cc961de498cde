"""Websocket consumers: a table (``ws/tables/<table_id>/``) and a club's lobby (``ws/clubs/<club_id>/lobby/``).

STYLE.md "From a click to every screen": after a commit the table's group hears only
``{"type": "hand.version", "table": t, "hand": h, "version": n}``; each socket then asks
``hand_view_for`` for its own user's view and sends that. No card travels through a group.

Close codes (a refused socket is accepted and then closed, so the browser sees the code and reason):

====  =======================================================================
4401  not logged in (the session is missing or has ended: re-read from the session store on every
      action, announced version and chat message, so a logout or password change closes open sockets)
4403  not allowed: not a member of the club, spectators kept out by the house rules,
      or membership ended while connected (re-checked on every action, version and chat message)
4404  no such table / club
4429  flood: far more messages than the per-socket limit
1009  a frame larger than 4 KB
1013  try again: Redis (the channel layer) is unreachable for now; the page reconnects with backoff
====  =======================================================================
A wrong ``Origin`` is refused at the handshake (HTTP 403) by ``AllowedHostsOriginValidator``.

Client -> server (JSON text frames, at most 4 KB, at most 20 per 10 s per socket):

- ``{"type": "sync"}``: send me the full view now (after a reconnect or a gap in versions).
- ``{"type": "action", "hand": h, "version": n, "action": "raise:25" | {"type": "raise", "amount": 25}}``:
  the same ``hand_apply_action`` as the form post; ``hand`` is optional (the hand being played).
- ``{"type": "chat", "text": "..."}`` and ``{"type": "chat.hide", "id": m}`` (organisers).
- ``{"type": "ping"}`` -> ``{"type": "pong"}``.

Server -> client:

- ``{"type": "hand.view", "table": t, "hand": h | null, "number": k, "version": n, "finished": bool,
  "your_turn": bool, "view": {...} | null}``: this user's whole view; sent on connect, on ``sync`` and
  after every announced version. Clients order views by (hand, version): hand ids only grow.
- ``{"type": "table.changed", "table": t}``: seats changed; reload the table area.
- ``{"type": "chat.history", "messages": [...]}`` on connect; ``{"type": "chat.message", "message":
  {"id", "author", "text", "at"}}``; ``{"type": "chat.hidden", "id": m}``.
- ``{"type": "action.ok", "hand": h, "version": n}``, ``{"type": "chat.ok", "id": m}``.
- ``{"type": "error", "message": "..."}``: to this socket only; nothing changed.
- Lobby: ``{"type": "lobby.changed"}``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from importlib import import_module
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.http import HttpRequest
from redis.exceptions import RedisError

from accounts.access import is_member
from accounts.models import Club, User
from config import metrics
from config.errors import DomainError
from games import selectors
from games.chat.selectors import chat_payload, chat_recent
from games.chat.services import chat_hide, chat_post
from games.forms import parse_action
from games.models import ChatMessage, Hand, Table
from games.services.announce import club_group, table_group
from games.services.hands import hand_apply_action

log = logging.getLogger(__name__)

CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_FLOOD = 4429
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013  # Redis unreachable: the page reconnects with backoff
JOIN_ATTEMPTS = 3

MAX_FRAME_BYTES = 4096
RATE_COUNT = 20  # messages per socket ...
RATE_SECONDS = 10.0  # ... in this many seconds; beyond it each message gets an error,
FLOOD_COUNT = 40  # and beyond this many the socket is closed (4429).


class _Refused(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _session_still_logs_in(scope: dict[str, Any], user: User) -> bool:
    """Whether the session this socket connected with still logs in ``user``, read afresh from the
    session store (the scope's copy was loaded at connect): a logout deletes the session, a password
    change alters its auth hash. The same test as an HTTP request's (``django.contrib.auth.get_user``)."""
    key = getattr(scope.get("session"), "session_key", None)
    if not key:
        return False
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    current = auth.get_user(request)
    return bool(current.is_authenticated) and current.pk == user.pk


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _JsonConsumer(AsyncWebsocketConsumer):
    """Frame checks shared by both consumers: size, rate, JSON, a known type; errors to this socket only."""

    handlers: dict[str, str] = {}
    user: User

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._recent: deque[float] = deque()
        self._joined: list[str] = []
        self._opened = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """A socket opening while Redis is unreachable (the layer cannot even name its channel) is told to
        try again, instead of failing the handshake with a server error."""
        try:
            await super().__call__(scope, receive, send)
        except (OSError, RedisError):
            if self._opened:
                raise
            log.warning("Refused a socket: Redis is unreachable", exc_info=True)
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN,
                        "reason": "Live updates are unavailable for a moment: reconnecting."})

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self._opened = True
        await super().accept(subprotocol, headers)

    async def refuse(self, code: int, reason: str) -> None:
        """Accept and close at once, so the client sees the application close code and reason."""
        await self.accept()
        await self.close(code=code, reason=reason)

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))

    async def send_error(self, message: str) -> None:
        await self.send_json({"type": "error", "message": message})

    async def join(self, group: str) -> bool:
        """Join a group; True when joined. A connection to Redis broken by a restart is re-opened on the next
        try; if Redis stays down, refuse with "try again" (the page reconnects with backoff) and say False."""
        for attempt in range(JOIN_ATTEMPTS):
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except (OSError, RedisError):
                if attempt + 1 == JOIN_ATTEMPTS:
                    log.warning("Could not join %s: Redis is unreachable", group, exc_info=True)
                    await self.refuse(CLOSE_TRY_AGAIN, "Live updates are unavailable for a moment: reconnecting.")
                    return False
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                self._joined.append(group)
                return True
        return False

    async def disconnect(self, code: int) -> None:
        for group in self._joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self._joined = []

    def _count(self) -> int:
        now = time.monotonic()
        self._recent.append(now)
        while self._recent and self._recent[0] < now - RATE_SECONDS:
            self._recent.popleft()
        return len(self._recent)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            await self.send_error(f"That message is too large (at most {MAX_FRAME_BYTES} bytes).")
            await self.close(code=CLOSE_TOO_BIG, reason="Message too large.")
            return
        count = self._count()
        if count > FLOOD_COUNT:
            await self.close(code=CLOSE_FLOOD, reason="Too many messages.")
            return
        if count > RATE_COUNT:
            await self.send_error("Too many messages: slow down.")
            return
        if text_data is None:
            await self.send_error("Send JSON text frames.")
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.send_error("That message was not valid JSON.")
            return
        kind = message.get("type") if isinstance(message, dict) else None
        handler = self.handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            await self.send_error("Unknown message type.")
            return
        try:
            await getattr(self, handler)(message)
        except _Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)

    async def on_ping(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "pong"})


class TableConsumer(_JsonConsumer):
    """A member's live table: views after every version, actions, chat."""

    handlers = {"sync": "on_sync", "action": "on_action", "chat": "on_chat", "chat.hide": "on_chat_hide",
                "ping": "on_ping"}

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_NOT_LOGGED_IN, "Log in to watch this table.")
            return
        self.user = user
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        try:
            await database_sync_to_async(self._check_access)()
        except _Refused as exc:
            await self.refuse(exc.code, exc.reason)
            return
        if not await self.join(table_group(self.table_id)):
            return
        await self.accept()
        await self.send_json(await database_sync_to_async(self._view_payload)(None))
        await self.send_json(await database_sync_to_async(self._chat_history)())

    # -- reads and checks (run in a worker thread) --

    def _check_access(self) -> Table:
        """The table, if this user is still logged in and may watch it now; else _Refused with the close code."""
        if not _session_still_logs_in(self.scope, self.user):
            raise _Refused(CLOSE_NOT_LOGGED_IN, "Your session has ended: log in again.")
        table = selectors.table_get(table_id=self.table_id)
        if table is None:
            raise _Refused(CLOSE_NOT_FOUND, "There is no such table.")
        if not is_member(user=self.user, club_id=table.club_id):
            raise _Refused(CLOSE_FORBIDDEN, "Only members of the club can watch its tables.")
        # The hand is looked up only where it matters: tables that keep spectators out.
        hand = None if table.rule_version.spectators_allowed else selectors.hand_current(table=table)
        if not selectors.table_may_watch(table=table, user=self.user, hand=hand):
            raise _Refused(CLOSE_FORBIDDEN, "The house rules keep spectators out of this table.")
        return table

    def _view_payload(self, hand_id: int | None) -> dict[str, Any]:
        """This user's view of hand ``hand_id`` of this table (None or another table's: the current hand)."""
        table = self._check_access()
        hand = None
        if hand_id is not None:
            hand = Hand.objects.select_related("rule_version").filter(pk=hand_id, table_id=table.pk).first()
        if hand is None:
            hand = selectors.hand_current(table=table)
        if hand is None:
            return {"type": "hand.view", "table": table.pk, "hand": None, "number": None, "version": None,
                    "finished": False, "your_turn": False, "view": None}
        view = selectors.hand_view_for(hand=hand, user=self.user)
        you = view.get("you")
        return {"type": "hand.view", "table": table.pk, "hand": hand.pk, "number": hand.number,
                "version": hand.version, "finished": hand.is_finished,
                "your_turn": not hand.is_finished and you is not None and you in view.get("to_act", []),
                "view": view}

    def _chat_history(self) -> dict[str, Any]:
        table = Table.objects.get(pk=self.table_id)
        return {"type": "chat.history", "messages": [chat_payload(m) for m in chat_recent(table=table)]}

    def _act(self, hand_id: Any, version: int, action: dict[str, Any]) -> Hand:
        table = self._check_access()  # membership re-checked on every action
        hands = Hand.objects.filter(table_id=table.pk)
        hand = hands.filter(pk=hand_id).first() if _is_int(hand_id) else hands.filter(
            finished_at__isnull=True).first()
        if hand is None:
            raise DomainError("That hand is not being played at this table.")
        return hand_apply_action(hand_id=hand.pk, user=self.user, action=action, version=version)

    # -- client messages --

    async def on_sync(self, message: dict[str, Any]) -> None:
        await self.send_json(await database_sync_to_async(self._view_payload)(None))

    async def on_action(self, message: dict[str, Any]) -> None:
        version = message.get("version")
        if not _is_int(version):
            await self.send_error("An action needs the version of the hand it was made against.")
            return
        raw = message.get("action")
        try:
            if isinstance(raw, str):
                action = parse_action(raw)
            elif isinstance(raw, dict) and isinstance(raw.get("type"), str):
                action = raw
            else:
                raise ValueError("Choose an action.")
        except ValueError as exc:
            await self.send_error(str(exc))
            return
        try:
            hand = await database_sync_to_async(self._act)(message.get("hand"), version, action)
        except DomainError as exc:
            await self.send_error(str(exc))
            return
        await self.send_json({"type": "action.ok", "hand": hand.pk, "version": hand.version})

    async def on_chat(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        if not isinstance(text, str):
            await self.send_error("A chat message needs its text.")
            return
        try:
            row = await database_sync_to_async(self._chat)(text)
        except DomainError as exc:
            await self.send_error(str(exc))
            return
        await self.send_json({"type": "chat.ok", "id": row.pk})

    async def on_chat_hide(self, message: dict[str, Any]) -> None:
        message_id = message.get("id")
        if not _is_int(message_id):
            await self.send_error("Which message?")
            return
        try:
            await database_sync_to_async(self._hide)(message_id)
        except DomainError as exc:
            await self.send_error(str(exc))

    def _chat(self, text: str) -> ChatMessage:
        self._check_access()  # session and membership re-checked on every chat message
        return chat_post(table_id=self.table_id, user=self.user, text=text)

    def _hide(self, message_id: int) -> None:
        self._check_access()
        if not ChatMessage.objects.filter(pk=message_id, table_id=self.table_id).exists():
            raise DomainError("There is no such message at this table.")
        chat_hide(message_id=message_id, user=self.user)

    # -- group messages (numbers only; each socket builds its own user's view) --

    async def hand_version(self, event: dict[str, Any]) -> None:
        hand_id = event.get("hand")
        try:
            payload = await database_sync_to_async(self._view_payload)(hand_id if _is_int(hand_id) else None)
        except _Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)
            return
        await self.send_json(payload)
        metrics.broadcast_observe(event)

    async def table_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "table.changed", "table": self.table_id})

    async def chat_message(self, event: dict[str, Any]) -> None:
        try:  # a socket whose session or membership ended hears no more chat
            await database_sync_to_async(self._check_access)()
        except _Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)
            return
        await self.send_json({"type": "chat.message", "message": event["message"]})

    async def chat_hidden(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat.hidden", "id": event["id"]})


class LobbyConsumer(_JsonConsumer):
    """A club's lobby: ``lobby.changed`` whenever tables, seats or turns change; the page re-renders its list."""

    handlers = {"ping": "on_ping", "sync": "on_sync"}

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_NOT_LOGGED_IN, "Log in to see the tables.")
            return
        self.user = user
        self.club_id = int(self.scope["url_route"]["kwargs"]["club_id"])
        code = await database_sync_to_async(self._check_access)()
        if code is not None:
            await self.refuse(*code)
            return
        if not await self.join(club_group(self.club_id)):
            return
        await self.accept()

    def _check_access(self) -> tuple[int, str] | None:
        """None if this user is still logged in and a member of the club; else (close code, reason)."""
        if not _session_still_logs_in(self.scope, self.user):
            return CLOSE_NOT_LOGGED_IN, "Your session has ended: log in again."
        if not Club.objects.filter(pk=self.club_id).exists():
            return CLOSE_NOT_FOUND, "There is no such club."
        if not is_member(user=self.user, club_id=self.club_id):
            return CLOSE_FORBIDDEN, "Only members of the club can see its tables."
        return None

    async def _still_allowed(self) -> bool:
        """Re-check session and membership; close the socket (and say False) if either ended."""
        code = await database_sync_to_async(self._check_access)()
        if code is not None:
            await self.close(code=code[0], reason=code[1])
            return False
        return True

    async def on_sync(self, message: dict[str, Any]) -> None:
        if await self._still_allowed():
            await self.send_json({"type": "lobby.changed"})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        if await self._still_allowed():
            await self.send_json({"type": "lobby.changed"})
