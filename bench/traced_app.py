"""The site's ASGI application with ``tracemalloc`` running, for bench/load.py's soak
(``uvicorn bench.traced_app:application``: the same server command, this module in place of
config.asgi's). Nothing else differs: it starts tracing, then imports the site.

On SIGUSR1 it writes a line of JSON to the file named by ``BENCH_TRACEMALLOC_OUT`` (with the process id
appended): what tracemalloc itself holds (to take off the process's RSS). SIGUSR2 writes the same after a
snapshot: the first is kept, and from the second on the line lists the allocations that grew most since
the first, by source line.
"""

from __future__ import annotations

import json
import os
import signal
import tracemalloc
from types import FrameType

TOP = 12
tracemalloc.start(1)
_first: list[tracemalloc.Snapshot] = []


def _report(signum: int, frame: FrameType | None) -> None:
    line: dict[str, object] = {}
    if signum == signal.SIGUSR2:
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        if not _first:
            _first.append(snapshot)
        else:
            line["growth"] = [
                {"where": str(stat.traceback), "bytes": stat.size_diff, "blocks": stat.count_diff}
                for stat in snapshot.compare_to(_first[0], "lineno")[:TOP]
            ]
    line.update(tracemalloc_bytes=tracemalloc.get_tracemalloc_memory(), traced_bytes=tracemalloc.get_traced_memory()[0])
    with open(f"{os.environ['BENCH_TRACEMALLOC_OUT']}.{os.getpid()}", "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


signal.signal(signal.SIGUSR1, _report)
signal.signal(signal.SIGUSR2, _report)

from config.asgi import application  # noqa: E402 - traced from here on

__all__ = ["application"]
