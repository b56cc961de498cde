"""The live table's frames rendered from a table snapshot (docs/live.md "Frames, server to client").

``public_frame``: the table area (games/area.jinja) as a spectator sees it, in UTC, rendered once per
version and encoded once. ``private_frame``: one member's own parts (their cards, buttons, forms, advance
panel, own seat row), rendered only for those whose part changed, from what those parts read alone. Neither
needs a query: everything comes from the snapshot. Forms carry no CSRF token (the page's script adds the
page's own).
"""

from __future__ import annotations

import zoneinfo
from collections import Counter
from contextlib import nullcontext
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.live.frames import Clock, Parts, TablePrivate, TablePublic
from games.presentation.area import AREA, clock_of, jinja_template, seat_row_html
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


def _page_extras(snapshot: TableSnapshot, user: User | None) -> dict[str, Any]:
    """What the page's view and request add to the area's context: no request, no token, no access."""
    table = snapshot.table
    return {"club": table.club, "table": table, "user": user, "access": None, "request": None, "csrf_token": ""}


# What the member's parts read of the version's public context beside their own (``member_context``):
# templates/jinja2/games/area/own_hand.jinja, seat_actions.jinja, the advance panel and the seat row.
_SHARED_BY_PARTS = ("hand", "is_over", "board_all_up", "free_seats", "urls", "seat_money", "snapshot")


def _member_values(snapshot: TableSnapshot, user: User) -> dict[str, Any]:
    """The context of ``user``'s parts: their own context and only what the parts read of the public one."""
    currency = snapshot.table.club.currency
    public = public_context(snapshot, currency)
    return {
        **{name: public.get(name) for name in _SHARED_BY_PARTS},
        **member_context(snapshot=snapshot, user=user, currency=currency),
        **_page_extras(snapshot, user),
    }


def _own_clock(values: dict[str, Any], own: dict[str, Any] | None) -> bool:
    """Whether the member's parts write a clock's time: their own turn clocks (own_hand.jinja, while a decision is
    sealed) or the clock of their own seat row while it is awaited (games/_seat_row.jinja)."""
    if values["own_clocks"]:
        return True
    return own is not None and own["to_act"] and clock_of(values["clocks"], own["number"]) is not None


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
        values = {**public_context(snapshot, snapshot.table.club.currency), **_page_extras(snapshot, None)}
        html = jinja_template(AREA).render(values)
    marks = hand.private_marks or {} if hand is not None else {}
    clocks = [
        Clock(seat=c["seat"], deadline=c["deadline"].isoformat() if c["deadline"] else None)
        for c in values["public_clocks"]
    ]
    return TablePublic(
        **order_key(snapshot, at),
        finished=bool(hand and hand.is_finished),
        full=full or hand is None or hand.is_finished,
        to_act=snapshot.to_act(),
        clocks=clocks,
        marks={seat: int(marks.get(seat, 0)) for seat in (hand.players if hand else {})},
        html=html,
    ).encoded()


def private_frame(snapshot: TableSnapshot, user: User, *, at: int = 0) -> str:
    """``user``'s private frame, encoded: their own parts of the area and their own seat row, rendered from their
    own context (``member_context``) and the few public values the parts read (``_SHARED_BY_PARTS``)."""
    renders[metrics.live_rendered("private")] += 1
    values = _member_values(snapshot, user)
    own = values["own_rows"][0] if values["own_rows"] else None
    # Times in the member's zone, as the page's middleware does; only the member's own clock is written in their
    # parts, so without one no zone is set (setting it cost some 7% of a frame: bench/public_frame.py).
    with timezone.override(_zone(user)) if _own_clock(values, own) else nullcontext():
        view = values["view"]
        own_hand = None if view is None else jinja_template("games/area/own_hand.jinja").render(values)
        seat_actions = jinja_template("games/area/seat_actions.jinja").render(values)
        parts: Parts = (  # no own hand while they hold no cards
            {"seat_actions": seat_actions} if own_hand is None else {"own_hand": own_hand, "seat_actions": seat_actions}
        )
        if own is not None:
            parts["row"] = seat_row_html(values, own, values["clocks"])
    return TablePrivate(
        **order_key(snapshot, at),
        seat=own["number"] if own else None,
        your_turn=values["your_turn"],
        acted=values["acted"],
        parts=parts,
    ).encoded()
