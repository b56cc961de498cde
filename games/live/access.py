"""Who may open a table or lobby socket and keep it open (docs/live.md "Access, close codes").

Session and membership are checked against the database when a socket opens, and afterwards only when the
member's access stamp in the cache moved: ``access_bump`` runs on logout, any change of the account (a new
password) and any membership made, changed or ended (wired in ``GamesConfig.ready``). The publisher reads
the stamps of a table's players once per version and sends them with the frames, so forwarding a frame
costs no database and no cache read (a spectator's socket reads its own stamp). A member keeps at most
``SOCKETS_PER_MEMBER`` sockets open.

A stamp is a plain integer in the cache's Redis under the cache's own key (``cache.get`` reads it too), written
and read here only, each with one plain command (``layer.command``): an action and every version read stamps,
and Django's cache adds key checks and redis-py's layers to each read (bench/access_path.py).
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Iterable
from datetime import datetime
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.core.cache import cache, caches
from django.http import HttpRequest
from django.http.cookie import parse_cookie

from accounts.access import is_member, membership_of
from accounts.models import User
from games.live.frames import CLOSE_FORBIDDEN, CLOSE_NOT_LOGGED_IN
from games.live.layer import command
from games.models import Table
from games.selectors.hands import hand_current
from games.selectors.tables import table_get, table_may_watch

SOCKETS_PER_MEMBER = 8
NOT_YOURS_TABLE = "There is no such table, or you may not watch it."
NOT_YOURS_CLUB = "There is no such club, or you are not one of its members."
NO_SPECTATORS = "The house rules keep spectators out of this table."
SESSION_ENDED = "Your session has ended: log in again."
_STAMP_KEY = "access-stamp:{}"
_SOCKETS_KEY = "member-sockets:{}"


class Refused(Exception):
    """A socket refused or cut off: the close code and the member's words (games/live/frames.py)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Grant:
    """A socket's access as last checked against the database: the member's stamp then and when their session
    expires. It holds while the stamp is unchanged and the session unexpired: then no database check."""

    __slots__ = ("stamp", "_ends")

    def __init__(self, expires: datetime | None) -> None:
        self.stamp: int | None = None
        # The session's end as a POSIX time: checked at every group message against time.time(), the clock
        # timezone.now() reads too, without building an aware datetime each time.
        self._ends = math.inf if expires is None else expires.timestamp()

    def expired(self) -> bool:
        return time.time() >= self._ends

    def holds(self, stamp: int | None) -> bool:
        """Whether ``stamp`` (the member's now; None: the cache holds none) is the one last checked at, and the
        session unexpired."""
        return stamp is not None and stamp == self.stamp and not self.expired()


def table_check(session_key: str | None, user: User, table_id: int) -> Table:
    """The table, when the socket's session still logs ``user`` in and they may watch it now; else Refused. A
    table that is not there and one the member may not see get the same code and words."""
    if not session_still_logs_in(session_key, user):
        raise Refused(CLOSE_NOT_LOGGED_IN, SESSION_ENDED)
    table = table_get(table_id=table_id)
    if table is None or membership_of(user=user, club_id=table.club_id) is None:
        raise Refused(CLOSE_FORBIDDEN, NOT_YOURS_TABLE)
    # The hand is looked up only where it matters: tables that keep spectators out.
    hand = None if table.rule_version.spectators_allowed else hand_current(table=table)
    if not table_may_watch(table=table, user=user, hand=hand):
        raise Refused(CLOSE_FORBIDDEN, NO_SPECTATORS)
    return table


def club_check(session_key: str | None, user: User, club_id: int) -> None:
    """Still logged in and a member of the club; else Refused (no such club: the same code and words)."""
    if not session_still_logs_in(session_key, user):
        raise Refused(CLOSE_NOT_LOGGED_IN, SESSION_ENDED)
    if not is_member(user=user, club_id=club_id):
        raise Refused(CLOSE_FORBIDDEN, NOT_YOURS_CLUB)


def _stamps_where(user_ids: Iterable[int]) -> tuple[Any, list[str]]:
    """The Redis client the cache writes with (stamps are read there too: no replica that lags a bump) and
    the cache's keys of the members' stamps."""
    backend: Any = caches["default"]
    return backend._cache.get_client(None, write=True), [backend.make_key(_STAMP_KEY.format(u)) for u in user_ids]


def _new_stamp() -> int:
    """A stamp no socket holds: random, not counted up, because a Redis restart forgets every stamp and a count
    would start again at values that sockets granted before it still hold."""
    return secrets.randbits(62)


def access_bump(user_id: int) -> None:
    """Session, password or membership of ``user_id`` changed: open sockets re-check on their next message."""
    client, (key,) = _stamps_where([user_id])
    try:
        command(client, "SET", key, _new_stamp())
    except Exception:  # noqa: BLE001 - a lost bump must not fail a logout; make the stamp unreadable instead
        command(client, "DEL", key)


def access_stamps(user_ids: Iterable[int]) -> dict[int, int | None]:
    """Each member's stamp (None when the cache holds none: treated as changed), in one MGET."""
    ids = list(set(user_ids))
    if not ids:
        return {}
    client, keys = _stamps_where(ids)
    return {u: None if v is None else int(v) for u, v in zip(ids, command(client, "MGET", *keys), strict=True)}


def access_stamp_read(user_id: int) -> int | None:
    """The member's stamp (None when the cache holds none: treated as changed), in one GET."""
    client, (key,) = _stamps_where([user_id])
    value = command(client, "GET", key)
    return None if value is None else int(value)


def access_stamp(user_id: int) -> int | None:
    """The member's stamp now, made if the cache holds none (None only if a failed bump removed it between)."""
    client, (key,) = _stamps_where([user_id])
    command(client, "SET", key, _new_stamp(), "NX")
    return access_stamp_read(user_id)


def session_key_of(scope: dict[str, Any]) -> str | None:
    """The session key in the socket's cookies (None: none sent)."""
    cookies = "; ".join(value.decode("latin1") for name, value in scope.get("headers", ()) if name == b"cookie")
    return parse_cookie(cookies).get(settings.SESSION_COOKIE_NAME) or None


def session_member(session_key: str | None) -> tuple[User, datetime | None] | None:
    """The member the session ``session_key`` logs in and when it expires, read afresh from the session store
    with the same test as an HTTP request's user (``django.contrib.auth.get_user``): None when it logs no one in
    (missing, expired, logged out, or a password changed since). A socket keeps only the key: not the session
    and the scope's lazy user that Channels' auth middleware would keep for the socket's life."""
    if not session_key:
        return None
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    user = auth.get_user(request)
    if not user.is_authenticated:
        return None
    try:
        expires: datetime | None = request.session.get_expiry_date()
    except Exception:  # noqa: BLE001 - no expiry known: rely on the stamps
        expires = None
    return user, expires


def session_still_logs_in(session_key: str | None, user: User) -> bool:
    """Whether the session this socket connected with still logs in ``user``: a logout deletes the session, a
    password change alters its auth hash."""
    found = session_member(session_key)
    return found is not None and found[0].pk == user.pk


# ---- each member's sockets everywhere ------------------------------------------------------------


def sockets_register(user_id: int, channel: str) -> list[str]:
    """Note a member's new socket; return the channels of their oldest sockets beyond the cap (to close)."""
    key = _SOCKETS_KEY.format(user_id)
    channels = [c for c in (cache.get(key) or []) if isinstance(c, str) and c != channel] + [channel]
    extra = channels[:-SOCKETS_PER_MEMBER] if len(channels) > SOCKETS_PER_MEMBER else []
    cache.set(key, channels[len(extra) :], timeout=24 * 3600)
    return extra


def sockets_unregister(user_id: int, channel: str) -> None:
    key = _SOCKETS_KEY.format(user_id)
    channels = [c for c in (cache.get(key) or []) if c != channel]
    if channels:
        cache.set(key, channels, timeout=24 * 3600)
    else:
        cache.delete(key)
