"""Django's Redis cache, with one redis-py client kept per connection pool.

Django's Redis cache makes a new ``redis.Redis`` for every call, and redis-py builds its reply handlers
anew each time: about 64 us of CPU here, more than the call's round trip to Redis on loopback. The
table's sockets read the members' access stamps on every version and an action reads a few keys, so
the client is kept, one per process and server (kernel/pools.py), not one per thread's cache object. A
redis-py client is safe to share between threads: its pool gives each command a connection of its own, and
makes a new one after Redis restarts.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from kernel.pools import kept


class _KeptClients(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        options = repr(self._pool_options)  # type: ignore[attr-defined]  # not in the stubs
        self._where = [(server, options) for server in self._servers]  # type: ignore[attr-defined]

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        return kept("cache", self._where[index], lambda: super(_KeptClients, self).get_client(key, write=write))


class KeptClientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _KeptClients
