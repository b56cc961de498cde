"""A club export of many members and nothing else, built without a database: for the import's job tests
and bench/imports.py (20,000 member rows)."""

from __future__ import annotations

import io
import json
import zipfile

from clubdata.archive import FORMAT, FORMAT_VERSION, KINDS


def members_export(members: int, *, first_role: str = "organiser") -> bytes:
    """A genuine-format export whose data/members.jsonl holds ``members`` rows (the first an organiser, every
    tenth a member with an address, the rest former members), every other file empty."""
    lines = []
    for n in range(1, members + 1):
        role = first_role if n == 1 else ("member" if n % 10 == 0 else None)
        lines.append(
            json.dumps(
                {
                    "id": n,
                    "username": f"player{n}",
                    "display_name": f"Player {n}",
                    "email": f"player{n}@example.com" if role else "",
                    "first_name": "",
                    "last_name": "",
                    "time_zone": "UTC",
                    "is_active": True,
                    "date_joined": "2025-01-02T03:04:05+00:00",
                    "role": role,
                    "joined_at": "2025-01-02T03:04:05+00:00" if role else None,
                }
            )
        )
    counts = {kind.name: 0 for kind in KINDS}
    counts["members"] = members
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "manifest.json", json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION, "counts": counts})
        )
        archive.writestr(
            "data/club.json", json.dumps({"id": 1, "name": "Big club", "currency": "EUR", "credit_limit": 0})
        )
        archive.writestr("data/members.jsonl", "\n".join(lines) + "\n")
        for kind in KINDS:
            archive.writestr(f"data/{kind.name}.jsonl", b"")
    return out.getvalue()
