"""The live table's frames rendered from a table snapshot (docs/live.md "Frames, server to client").

``public_frame``: the table area (games/area.jinja) as a spectator sees it, in UTC, rendered once per
version and encoded once. ``private_frame``: one member's own parts (their cards, buttons, forms, advance
panel, own seat row), rendered only for those whose part changed. Neither needs a query: everything comes
from the snapshot. Forms carry no CSRF token (the page's script adds the page's own).
"""

from __future__ import annotations

import zoneinfo
from collections import Counter
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.live.frames import PRIVATE, PUBLIC, encode
from games.presentation.area import AREA, jinja_template, seat_row_html
from games.presentation.presenters import member_context, public_context
from games.selectors.snapshot import TableSnapshot
from kernel import metrics

PARTS = ("own_hand", "seat_actions")  # the area's data-part slots a private frame fills
# Frames rendered by this process by kind (tests); each also counts in club_live_renders_total (kernel/metrics.py).
renders: Counter[str] = Counter()


def _zone(user: User) -> Any:
    try:
        return zoneinfo.ZoneInfo(user.time_zone) if user.time_zone else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def _values(snapshot: TableSnapshot, user: User | None) -> dict[str, Any]:
    """The area's context: the version's public context (worked out once, shared by its frames) and, for
    ``user``, only their own part of it (``member_context``), with what a page's request would add."""
    table = snapshot.table
    currency = table.club.currency
    own = {} if user is None else member_context(snapshot=snapshot, user=user, currency=currency)
    return {
        **public_context(snapshot, currency),
        **own,
        "club": table.club,
        "table": table,
        "user": user,
        "access": None,
        "request": None,
        "csrf_token": "",
        "closing": snapshot.closing,
    }


def order_key(snapshot: TableSnapshot, at: int) -> dict[str, Any]:
    hand = snapshot.hand
    return {
        "table": snapshot.table.pk,
        "hand": hand.pk if hand else None,
        "version": hand.version if hand else None,
        "at": at,
    }


def public_frame(snapshot: TableSnapshot, *, at: int = 0, full: bool = False) -> str:
    """The table's public frame, encoded: what every viewer sees alike (``full``: every seated member's own
    part changed too)."""
    renders[metrics.live_rendered("public")] += 1
    hand = snapshot.hand
    with timezone.override(zoneinfo.ZoneInfo("UTC")):
        values = _values(snapshot, None)
        html = jinja_template(AREA).render(values)
    marks = hand.private_marks or {} if hand is not None else {}
    clocks = [
        {"seat": c["seat"], "deadline": c["deadline"].isoformat() if c["deadline"] else None}
        for c in values["public_clocks"]
    ]
    return encode(
        {
            "type": PUBLIC,
            **order_key(snapshot, at),
            "finished": bool(hand and hand.is_finished),
            "full": full or hand is None or hand.is_finished,
            "to_act": snapshot.to_act(),
            "clocks": clocks,
            "marks": {seat: int(marks.get(seat, 0)) for seat in (hand.players if hand else {})},
            "html": html,
        }
    )


def private_frame(snapshot: TableSnapshot, user: User, *, at: int = 0) -> str:
    """``user``'s private frame, encoded: their own parts of the area and their own seat row, from their own
    context over the version's public one (no other seat's row, no other member's clocks)."""
    renders[metrics.live_rendered("private")] += 1
    with timezone.override(_zone(user)):  # times in the member's zone, as the page's middleware does
        values = _values(snapshot, user)
        view = values["view"]
        parts = {
            name: jinja_template(f"games/area/{name}.jinja").render(values)
            for name in PARTS
            if name != "own_hand" or view is not None
        }
        own = values["own_rows"][0] if values["own_rows"] else None
        if own is not None:
            parts["row"] = seat_row_html(values, own, values["clocks"])
    your_turn = bool(
        view is not None and not values.get("is_over") and view.you is not None and view.you in view.to_act
    )
    return encode(
        {
            "type": PRIVATE,
            **order_key(snapshot, at),
            "seat": own["number"] if own else None,
            "your_turn": your_turn,
            "acted": values["acted"],
            "parts": parts,
        }
    )
