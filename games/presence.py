"""Whether a member is at the site now: present while a table page or a club's lobby is open with a live
socket (games/consumers.py). Turn notices, reminders and pushes are held back while the member is
present (games/notices.py, games/push.py): the page already tells them.

Each open socket is one entry of a sorted set per member in Redis (the cache's server), scored with the
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


def presence_mark(*, user_id: int, channel: str) -> None:
    """The socket ``channel`` of ``user_id`` is open (on connect and on each ping)."""
    now = time.time()
    ttl = _ttl()
    try:
        client, key = _client_key(user_id)
        with client.pipeline() as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {channel: now + ttl})
            pipe.zremrangebyrank(key, 0, -MAX_ENTRIES - 1)
            pipe.expire(key, max(1, int(ttl) + 1))
            pipe.execute()
    except Exception:  # noqa: BLE001 - presence is a courtesy; a socket must not fail for it
        log.warning("Could not note the presence of member %s", user_id, exc_info=True)


def presence_clear(*, user_id: int, channel: str) -> None:
    """The socket ``channel`` of ``user_id`` closed."""
    try:
        client, key = _client_key(user_id)
        client.zrem(key, channel)
    except Exception:  # noqa: BLE001 - the entry ages out
        log.warning("Could not clear the presence of member %s", user_id, exc_info=True)


def is_present(*, user_id: int) -> bool:
    """Whether ``user_id`` has a table or lobby page open with a live socket now."""
    try:
        client, key = _client_key(user_id)
        return bool(client.zcount(key, f"({time.time()}", "+inf"))
    except Exception:  # noqa: BLE001 - unknown: treat as absent, so the notice goes out
        log.warning("Could not read the presence of member %s", user_id, exc_info=True)
        return False


async def socket_seen(user_id: int, channel: str) -> None:
    """For the sockets (opened, pinged): ``presence_mark`` off the event loop."""
    await asyncio.to_thread(presence_mark, user_id=user_id, channel=channel)


async def socket_gone(user_id: int, channel: str) -> None:
    """For the sockets (closed): ``presence_clear`` off the event loop."""
    await asyncio.to_thread(presence_clear, user_id=user_id, channel=channel)
