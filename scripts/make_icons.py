"""Draw the web app's icons (static/icons/*.png): a white club on the site's green, as plain PNGs written
with zlib only. Run again after changing the drawing: python3 scripts/make_icons.py"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

GREEN = (20, 83, 45)
WHITE = (255, 255, 255)
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"


def _inside_club(x: float, y: float) -> bool:
    """Whether (x, y), in a unit square, is inside the club drawn centred in it."""
    circles = [(0.5, 0.33, 0.16), (0.33, 0.56, 0.16), (0.67, 0.56, 0.16)]
    if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r for cx, cy, r in circles):
        return True
    if 0.46 <= x <= 0.54 and 0.45 <= y <= 0.78:  # the stem
        return True
    half = (y - 0.68) * 0.9  # the foot widens downwards
    return 0.68 <= y <= 0.8 and abs(x - 0.5) <= half


def _png(size: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def icon(size: int, *, scale: float = 1.0) -> bytes:
    """A ``size`` px icon; ``scale`` < 1 shrinks the club into the middle (the maskable safe zone)."""
    rows = []
    for py in range(size):
        row = bytearray()
        for px in range(size):
            x = 0.5 + ((px + 0.5) / size - 0.5) / scale
            y = 0.5 + ((py + 0.5) / size - 0.5) / scale
            row += bytes(WHITE if _inside_club(x, y) else GREEN)
        rows.append(bytes(row))
    return _png(size, rows)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon-192.png").write_bytes(icon(192))
    (OUT / "icon-512.png").write_bytes(icon(512))
    (OUT / "icon-maskable-512.png").write_bytes(icon(512, scale=0.7))


if __name__ == "__main__":
    main()
