"""Whether a member is at a club now: present while a table page or the lobby of that club is open with a
live socket (games/consumers.py). Turn notices, reminders and pushes about a club's table are held back
while the member is present at that club (notices/services/turns.py, notices/webpush.py): the page already tells them.

Each open socket is one entry ``<club id>:<channel>`` of a sorted set per member in Redis (the cache's
server), scored with the
moment it stops counting: ``PRESENCE_TTL_SECONDS`` after it opened or last said ``ping`` (the pages
ping every 25 s). A socket that closes removes its entry; one whose process died ages out. The set is
bounded: stale entries are dropped on every write, and a member has at most ``live.SOCKETS_PER_MEMBER``
sockets open. When Redis cannot be read the member counts as absent (a notice too many rather than a
turn missed).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

_KEY = "presence:{}"
MAX_ENTRIES = 64  # far above the socket cap: a guard against a set that grows without bound


def _ttl() -> float:
    return float(getattr(settings, "PRESENCE_TTL_SECONDS", 70))


def _client_key(user_id: int) -> tuple[Any, str]:
    key = cache.make_and_validate_key(_KEY.format(user_id))
    return cache._cache.get_client(key, write=True), key  # type: ignore[attr-defined]


def presence_mark(*, user_id: int, club_id: int, channel: str) -> None:
    """The socket ``channel`` of ``user_id`` at club ``club_id`` is open (on connect and on each ping)."""
    now = time.time()
    ttl = _ttl()
    try:
        client, key = _client_key(user_id)
        with client.pipeline() as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {f"{club_id}:{channel}": now + ttl})
            pipe.zremrangebyrank(key, 0, -MAX_ENTRIES - 1)
            pipe.expire(key, max(1, int(ttl) + 1))
            pipe.execute()
    except Exception:  # noqa: BLE001 - presence is a courtesy; a socket must not fail for it
        log.warning("Could not note the presence of member %s", user_id, exc_info=True)


def presence_clear(*, user_id: int, club_id: int, channel: str) -> None:
    """The socket ``channel`` of ``user_id`` at club ``club_id`` closed."""
    try:
        client, key = _client_key(user_id)
        client.zrem(key, f"{club_id}:{channel}")
    except Exception:  # noqa: BLE001 - the entry ages out
        log.warning("Could not clear the presence of member %s", user_id, exc_info=True)


def is_present(*, user_id: int, club_id: int | None = None) -> bool:
    """Whether ``user_id`` has a table or lobby page of club ``club_id`` (None: of any club) open with a live
    socket now."""
    try:
        client, key = _client_key(user_id)
        live = client.zrangebyscore(key, f"({time.time()}", "+inf")
        if club_id is None:
            return bool(live)
        prefix = f"{club_id}:".encode()
        return any(bytes(entry).startswith(prefix) for entry in live)
    except Exception:  # noqa: BLE001 - unknown: treat as absent, so the notice goes out
        log.warning("Could not read the presence of member %s", user_id, exc_info=True)
        return False


def _club_of(consumer: Any) -> int:
    return int(consumer.club_id)


async def socket_seen(consumer: Any) -> None:
    """For the table and lobby sockets (opened, pinged): ``presence_mark`` off the event loop."""
    await asyncio.to_thread(
        presence_mark, user_id=consumer.user.pk, club_id=_club_of(consumer), channel=consumer.channel_name
    )


async def socket_gone(consumer: Any) -> None:
    """For the table and lobby sockets (closed): ``presence_clear`` off the event loop."""
    await asyncio.to_thread(
        presence_clear, user_id=consumer.user.pk, club_id=_club_of(consumer), channel=consumer.channel_name
    )
