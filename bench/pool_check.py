"""The connection pool's check before it hands out a connection: psycopg_pool's own (an empty query, one
round trip) against the project's (config/database/base.py: the socket looked at, a round trip only when
PostgreSQL has said something), in the same process on the embedded PostgreSQL.

    .venv/bin/python bench/pool_check.py

Each checkout is what a socket's action, a version's read or a page does: take a connection, run one
small statement, give it back. Wall time and this process's CPU per checkout, the two checks in turn over
several rounds; the last line is the ratio project/psycopg_pool (lower is cheaper). A benchmark, not a test.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHECKOUTS = 2000
ROUNDS = 5


def per_checkout(pool: Any) -> tuple[float, float]:
    """Wall and CPU microseconds per checkout of ``pool``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(CHECKOUTS):
        with pool.connection() as conn:
            conn.execute("SELECT 1").fetchone()
    return ((time.perf_counter() - wall) / CHECKOUTS * 1e6, (time.process_time() - cpu) / CHECKOUTS * 1e6)


def main() -> None:
    from psycopg_pool import ConnectionPool

    from config.database.base import check_when_stirred
    from config.embedded import ensure_services

    url = ensure_services().database_url
    pools = {
        "psycopg_pool's check": ConnectionPool(url, min_size=1, max_size=1, check=ConnectionPool.check_connection),
        "the project's check": ConnectionPool(url, min_size=1, max_size=1, check=check_when_stirred),
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in pools}
    try:
        for pool in pools.values():
            pool.wait()
            per_checkout(pool)  # warm-up
        for _ in range(ROUNDS):
            for name, pool in pools.items():
                results[name].append(per_checkout(pool))
    finally:
        for pool in pools.values():
            pool.close()
    medians = {}
    for name, rows in results.items():
        medians[name] = (statistics.median(w for w, _ in rows), statistics.median(c for _, c in rows))
        print(
            f"{name:<22} wall {medians[name][0]:7.1f} us  CPU {medians[name][1]:6.1f} us per checkout "
            f"(median of {ROUNDS} rounds of {CHECKOUTS})"
        )
    (base_wall, base_cpu), (ours_wall, ours_cpu) = medians.values()
    print(f"ratio project/psycopg_pool per checkout: wall {ours_wall / base_wall:.2f}, CPU {ours_cpu / base_cpu:.2f}")


if __name__ == "__main__":
    main()
