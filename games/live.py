"""What the table and lobby sockets share within one server process (DESIGN.md "The path of one action").

- Access stamps: a number per member in the cache, bumped whenever their session, password or
  membership changes (``access_bump``, wired to Django's signals in ``GamesConfig.ready``). A socket
  checks session and membership against the database when it connects and afterwards only when its
  member's stamp moved; the stamps of every member with a socket at a table are read once per
  announced version per process (one cache round trip), not once per socket.
- Open sockets per member are capped (``SOCKETS_PER_MEMBER``): the oldest is told to close.
- The table area (``games/area.jinja``, the same template the page includes) rendered for one
  member from a ``TableSnapshot`` (games/selectors/snapshot.py) read once per (hand, version) per process, with
  no query per member; spectators at the same version share one render. What every viewer sees
  alike is rendered once per snapshot; per member only the template's member parts.
"""

from __future__ import annotations

import asyncio
import json
import zoneinfo
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.utils import timezone, translation

from accounts.models import User
from games.area import area_fill, area_shared
from games.selectors.snapshot import TableSnapshot

SOCKETS_PER_MEMBER = 8
_STAMP_KEY = "access-stamp:{}"
_SOCKETS_KEY = "member-sockets:{}"


# ---- access stamps ----------------------------------------------------------------------------

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


class Memo:
    """At most one computation per key in flight or done; the newest ``size`` keys are kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._done: OrderedDict[Any, asyncio.Future[Any]] = OrderedDict()

    async def get(self, key: Any, compute: Callable[[], Awaitable[Any]]) -> Any:
        future = self._done.get(key)
        if future is None:
            future = asyncio.ensure_future(compute())
            self._done[key] = future
            while len(self._done) > self.size:
                self._done.popitem(last=False)
        try:
            return await asyncio.shield(future)
        except Exception:
            if self._done.get(key) is future:
                del self._done[key]
            raise


# ---- sockets of this process, by table --------------------------------------------------------

_at_table: dict[int, dict[str, int]] = {}  # table id -> {channel name: user id}


def socket_joined(table_id: int, channel: str, user_id: int) -> None:
    _at_table.setdefault(table_id, {})[channel] = user_id


def socket_left(table_id: int, channel: str) -> None:
    sockets = _at_table.get(table_id)
    if sockets is not None:
        sockets.pop(channel, None)
        if not sockets:
            _at_table.pop(table_id, None)


def members_at(table_id: int) -> set[int]:
    return set(_at_table.get(table_id, {}).values())


def sockets_register(user_id: int, channel: str) -> list[str]:
    """Note a member's new socket; return the channels of their oldest sockets beyond the cap (to close)."""
    key = _SOCKETS_KEY.format(user_id)
    channels = [c for c in (cache.get(key) or []) if isinstance(c, str) and c != channel] + [channel]
    extra = channels[:-SOCKETS_PER_MEMBER] if len(channels) > SOCKETS_PER_MEMBER else []
    cache.set(key, channels[len(extra):], timeout=24 * 3600)
    return extra


def sockets_unregister(user_id: int, channel: str) -> None:
    key = _SOCKETS_KEY.format(user_id)
    channels = [c for c in (cache.get(key) or []) if c != channel]
    if channels:
        cache.set(key, channels, timeout=24 * 3600)
    else:
        cache.delete(key)


# ---- the table area ---------------------------------------------------------------------------

def _zone(user: User) -> Any:
    try:
        return zoneinfo.ZoneInfo(user.time_zone) if user.time_zone else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def table_area_html(*, snapshot: TableSnapshot, user: User, access: Any = None) -> str:
    """The table area of ``user`` (games/area.jinja) from the same presenter as the page, made from
    ``snapshot`` alone: no query (the socket side calls it in the event loop, where a query would fail).
    ``access``: their ClubAccess (read when the socket's access was last checked). Forms in it carry no
    CSRF token (the page's script adds the page's own; without the script the page is loaded whole and
    carries its own).

    What every viewer sees alike is rendered once per snapshot, time zone and language; per member only
    the area's member parts (games/area.py)."""
    from games.presenters import hand_page

    table = snapshot.table
    currency = table.club.currency
    with timezone.override(_zone(user)):  # times in the member's zone, as the page's middleware does
        # Read once here: each lookup of the zone or language is a context-variable lookup in the loop.
        locale = (timezone.get_current_timezone_name(), translation.get_language())
        shared = snapshot.derived.get(("area", locale))
        if shared is None:
            public = hand_page(table=table, hand=snapshot.hand, user=None, currency=currency, snapshot=snapshot)
            shared = snapshot.derived[("area", locale)] = area_shared(_area_values(snapshot, public, None, None,
                                                                                  locale))
        context = hand_page(table=table, hand=snapshot.hand, user=user, currency=currency, snapshot=snapshot)
        return area_fill(shared, _area_values(snapshot, context, user, access, locale))


def _area_values(snapshot: TableSnapshot, context: dict[str, Any], user: User | None, access: Any,
                 locale: tuple[str, str]) -> dict[str, Any]:
    table = snapshot.table
    return {"part_locale": locale, **context, "club": table.club, "table": table, "user": user,
            "request": None,  # no page: the away switch comes back to the table's own address
            "csrf_token": "", "access": access, "closing": snapshot.closing}


def frame(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))
