"""kernel/pools.py's rule after a fork: a child makes its own pools and clients on first use, and keeps its
process caches' entries under a lock of its own (a lock a parent's thread held at the fork would otherwise
stay held in the child)."""

from __future__ import annotations

import os
import threading

from kernel import pools


def _in_child(check: object) -> int:
    """Run ``check`` in a forked child; its exit status (0: it held)."""
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        code = 1
        try:
            code = 0 if check() else 2  # type: ignore[operator]
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_forked_child_makes_its_own_pools_and_clients_and_keeps_its_caches() -> None:
    pool = pools.thread_pool("fork-check", 1)
    assert pool.submit(threading.current_thread).result(timeout=5).name.startswith("fork-check")
    client = pools.kept("fork check", "key", object)
    own = pools.kept_in_thread("fork check", "key", object)  # the forking thread's own (its socket)
    cache: pools.ProcessCache[str, int] = pools.ProcessCache("fork check", held=2)
    cache.put("a", 1)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:  # a parent's thread holding the cache's lock at the fork
        with cache._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)

    def check() -> bool:
        fresh = pools.thread_pool("fork-check", 1)
        ran = fresh.submit(lambda: 7).result(timeout=5)
        cache.put("b", 2)  # would hang on the parent's held lock
        return (
            fresh is not pool
            and ran == 7
            and pools.kept("fork check", "key", object) is not client
            and pools.kept_in_thread("fork check", "key", object) is not own
            and (
                cache.get("a"),
                cache.get("b"),
            )
            == (1, 2)
        )

    try:
        assert _in_child(check) == 0
    finally:
        release.set()
        holder.join()
    assert pools.thread_pool("fork-check", 1) is pool and pools.kept("fork check", "key", object) is client
    assert pools.kept_in_thread("fork check", "key", object) is own
    other = pools.thread_pool("fork-check", 1).submit(pools.kept_in_thread, "fork check", "key", object)
    assert other.result(timeout=5) is not own  # another thread has its own
