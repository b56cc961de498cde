"""Who may open a table or lobby socket and keep it open (docs/live.md "Access, close codes").

Session and membership are checked against the database when a socket opens, and afterwards only when the
member's access stamp in the cache moved: ``access_bump`` runs on logout, any change of the account (a new
password) and any membership made, changed or ended (wired in ``GamesConfig.ready``). The publisher reads
the stamps of a table's players once per version and sends them with the frames, so forwarding a frame
costs no database and no cache read (a spectator's socket reads its own stamp). A member keeps at most
``SOCKETS_PER_MEMBER`` sockets open.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.core.cache import cache
from django.http import HttpRequest

from accounts.models import User

SOCKETS_PER_MEMBER = 8
_STAMP_KEY = "access-stamp:{}"
_SOCKETS_KEY = "member-sockets:{}"


class Refused(Exception):
    """A socket refused or cut off: the close code and the member's words (games/live/frames.py)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def access_bump(user_id: int) -> None:
    """Session, password or membership of ``user_id`` changed: open sockets re-check on their next message."""
    key = _STAMP_KEY.format(user_id)
    try:
        cache.add(key, 0, timeout=None)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - a lost bump must not fail a logout; make the stamp unreadable instead
        cache.delete(key)


def access_stamps(user_ids: Iterable[int]) -> dict[int, int | None]:
    """Each member's stamp (None when the cache holds none: treated as changed)."""
    ids = list(set(user_ids))
    found = cache.get_many([_STAMP_KEY.format(u) for u in ids])
    return {u: found.get(_STAMP_KEY.format(u)) for u in ids}


def access_stamp(user_id: int) -> int:
    """The member's stamp now, created (0) if the cache holds none."""
    key = _STAMP_KEY.format(user_id)
    cache.add(key, 0, timeout=None)
    value = cache.get(key)
    return int(value) if isinstance(value, int) else 0


def session_still_logs_in(scope: dict[str, Any], user: User) -> bool:
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


def session_expiry(scope: dict[str, Any]) -> Any:
    session = scope.get("session")
    try:
        return session.get_expiry_date() if session is not None else None
    except Exception:  # noqa: BLE001 - no expiry known: rely on the stamps
        return None


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
