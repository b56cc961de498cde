"""The process's own machinery in one place: its thread pools, its kept clients (and each thread's own
connections), its process caches and the garbage collector's settings, and what each becomes in a child forked
from the process (a Celery worker's pool forks; docs/live.md "Machinery" lists each one, what it saves and its
test).

After a fork the child has only the thread that forked: the parent's pools have no threads there and a lock
a parent's thread held stays held. So, in the child, pools, kept clients and the forking thread's own
connections are forgotten and made anew on first use, and every process cache keeps its entries (they name
committed versions) under a new lock.
"""

from __future__ import annotations

import gc
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_lock = threading.Lock()
_pools: dict[str, ThreadPoolExecutor] = {}
_kept: dict[Hashable, Any] = {}
_caches: list[ProcessCache[Any, Any]] = []
_in_thread = threading.local()  # each thread's own kept objects (``kept_in_thread``)

# What this module owns, by name: docs/live.md "Machinery" lists each (tests/kernel/test_pools.py checks).
POOLS: dict[str, int] = {}  # thread pool name -> threads, as first asked for
KEPT: set[str] = set()  # kinds of kept client
KEPT_IN_THREAD: set[str] = set()  # kinds of object kept by each thread
CACHES: dict[str, int] = {}  # process cache name -> entries held


def thread_pool(name: str, workers: int) -> ThreadPoolExecutor:
    """The process's pool ``name`` of ``workers`` threads (named ``<name>_<n>``), made on first use."""
    pool = _pools.get(name)
    if pool is None:
        with _lock:
            pool = _pools.get(name)
            if pool is None:
                pool = _pools[name] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
                POOLS.setdefault(name, workers)
    return pool


def kept(kind: str, key: Hashable, make: Callable[[], T]) -> T:
    """The process's kept object of ``kind`` for ``key`` (a client and its connection pool), made once by
    ``make``."""
    found = _kept.get((kind, key))
    if found is None:
        with _lock:
            found = _kept.get((kind, key))
            if found is None:
                found = _kept[(kind, key)] = make()
                KEPT.add(kind)
    return found


def kept_in_thread(kind: str, key: Hashable, make: Callable[[], T]) -> T:
    """This thread's own kept object of ``kind`` for ``key`` (a connection only this thread uses: no pool's lock
    and checks around each use), made once by ``make``."""
    held: dict[Any, Any] = _in_thread.__dict__
    found = held.get((kind, key))
    if found is None:
        found = held[(kind, key)] = make()
        KEPT_IN_THREAD.add(kind)
    return found


class ProcessCache(Generic[K, V]):
    """A bounded, thread-safe map of this process, the least recently put dropped first. For values that
    never go stale (immutable, keyed by what names exactly one value)."""

    def __init__(self, name: str, held: int) -> None:
        self.name = name
        self.held = held
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        with _lock:
            _caches.append(self)
            CACHES[name] = held

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.held:
                self._entries.popitem(last=False)

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._entries.get(key)

    def __len__(self) -> int:
        return len(self._entries)


# The young generation is collected after 20,000 new objects, not Python's 700: at 700 it ran many times
# for each version's areas, each time walking the dicts and tuples still in use mid-render and moving them
# on to the older generations, whose passes are longer. Nearly all of them are freed by their reference
# count before 20,000. Under load (bench/load.py, the web process sampled by perf) the collector's share
# of the process's CPU fell from about 5.3% to 1.3%.
GC_THRESHOLDS = (20_000, 20, 50)


def collector_settle() -> None:
    """For a server process once everything of start-up is loaded: set it aside from the collector's full
    passes, which would otherwise walk it again and again, each time stalling every socket of the process
    (about 50 ms for the 136,000 objects it holds here), and collect the young generation less often."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _in_forked_child() -> None:
    global _lock
    _lock = threading.Lock()
    _pools.clear()  # their threads are the parent's: new pools on first use
    _kept.clear()  # their sockets are the parent's: new clients on first use
    _in_thread.__dict__.clear()  # the forking thread's, the one thread a child has: its sockets are the parent's
    for cache in _caches:
        cache._lock = threading.Lock()  # a parent's thread may have held it at the fork


os.register_at_fork(after_in_child=_in_forked_child)
