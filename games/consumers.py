"""Websocket consumers: a table (``ws/tables/<table_id>/``) and a club's lobby (``ws/clubs/<club_id>/lobby/``).

DESIGN.md "The path of one action": after a commit the table's group hears only
``{"type": "hand.version", "table": t, "hand": h, "version": n}``; each socket then pushes its own
member's table area, rendered from the same template the page includes (``games/area.jinja``),
from one table snapshot (games/selectors/snapshot.py) read once per (hand, version) per process, with no query
per socket; spectators share one render, and the parts every viewer sees alike are rendered once per
snapshot (games/area.py). Database work runs in the threads of the sockets' pool, not in
Channels' one shared thread (``_db_free``). No card travels through a group.

Access: session and membership are checked against the database on connect, and afterwards only when
the member's access stamp in the cache moved (bumped on logout, any change of the account such as a new
password, a membership made, changed or ended: games/apps.py). The stamps of a table's members are read
once per announced event per process, so a broadcast costs no access query, and a logged-out or removed
member is still cut off at the next broadcast, action or chat line.

Close codes (a refused socket is accepted and then closed, so the browser sees the code and reason):

====  =======================================================================
4401  not logged in (the session is missing, has expired or ended: logout, new password)
4403  not allowed: no such table or club, not a member of its club (the same code and words for
      both, so a non-member learns nothing), spectators kept out by the house rules, or membership
      ended while connected
4408  closed because the member opened more than ``live.SOCKETS_PER_MEMBER`` sockets (the oldest goes)
4429  flood: far more messages than the per-socket limit
1009  a frame larger than 4 KB (uvicorn refuses larger ones itself: ``--ws-max-size 4096``)
1013  try again: Redis (the channel layer) is unreachable for now; the page reconnects with backoff
====  =======================================================================
A wrong ``Origin`` is refused at the handshake (HTTP 403) by ``AllowedHostsOriginValidator``.

Client -> server (JSON text frames, at most 4 KB, at most 20 per 10 s per socket):

- ``{"type": "sync"}``: send me the JSON view and the table area now.
- ``{"type": "action", "hand": h, "version": n, "action": "raise:25" | {"type": "raise", "amount": 25}}``:
  read by ``forms.act_request_parse`` and applied by ``hand_act``, exactly as the form post is; ``hand``
  is optional (the hand being played).
- ``{"type": "chat", "text": "..."}`` and ``{"type": "chat.hide", "id": m}`` (organisers).
- ``{"type": "ping"}`` -> ``{"type": "pong"}``.

Server -> client:

- ``{"type": "table.html", "table": t, "hand": h | null, "version": n, "finished": bool, "your_turn": bool,
  "html": "<div id=\"table-live\">..."}``: this member's table area; on connect, on ``sync``, after every
  announced version and seat change. Clients order areas by (hand, version) (hand ids only grow) and
  never go back.
- ``{"type": "hand.view", "table": t, "hand": h | null, "number": k, "version": n, "finished": bool,
  "your_turn": bool, "view": {...} | null}``: this member's engine view as JSON, on connect and ``sync``.
- ``{"type": "table.changed", "table": t, "at": mark}``: seats changed (a table area follows).
- ``{"type": "chat.history", "messages": [...]}`` on connect; ``{"type": "chat.message", "message":
  {"id", "author", "text", "at"}}``; ``{"type": "chat.hidden", "id": m}``.
- ``{"type": "action.ok", "hand": h, "version": n}``, ``{"type": "chat.ok", "id": m}``.
- ``{"type": "error", "message": "..."}``: to this socket only; nothing changed.
- Lobby: ``{"type": "lobby.changed"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from typing import Any

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.db import connections
from django.http import HttpRequest
from django.utils import timezone
from django.utils.functional import empty
from redis.exceptions import RedisError

from accounts.access import ClubAccess, is_member, membership_of
from accounts.models import User
from config import metrics
from config.errors import DomainError
from games import engine, live, presence
from games.broadcast import club_group, table_group
from games.forms import ActRequest, act_request_parse
from games.models import Hand, Table
from games.selectors.chat import chat_message_place, chat_payload, chat_recent
from games.selectors.hands import hand_current, hand_of_table, hand_seat_of, hand_view_for
from games.selectors.snapshot import TableSnapshot, table_snapshot_read
from games.selectors.tables import table_get, table_may_watch
from games.services.chat import chat_hide, chat_post
from games.services.hands import hand_act

log = logging.getLogger(__name__)

CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_FLOOD = 4429
CLOSE_REPLACED = 4408
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013  # Redis unreachable: the page reconnects with backoff
JOIN_ATTEMPTS = 3

MAX_FRAME_BYTES = 4096  # also uvicorn's --ws-max-size on every server command
RATE_COUNT = 20  # messages per socket ...
RATE_SECONDS = 10.0  # ... in this many seconds; beyond it each message gets an error,
FLOOD_COUNT = 40  # and beyond this many the socket is closed (4429).

NOT_YOURS_TABLE = "There is no such table, or you may not watch it."
NOT_YOURS_CLUB = "There is no such club, or you are not one of its members."

_db = database_sync_to_async

# The sockets' database work (actions, each version's snapshot, access stamps) runs in a pool of its own
# with a fixed number of threads, whatever the machine's cores (the loop's default grows with them): each
# thread waiting for the interpreter's lock wakes and sleeps again at every hand-over. Measured on two
# cores (bench/load.py, one worker, runs in turn): two threads made 105 to 110 context switches per action
# against 181 to 186 with six, but neither the web process's CPU per action nor its throughput moved, and
# a click reached the other players' screens later at p95 in real browsers (94 to 108 ms against 83 to 89,
# tests/e2e/test_live_table.py). So six, as the loop's default gives two cores.
SOCKET_DB_THREADS = 6
_socket_db = ThreadPoolExecutor(max_workers=SOCKET_DB_THREADS, thread_name_prefix="socket-db")


def _db_free(func: Any) -> Any:
    """``func`` run in a thread of the sockets' pool (``_socket_db``), not in Channels' one shared thread,
    so the sockets' reads and the actions of a process no longer queue behind each other. Django returns
    a thread's pooled connection only when told: the shared thread's at each request's end, these
    threads' never. So each call gives its connections back when it ends, however it ends; a connection
    left checked out would stay so for the life of the thread, whether or not the socket that asked is
    still open."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        finally:
            connections.close_all()

    return sync_to_async(run, thread_sensitive=False, executor=_socket_db)


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


def _session_expiry(scope: dict[str, Any]) -> Any:
    session = scope.get("session")
    try:
        return session.get_expiry_date() if session is not None else None
    except Exception:  # noqa: BLE001 - no expiry known: rely on the stamps
        return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _JsonConsumer(AsyncWebsocketConsumer):
    """Frame checks shared by both consumers: size, rate, JSON, a known type; errors to this socket only.
    Also the per-member socket cap and the access stamp (games/live.py)."""

    handlers: dict[str, str] = {}
    user: User

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._recent: deque[float] = deque()
        self._joined: list[str] = []
        self._registered = False
        self.stamp: int | None = None
        self.expires: Any = None
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

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' own dispatch, less its ``aclose_old_connections`` before every message: that hops
        into the one shared sync thread for each message of each socket (each announced version, times
        every socket at the table), queueing behind whatever runs there. This consumer's database work
        runs in ``_db_free`` (connections given back after each call) or ``database_sync_to_async``
        (which closes old connections before and after), so the hop only cost time."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self._opened = True
        await super().accept(subprotocol, headers)

    async def refuse(self, code: int, reason: str) -> None:
        """Accept and close at once, so the client sees the application close code and reason."""
        await self.accept()
        await self.close(code=code, reason=reason)

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=live.frame(payload))

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

    async def open_group(self, group: str, *, logged_out: str) -> bool:
        """The checks of a new socket, then its group: a logged-in member (else refused with ``logged_out``)
        whom ``_verify`` lets in, joined to ``group``. False when refused (the socket is closed)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_NOT_LOGGED_IN, logged_out)
            return False
        # The member itself, not the scope's lazy wrapper of it: the socket reads its fields on every
        # version, and each read through the wrapper costs a proxy call.
        wrapped: Any = getattr(user, "_wrapped", empty)
        self.user = user if wrapped is empty else wrapped
        self.expires = _session_expiry(self.scope)
        try:
            await _db(self._verify_stamped)()
        except _Refused as exc:
            await self.refuse(exc.code, exc.reason)
            return False
        return await self.join(group)

    async def admit(self) -> None:
        """Count this socket against its member's cap; the oldest beyond it are told to close."""
        self._registered = True
        await presence.socket_seen(self)
        for channel in await _db_free(live.sockets_register)(self.user.pk, self.channel_name):
            await self.channel_layer.send(channel, {"type": "socket.replaced"})

    async def socket_replaced(self, event: dict[str, Any]) -> None:
        await self.close(code=CLOSE_REPLACED, reason="Too many open pages: this one was closed.")

    async def disconnect(self, code: int) -> None:
        for group in self._joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self._joined = []
        if self._registered:
            self._registered = False
            await presence.socket_gone(self)
            with contextlib.suppress(Exception):  # the entry ages out of the cache
                await _db_free(live.sockets_unregister)(self.user.pk, self.channel_name)

    def _count(self) -> int:
        now = time.monotonic()
        self._recent.append(now)
        while self._recent and self._recent[0] < now - RATE_SECONDS:
            self._recent.popleft()
        return len(self._recent)

    def _verify(self) -> None:
        """The full check against the database (run in a worker thread); raises _Refused."""
        raise NotImplementedError

    def _verify_stamped(self) -> None:
        stamp = live.access_stamp(self.user.pk)
        self._verify()
        self.stamp = stamp

    def _expired(self) -> bool:
        return self.expires is not None and timezone.now() >= self.expires

    def _stamp_holds(self, stamp: int | None | object) -> bool:
        """Whether the member's access stamp ``stamp`` (None: the cache holds none) is the one their access
        was last checked at: then session and membership need no database check."""
        return stamp is not None and stamp == self.stamp

    async def still_allowed(self, stamp: int | None | object = ...) -> bool:
        """Whether the session and membership still hold: no database work unless the member's access
        stamp moved (``stamp``: already read for this socket's member; default: read it now). Closes
        the socket and says False when either ended."""
        try:
            if self._expired():
                raise _Refused(CLOSE_NOT_LOGGED_IN, "Your session has ended: log in again.")
            if stamp is ...:
                stamp = (await _db_free(live.access_stamps)([self.user.pk])).get(self.user.pk)
            if not self._stamp_holds(stamp):
                await _db(self._verify_stamped)()
        except _Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)
            return False
        return True

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
        except RecursionError:
            await self.send_error("That message is nested too deeply.")
            return
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
        await presence.socket_seen(self)
        await self.send_json({"type": "pong"})


class TableConsumer(_JsonConsumer):
    """A member's live table: the table area after every version, actions, chat."""

    handlers = {"sync": "on_sync", "action": "on_action", "chat": "on_chat", "chat.hide": "on_chat_hide",
                "ping": "on_ping"}
    table: Table
    seated = True  # until known: a seated member never shares a spectator's render
    _sent: tuple[Any, tuple[int, int]] | None = None  # the seating mark and (hand, version) last sent

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if not await self.open_group(table_group(self.table_id), logged_out="Log in to watch this table."):
            return
        live.socket_joined(self.table_id, self.channel_name, self.user.pk)
        await self.accept()
        await self.admit()
        await self.send_json(await _db_free(self._view_payload)(None))
        await self.send_json(await _db_free(self._chat_history)())
        await self.send_area(None, None)

    async def disconnect(self, code: int) -> None:
        table_id = getattr(self, "table_id", -1)
        live.socket_left(table_id, self.channel_name)
        if not live.members_at(table_id):  # the last socket of this table here: keep nothing of it
            _last_snapshot.pop(table_id, None)
        await super().disconnect(code)

    # -- reads and checks (run in a worker thread) --

    def _verify(self) -> None:
        """Whether this user is still logged in and may watch the table now; else _Refused. A table
        that is not there and one the member may not see get the same code and words."""
        if not _session_still_logs_in(self.scope, self.user):
            raise _Refused(CLOSE_NOT_LOGGED_IN, "Your session has ended: log in again.")
        table = table_get(table_id=self.table_id)
        membership = None if table is None else membership_of(user=self.user, club_id=table.club_id)
        if table is None or membership is None:
            raise _Refused(CLOSE_FORBIDDEN, NOT_YOURS_TABLE)
        self.access = ClubAccess(club=table.club, membership=membership)
        # The hand is looked up only where it matters: tables that keep spectators out.
        hand = None if table.rule_version.spectators_allowed else hand_current(table=table)
        if not table_may_watch(table=table, user=self.user, hand=hand):
            raise _Refused(CLOSE_FORBIDDEN, "The house rules keep spectators out of this table.")
        self.table = table

    def _view_payload(self, hand_id: int | None) -> dict[str, Any]:
        """This user's JSON view of hand ``hand_id`` of this table (None or another table's: the current hand)."""
        hand = hand_of_table(table=self.table, hand_id=hand_id) if hand_id is not None else None
        if hand is None:
            hand = hand_current(table=self.table)
        if hand is None:
            return {"type": "hand.view", "table": self.table_id, "hand": None, "number": None, "version": None,
                    "finished": False, "your_turn": False, "view": None}
        view = hand_view_for(hand=hand, user=self.user)
        you = view.you
        return {"type": "hand.view", "table": self.table_id, "hand": hand.pk, "number": hand.number,
                "version": hand.version, "finished": hand.is_finished,
                "your_turn": not hand.is_finished and you is not None and you in view.to_act,
                "view": engine.view_to_json(view)}

    def _area(self, snapshot: TableSnapshot) -> dict[str, Any]:
        """This member's table area from ``snapshot``: no query (runs in the event loop)."""
        self.table = snapshot.table
        hand = snapshot.hand
        html = live.table_area_html(snapshot=snapshot, user=self.user, access=self.access)
        your_turn = False
        if hand is not None and not hand.is_finished:
            seat = hand_seat_of(hand=hand, user=self.user)
            your_turn = seat is not None and seat in snapshot.to_act()
        return {"type": "table.html", "table": self.table_id, "hand": hand.pk if hand else None,
                "version": hand.version if hand else None, "finished": bool(hand and hand.is_finished),
                "your_turn": your_turn, "html": html}

    async def send_area(self, hand_id: int | None, version: int | None, seating: Any = None) -> None:
        """Send this member's table area: as of ``version`` of hand ``hand_id``, or as of now when not
        given. The snapshot behind it is read once per (hand, version, seating) per process (``seating``:
        the seat change heard, when the area follows one) and shared by every socket here; rendering it
        needs no query. Spectators of the same screen share one render. An announced version this process
        has read already, or a newer one, is not read again; a screen that has it already is sent nothing."""
        table_id = self.table_id
        key: Any = None
        mark = _seating.get(table_id)
        if hand_id is not None:
            key = ("hand", table_id, hand_id, version, mark)
        elif seating is not None:
            key = ("seating", table_id, seating)

        async def read() -> TableSnapshot | None:
            last = _last_snapshot.get(table_id)
            earlier = last[1] if last is not None and last[0] == mark else None
            found: TableSnapshot | None = await _db_free(table_snapshot_read)(table_id=table_id, hand_id=hand_id,
                                                                              earlier=earlier)
            if found is not None and found.hand is not None and (last is None or _shown(found) >= _shown(last[1])):
                _last_snapshot[table_id] = (mark, found)
            return found

        last = _last_snapshot.get(table_id)
        snapshot: TableSnapshot | None
        if hand_id is not None and version is not None and last is not None and last[0] == mark \
                and _shown(last[1]) >= (hand_id, version):
            snapshot = last[1]  # read here already, as new as announced or newer: no read
        else:
            snapshot = await (_snapshot_memo.get(key, read) if key is not None else read())
        if snapshot is None:  # the table is gone
            return
        shown = (mark, _shown(snapshot))
        if hand_id is not None and self._sent is not None and shown[0] == self._sent[0] and shown[1] <= self._sent[1]:
            return  # this screen has that version, or a newer one, of the same seating already
        self._sent = shown
        self.seated = any(s.user_id == self.user.pk for s in snapshot.seats)
        hand = snapshot.hand
        if key is not None and not self.seated and (hand is None or hand_seat_of(hand=hand, user=self.user)
                                                    is None):
            # A spectator: every spectator here on this screen sees the same area.
            four = self.scope.get("cookies", {}).get("deck_colours") == "four"
            shared = (key, self.access.is_organiser, self.user.time_zone, four)  # organisers' links; clock zone

            async def render() -> dict[str, Any]:
                return self._area(snapshot)

            payload = await _spectator_memo.get(shared, render)
        else:
            payload = self._area(snapshot)
        await self.send_json(payload)

    def _chat_history(self) -> dict[str, Any]:
        return {"type": "chat.history", "messages": [chat_payload(m) for m in chat_recent(table=self.table)]}

    # -- client messages --

    async def on_sync(self, message: dict[str, Any]) -> None:
        if not await self.still_allowed():
            return
        await self.send_json(await _db_free(self._view_payload)(None))
        await self.send_area(None, None)

    async def on_action(self, message: dict[str, Any]) -> None:
        try:
            act = act_request_parse(hand=message.get("hand"), version=message.get("version"),
                                    action=message.get("action"))
        except DomainError as exc:
            if await self.still_allowed():
                await self.send_error(str(exc))
            return
        try:
            stamp, hand = await _db_free(self._act_if_allowed)(act)
            if hand is None:  # the stamp moved or the session expired: the full check, then the action
                if not await self.still_allowed(stamp):
                    return
                hand = await _db_free(self._act)(act)
        except DomainError as exc:
            await self.send_error(str(exc))
            return
        await self.send_json({"type": "action.ok", "hand": hand.pk, "version": hand.version})

    def _act_if_allowed(self, act: ActRequest) -> tuple[int | None, Hand | None]:
        """The member's access stamp, and the action applied when it has not moved (nor the session
        expired) since their access was last checked: one trip to a worker thread for both, where the
        check and the action one after the other would take two. (stamp, None) when it moved."""
        stamp = live.access_stamps([self.user.pk]).get(self.user.pk)
        return stamp, self._act(act) if self._stamp_holds(stamp) and not self._expired() else None

    def _act(self, act: ActRequest) -> Hand:
        return hand_act(table_id=self.table_id, hand_id=act.hand_id, user=self.user, action=act.action,
                        version=act.version)

    async def on_chat(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        if not isinstance(text, str):
            await self.send_error("A chat message needs its text.")
            return
        if not await self.still_allowed():
            return
        try:
            row = await _db_free(chat_post)(table_id=self.table_id, user=self.user, text=text)
        except DomainError as exc:
            await self.send_error(str(exc))
            return
        await self.send_json({"type": "chat.ok", "id": row.pk})

    async def on_chat_hide(self, message: dict[str, Any]) -> None:
        message_id = message.get("id")
        if not _is_int(message_id):
            await self.send_error("Which message?")
            return
        if not await self.still_allowed():
            return
        try:
            await _db_free(self._hide)(message_id)
        except DomainError as exc:
            await self.send_error(str(exc))

    def _hide(self, message_id: int) -> None:
        place = chat_message_place(message_id=message_id)
        if place is None or place[0] != self.table_id:
            raise DomainError("There is no such message at this table.")
        chat_hide(message_id=message_id, user=self.user)

    # -- group messages (numbers only; each socket renders its own member's table area) --

    async def _stamps(self, key: Any) -> dict[int, int | None]:
        """The access stamps of every member with a socket at this table in this process: one cache
        read per announced event per process."""
        users = live.members_at(self.table_id) | {self.user.pk}
        found: dict[int, int | None] = await _stamp_memo.get(
            (self.table_id, key), lambda: _db_free(live.access_stamps)(users))
        if self.user.pk not in found:  # joined after the read
            found = await _db_free(live.access_stamps)([self.user.pk])
        return found

    async def hand_version(self, event: dict[str, Any]) -> None:
        hand_id = event.get("hand") if _is_int(event.get("hand")) else None
        version = event.get("version") if _is_int(event.get("version")) else None
        stamps = await self._stamps(("hand", hand_id, version))
        if not await self.still_allowed(stamps.get(self.user.pk)):
            return
        await self.send_area(hand_id, version)
        metrics.broadcast_observe(event)

    async def table_changed(self, event: dict[str, Any]) -> None:
        _seating[self.table_id] = event.get("at")  # spectators' shared renders of the old seating are done
        if not await self.still_allowed():
            return
        await self.send_json({"type": "table.changed", "table": self.table_id})
        await self.send_area(None, None, seating=event.get("at"))

    async def chat_message(self, event: dict[str, Any]) -> None:
        stamps = await self._stamps(("chat", event["message"].get("id")))
        if not await self.still_allowed(stamps.get(self.user.pk)):  # ended sessions hear no more chat
            return
        await self.send_json({"type": "chat.message", "message": event["message"]})

    async def chat_hidden(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat.hidden", "id": event["id"]})


_stamp_memo = live.Memo(256)
_snapshot_memo = live.Memo(256)
_spectator_memo = live.Memo(256)
_seating: dict[int, Any] = {}  # table id -> the last seat change heard (its announcement's mark)
def _shown(snapshot: TableSnapshot) -> tuple[int, int]:
    """Which hand and version ``snapshot`` shows, in the order clients keep (hand ids only grow)."""
    return (snapshot.hand.pk, snapshot.hand.version) if snapshot.hand is not None else (-1, -1)


# table id -> (its seating mark, the newest snapshot read here): the next version of the same hand takes
# the table row and the last finished hand from it (games/selectors/snapshot.py table_snapshot_read).
_last_snapshot: dict[int, tuple[Any, TableSnapshot]] = {}


class LobbyConsumer(_JsonConsumer):
    """A club's lobby: ``lobby.changed`` whenever tables, seats or turns change; the page re-renders its list."""

    handlers = {"ping": "on_ping", "sync": "on_sync"}

    async def connect(self) -> None:
        self.club_id = int(self.scope["url_route"]["kwargs"]["club_id"])
        if not await self.open_group(club_group(self.club_id), logged_out="Log in to see the tables."):
            return
        await self.accept()
        await self.admit()

    def _verify(self) -> None:
        """Still logged in and a member of the club; else _Refused (no such club: the same code and words)."""
        if not _session_still_logs_in(self.scope, self.user):
            raise _Refused(CLOSE_NOT_LOGGED_IN, "Your session has ended: log in again.")
        if not is_member(user=self.user, club_id=self.club_id):  # no such club: not a member of it either
            raise _Refused(CLOSE_FORBIDDEN, NOT_YOURS_CLUB)

    async def on_sync(self, message: dict[str, Any]) -> None:
        if await self.still_allowed():
            await self.send_json({"type": "lobby.changed"})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        if await self.still_allowed():
            await self.send_json({"type": "lobby.changed"})
