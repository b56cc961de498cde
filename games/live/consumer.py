"""The table and lobby sockets (``ws/tables/<table_id>/``, ``ws/clubs/<club_id>/lobby/``): docs/live.md has
the frames, the groups and the close codes.

Thin by design: a socket checks its member's access (games/live/access.py), forwards the bytes of every
frame its groups carry as they are (no database, no render, no encoding per socket), and hands actions
and chat to the services. Only on connect and ``sync`` does it read and render: the one full render.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import gc
import logging
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.db import connections
from redis.exceptions import RedisError

from accounts.models import User
from games.forms import ActRequest, act_request_parse
from games.live import access, presence
from games.live.access import SESSION_ENDED, Grant, Refused
from games.live.frames import (
    CLOSE_FLOOD,
    CLOSE_FORBIDDEN,
    CLOSE_NOT_LOGGED_IN,
    CLOSE_REPLACED,
    CLOSE_SERVER_ERROR,
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
    FLOOD_COUNT,
    MAX_FRAME_BYTES,
    RATE_COUNT,
    RATE_SECONDS,
    Act,
    ActionOk,
    Chat,
    ChatHidden,
    ChatHide,
    ChatOk,
    ChatPosted,
    Cut,
    CutOk,
    CutRefused,
    Error,
    LobbyChanged,
    Malformed,
    Message,
    Pong,
    Sync,
    message_parse,
)
from games.live.publish import club_group, mine_group, table_group
from games.live.sync import everything
from games.models import Hand
from games.selectors.chat import chat_message_place
from games.selectors.tables import table_get
from games.services.chat import chat_hide, chat_post
from games.services.cuts import cut_take
from games.services.hands import hand_act
from kernel import metrics
from kernel.errors import DomainError
from kernel.pools import thread_pool

log = logging.getLogger(__name__)

JOIN_ATTEMPTS = 3
TRY_AGAIN = "Live updates are unavailable for a moment: reconnecting."

# The sockets' database work (actions, sync, access checks) runs in a pool of its own with a fixed number of
# threads, whatever the machine's cores: six, as the loop's default gives two cores (bench/RESULTS.md).
SOCKET_DB_THREADS = 6


def _db(func: Any) -> Any:
    """``func`` run in a thread of the sockets' pool (its statements counted when run for a group message); each
    call gives its pooled connections back when it ends (these threads never end a request that would). It runs
    in a copy of the socket's context that is then dropped. The loop's own hand-over to the pool, not asgiref's
    ``sync_to_async``: that one wraps the call in layers these calls do not use (a shield, its thread-local for
    ``async_to_sync``, a second copy of the context and the copy back of what the call left in it, which the
    socket would keep for its life): a trip 92.4 -> 69.7 us of CPU (bench/access_path.py). A call whose socket's
    task is cancelled before a thread takes it does not run (the socket is ending); one a thread took runs whole."""

    counted = metrics.socket_statements_counted(func)

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return counted(*args, **kwargs)
        finally:
            connections.close_all()

    async def call(*args: Any, **kwargs: Any) -> Any:
        job = functools.partial(contextvars.copy_context().run, run, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(thread_pool("socket-db", SOCKET_DB_THREADS), job)

    return call


class _JsonConsumer(AsyncWebsocketConsumer):
    """What both sockets share: size, rate, JSON and a known type checked on every message (errors to this
    socket only), the member's socket cap and access (``check``: the database check of games/live/access.py)."""

    handlers: dict[str, str] = {}
    user: User
    grant: Grant
    session_key: str | None  # the session the socket opened with (its cookie), re-read at each full check
    club_id: int  # the socket's club (presence)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._recent: list[float] = []  # this socket's messages in the last RATE_SECONDS (a list: lighter than a deque)
        self._joined: list[str] = []
        self._registered = False
        self._opened = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """A socket opening while Redis is unreachable is told to try again, not failed with a server error. An
        accepted socket counts as open (``club_open_sockets``) until it ends: counted here, not by a middleware
        whose coroutine would stay alive beside this one for the socket's life."""
        try:
            await self._serve(scope, receive, send)
        except (OSError, RedisError):
            if self._opened:
                raise
            log.warning("Refused a socket: Redis is unreachable", exc_info=True)
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN, "reason": TRY_AGAIN})
        finally:
            if self._opened:
                metrics.OPEN_SOCKETS.dec()

    async def _serve(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' ``AsyncConsumer.__call__`` with a lighter loop than its ``await_many_dispatch``, which makes a
        task for the next group message after each one and waits on it and the client's with ``asyncio.wait``
        (futures and callbacks a message: bench/socket_dispatch.py). Here one task reads the group messages and
        this coroutine the client's; a lock keeps their handlers one at a time, as before. A handler that fails
        on a group message closes the socket (1011), as the server does when the consumer fails."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.base_send = send
        turn = asyncio.Lock()
        groups: asyncio.Task[None] | None = None
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            groups = asyncio.ensure_future(self._group_messages(turn))
        try:
            while True:
                message = await receive()
                async with turn:
                    await self.dispatch(message)
        except StopConsumer:
            pass
        finally:
            if groups is not None:
                groups.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await groups

    async def _group_messages(self, turn: asyncio.Lock) -> None:
        """Each group message handled in turn; after a handler failed, the rest are read and dropped until the
        socket ends: cancelled while it waits in the layer's ``receive``, which then leaves the socket's channel.
        This task handles group messages only: what it renders or queries counts as the socket's (set once for
        the task, not at each message; the client's messages are handled in the socket's own task)."""
        receive = self.channel_receive
        failed = False
        with metrics.socket_work(metrics.SOCKET_FORWARDING):
            while True:
                message = await receive()
                if failed:
                    continue
                async with turn:
                    try:
                        await self.dispatch(message)
                    except Exception:
                        log.exception("A socket failed on a group message of type %s", message.get("type"))
                        failed = True
                        with contextlib.suppress(Exception):
                            await self.close(code=CLOSE_SERVER_ERROR)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' own dispatch less its ``aclose_old_connections`` hop into the shared sync thread before
        every message: ``_db`` gives its connections back itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        if not self._opened:
            self._opened = True
            metrics.OPEN_SOCKETS.inc()
        await super().accept(subprotocol, headers)

    async def refuse(self, code: int, reason: str) -> None:
        """Accept and close at once, so the client sees the application close code and reason."""
        await self.accept()
        await self.close(code=code, reason=reason)

    async def send_frame(self, frame: Message) -> None:
        await self.send(text_data=frame.encoded())

    async def send_error(self, message: str) -> None:
        await self.send_frame(Error(message=message))

    async def join(self, group: str) -> bool:
        """Join a group; a connection to Redis broken by a restart is re-opened on the next try; if Redis stays
        down, refuse with "try again" and say False."""
        for attempt in range(JOIN_ATTEMPTS):
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except (OSError, RedisError):
                if attempt + 1 == JOIN_ATTEMPTS:
                    log.warning("Could not join %s: Redis is unreachable", group, exc_info=True)
                    await self.refuse(CLOSE_TRY_AGAIN, TRY_AGAIN)
                    return False
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                self._joined.append(group)
                return True
        return False

    async def open_groups(self, *, logged_out: str) -> bool:
        """A member whom the socket's session logs in (else refused with ``logged_out``) and whom ``check`` lets
        in, joined to their ``joined_groups``, counted against their cap. False when refused (the socket is closed)."""
        self.session_key = access.session_key_of(self.scope)
        try:
            await _db(self._opening)(logged_out)
        except Refused as exc:
            await self.refuse(exc.code, exc.reason)
            return False
        for group in self.joined_groups():
            if not await self.join(group):
                return False
        await self.accept()
        self._registered = True
        await presence.socket_seen(self)
        for channel in await _db(access.sockets_register)(self.user.pk, self.channel_name):
            await self.channel_layer.send(channel, {"type": "socket.replaced"})  # the oldest beyond the cap
        return True

    def _opening(self, logged_out: str) -> None:
        """Who the session logs in (else Refused), then the full check: one trip to a worker thread."""
        found = access.session_member(self.session_key)
        if found is None:
            raise Refused(CLOSE_NOT_LOGGED_IN, logged_out)
        self.user, expires = found
        self.grant = Grant(expires)
        self._checked()

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
                await _db(access.sockets_unregister)(self.user.pk, self.channel_name)

    def joined_groups(self) -> list[str]:
        """The groups this member's socket joins."""
        raise NotImplementedError

    def check(self) -> None:
        """The full check against the database (run in a worker thread); raises Refused."""
        raise NotImplementedError

    def _checked(self) -> None:
        stamp = access.access_stamp(self.user.pk)
        self.check()
        self.grant.stamp = stamp

    async def still_allowed(self, stamp: int | None | object = ...) -> bool:
        """Whether the session and membership still hold: no database work unless the member's stamp moved
        (``stamp``: read already; default: read it now). Closes the socket and says False when either ended."""
        try:
            if self.grant.expired():
                raise Refused(CLOSE_NOT_LOGGED_IN, SESSION_ENDED)
            if stamp is ...:
                stamp = await _db(access.access_stamp_read)(self.user.pk)
            if not self.grant.holds(stamp):  # type: ignore[arg-type]
                await _db(self._checked)()
        except Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)
            return False
        return True

    def _count(self) -> int:
        now = time.monotonic()
        self._recent = [t for t in self._recent if t >= now - RATE_SECONDS]
        self._recent.append(now)
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
        try:
            message = message_parse(text_data, self.handlers)  # the one place a message is read
        except Malformed as exc:
            await self.send_error(str(exc))
            return
        try:
            await getattr(self, self.handlers[message.TYPE])(message)
        except Refused as exc:
            await self.close(code=exc.code, reason=exc.reason)

    async def on_ping(self, message: Message) -> None:
        await presence.socket_seen(self)
        await self.send_frame(Pong())


class TableConsumer(_JsonConsumer):
    """A member's live table: the frames of its groups forwarded as they are, actions, chat, ``sync``."""

    handlers = {
        "sync": "on_sync",
        "action": "on_action",
        "chat": "on_chat",
        "chat.hide": "on_chat_hide",
        "ping": "on_ping",
        "cut": "on_cut",
    }

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if await self.open_groups(logged_out="Log in to watch this table."):
            await self.send_everything(chat=True)

    def joined_groups(self) -> list[str]:
        return [table_group(self.table_id), mine_group(self.user.pk)]

    def check(self) -> None:
        self.club_id = access.table_check(self.session_key, self.user, self.table_id).club_id

    async def send_everything(self, *, chat: bool = False) -> None:
        """The one full render of this socket (games/live/sync.py)."""
        try:
            with metrics.socket_work(metrics.SOCKET_SYNC):
                texts = await _db(self._everything)(chat)
        except Refused as exc:  # the table went since the check
            await self.close(code=exc.code, reason=exc.reason)
            return
        for text in texts:
            await self.send(text_data=text)
        # The render leaves cyclic garbage (hundreds of objects) that the collector, set to wait for 20,000 new
        # ones (kernel/pools.py), would keep while more sockets open: a storm of connects (every page after a
        # restart) grew the process by it, 43 -> 28 KiB an open socket (bench/socket_memory.py). About 1 ms.
        gc.collect(1)

    def _everything(self, chat: bool) -> list[str]:
        """The table read afresh for each full render: a socket keeps its id, not the table with its club and
        rules (memory per open socket)."""
        table = table_get(table_id=self.table_id)
        if table is None:
            raise Refused(CLOSE_FORBIDDEN, access.NOT_YOURS_TABLE)
        return everything(table, self.user, chat=chat)

    # -- client messages --

    async def on_sync(self, message: Sync) -> None:
        if await self.still_allowed():
            await self.send_everything()

    async def on_action(self, message: Act) -> None:
        try:
            act = act_request_parse(hand=message.hand, version=message.version, action=message.action)
        except DomainError as exc:
            if await self.still_allowed():
                await self.send_error(str(exc))
            return
        try:
            stamp, hand = await _db(self._act_if_allowed)(act)
            if hand is None:  # the stamp moved or the session expired: the full check, then the action
                if not await self.still_allowed(stamp):
                    return
                hand = await _db(self._act)(act)
        except DomainError as exc:
            await self.send_error(str(exc))
            return
        await self.send_frame(ActionOk(hand=hand.pk, version=hand.version))

    def _act_if_allowed(self, act: ActRequest) -> tuple[int | None, Hand | None]:
        """The member's stamp, and the action applied when their access still holds at it: one trip to a worker
        thread for both. (stamp, None) when it moved."""
        stamp = access.access_stamp_read(self.user.pk)
        return stamp, self._act(act) if self.grant.holds(stamp) else None

    def _act(self, act: ActRequest) -> Hand:
        return hand_act(
            table_id=self.table_id, hand_id=act.hand_id, user=self.user, action=act.action, version=act.version
        )

    async def on_cut(self, message: Cut) -> None:
        """A seated member's cut of a coming deal, signed by their device (games/services/cuts.py, docs/fairness.md
        "Protocol" 5); answered with its receipt, or refused in words."""
        if not await self.still_allowed():
            return
        deal = message.deal
        try:
            receipt = await _db(cut_take)(
                table_id=self.table_id, user=self.user, number=deal, device=message.device, signature=message.signature
            )
        except DomainError as exc:
            await self.send_frame(CutRefused(deal=deal if type(deal) is int else None, error=str(exc)))
            return
        await self.send_frame(CutOk(receipt=receipt.to_dict()))

    async def on_chat(self, message: Chat) -> None:
        if await self.still_allowed():
            try:
                row = await _db(chat_post)(table_id=self.table_id, user=self.user, text=message.text)
            except DomainError as exc:
                await self.send_error(str(exc))
                return
            await self.send_frame(ChatOk(id=row.pk))

    async def on_chat_hide(self, message: ChatHide) -> None:
        if await self.still_allowed():
            try:
                await _db(self._hide)(message.id)
            except DomainError as exc:
                await self.send_error(str(exc))

    def _hide(self, message_id: int) -> None:
        place = chat_message_place(message_id=message_id)
        if place is None or place[0] != self.table_id:
            raise DomainError("There is no such message at this table.")
        chat_hide(message_id=message_id, user=self.user)

    # -- group messages: forwarded as they are, once the member's access still holds --

    async def _holds(self, stamps: dict[str, int | None] | None = None) -> bool:
        """Whether this member's access still holds, from their stamp as the publisher read it with the frame
        (games/live/publish.py); a socket whose member it does not name (a spectator) reads its own. A stamp
        that holds is the common case, checked here (one clock read), not in ``still_allowed``."""
        stamp = stamps.get(str(self.user.pk), ...) if stamps else ...
        if stamp is not ... and self.grant.holds(stamp):
            return True
        return await self.still_allowed(stamp)

    async def table_public(self, event: dict[str, Any]) -> None:
        if await self._holds(event.get("stamps")):
            await self._forward(event)

    async def table_private(self, event: dict[str, Any]) -> None:
        """The member's private frame of a table (their group ``mine.<user>`` spans their tables): forwarded at
        its own table only. At another of their tables, only that their part changed there: the page's header
        re-fetches its count of tables waiting (static/js/lobby.js), with no lobby socket of its own."""
        if not await self._holds(event.get("stamps")):
            return
        if event.get("table") == self.table_id:
            await self._forward(event)
        else:
            await self.send_frame(LobbyChanged())

    async def _forward(self, event: dict[str, Any]) -> None:
        """A frame's bytes, sent as the publisher encoded them, handed to the server as they are (not through
        channels' two ``send`` coroutines, which build the same message)."""
        await self.base_send({"type": "websocket.send", "text": event["text"]})
        metrics.broadcast_observe(event)

    async def chat_message(self, event: dict[str, Any]) -> None:
        if await self._holds():  # ended sessions hear no more chat
            await self.send_frame(ChatPosted(message=event["message"]))

    async def chat_hidden(self, event: dict[str, Any]) -> None:
        await self.send_frame(ChatHidden(id=event["id"]))


class LobbyConsumer(_JsonConsumer):
    """A club's lobby: ``lobby.changed`` whenever tables, seats or turns change; the page re-renders its list."""

    handlers = {"ping": "on_ping", "sync": "on_sync"}

    async def connect(self) -> None:
        self.club_id = int(self.scope["url_route"]["kwargs"]["club_id"])
        await self.open_groups(logged_out="Log in to see the tables.")

    def joined_groups(self) -> list[str]:
        return [club_group(self.club_id)]

    def check(self) -> None:
        access.club_check(self.session_key, self.user, self.club_id)

    async def on_sync(self, message: Sync) -> None:
        await self.lobby_changed({})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        if await self.still_allowed():
            await self.send_frame(LobbyChanged())
