"""An ASGI application under ``tracemalloc``, 16 frames deep, for bench/socket_memory.py: the site's
(config.asgi's), or the one ``BENCH_TRACED`` names (``module:attribute``, e.g. the bare app). On each SIGUSR2
it dumps a snapshot to ``<BENCH_SNAPSHOT_OUT>.<n>`` (n = 1, 2, ...), which that script compares. Nothing else
differs from the plain app (bench/traced_app.py is the soak's, one frame deep)."""

from __future__ import annotations

import importlib
import os
import signal
import tracemalloc
from types import FrameType
from typing import Any

tracemalloc.start(16)
_taken: list[int] = []


def _dump(signum: int, frame: FrameType | None) -> None:
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    _taken.append(1)
    path = f"{os.environ['BENCH_SNAPSHOT_OUT']}.{len(_taken)}"
    snapshot.dump(path + ".part")
    os.replace(path + ".part", path)  # whole when seen


signal.signal(signal.SIGUSR2, _dump)

_module, _name = os.environ.get("BENCH_TRACED", "config.asgi:application").split(":")
application: Any = getattr(importlib.import_module(_module), _name)  # traced from here on

__all__ = ["application"]
