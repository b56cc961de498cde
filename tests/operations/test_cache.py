"""The cache (kernel/cache.py): Django's Redis cache, keeping its redis-py client between calls."""

from __future__ import annotations

import uuid

from django.core.cache import cache


def test_the_cache_keeps_one_client_and_still_reads_what_it_wrote() -> None:
    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    key = f"kept-client-{uuid.uuid4().hex}"
    cache.set(key, 7, timeout=30)
    assert cache.get(key) == 7
    assert cache.get_many([key, f"{key}-none"]) == {key: 7}
    assert cache._cache.get_client(write=True) is client  # type: ignore[attr-defined]
    cache.delete(key)
    assert cache.get(key) is None
