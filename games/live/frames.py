"""The frames of the live table and lobby sockets: limits, close codes and the one encoder (docs/live.md)."""

from __future__ import annotations

import json
from typing import Any

CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_REPLACED = 4408
CLOSE_FLOOD = 4429
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013  # Redis unreachable: the page reconnects with backoff

MAX_FRAME_BYTES = 4096  # also uvicorn's --ws-max-size on every server command (config/serve.py)
RATE_COUNT = 20  # messages per socket ...
RATE_SECONDS = 10.0  # ... in this many seconds; beyond it each message gets an error,
FLOOD_COUNT = 40  # and beyond this many the socket is closed (4429).

PUBLIC = "table.public"
PRIVATE = "table.private"


def encode(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))


def carried(kind: str, text: str) -> dict[str, Any]:
    """The group message that carries an encoded frame: each socket sends ``text`` as it is."""
    return {"type": kind, "text": text}
