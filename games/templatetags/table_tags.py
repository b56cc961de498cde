"""The table's layout: seats placed around the board, and each awaited seat's clock."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import template
from django.utils.safestring import mark_safe

from accounts.models import User
from games import presenters
from games.templatetags.live_tags import lasting_text, public_text
from games.templatetags.turn_tags import _snapshot
from games.words import seat_state_words

register = template.Library()


@register.simple_tag(takes_context=True)
def seat_clocks(context: Any) -> list[dict[str, Any]]:
    """The clocks this member may see (presenters.turn_clocks_for), read once for the list and the seats."""
    request = context.get("request")
    user = getattr(request, "user", None)
    hand = context.get("hand")
    return presenters.turn_clocks_for(hand=hand, user=user if isinstance(user, User) else None,
                                      snapshot=_snapshot(context, hand))


@register.filter
def clock_of(clocks: list[dict[str, Any]], seat: int) -> dict[str, Any] | None:
    return next((c for c in clocks or [] if c.get("seat") == seat), None)


@register.filter
def seat_state(row: dict[str, Any]) -> str:
    return seat_state_words(row.get("view"), is_me=bool(row.get("is_me")))


@register.filter
def around(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The seats by side of the table, the member's own (else the first) at the bottom and the others
    clockwise: left, top, right; on a phone the sides stack under the board."""
    if not rows:
        return []
    start = next((i for i, r in enumerate(rows) if r.get("is_me")), 0)
    ring = rows[start:] + rows[:start]
    rest = ring[1:]
    n = len(rest)
    left = (n + 2) // 4 if n > 2 else 0
    right = left
    top = n - left - right
    return [("bottom", ring[:1]), ("left", list(reversed(rest[:left]))),
            ("top", rest[left:left + top]), ("right", rest[left + top:])]


@register.simple_tag(takes_context=True)
def seat_ring(context: Any) -> str:
    """The seats around the board (``around``), each drawn by games/_seat_row.html. Another's seat looks
    the same to every viewer but its own player, so it is rendered once per snapshot (a public part,
    games/templatetags/live_tags.py); the member's own row is theirs alone. Each is kept for the next
    versions of the hand while all it shows (the row, the seat, its clock and money) stays the same."""
    row_template = context.template.engine.get_template("games/_seat_row.html")

    def row_html(row: dict[str, Any]) -> str:
        with context.push(row=row):
            return str(row_template.render(context))

    clocks = context.get("clocks")
    money = context.get("seat_money") or {}
    currency = getattr(context.get("club"), "currency", None)
    viewer = getattr(context.get("user"), "pk", None)

    def kept_row(row: dict[str, Any]) -> str:
        seat = row.get("seat")
        clock = clock_of(clocks, row["number"]) if row.get("to_act") else None
        inputs = (tuple((k, v) for k, v in row.items() if k != "seat"), currency,
                  (seat.user_id, seat.sitting_out, seat.user.away, money.get(seat.user_id)) if seat else None,
                  clock["deadline"] if clock else None)
        slot = ("own_seat", viewer) if row.get("is_me") else ("seat", row["number"])  # one's own: kept for them
        return lasting_text(context, slot, inputs, partial(row_html, row))

    out = []
    for side, rows in around(context.get("seat_rows") or []):
        out.append(f'<ul class="ring ring-{side}" aria-label="Seats">')
        out.extend(kept_row(row) if row.get("is_me") else  # another's: once per snapshot, then as it was
                   public_text(context, "seat", row["number"], partial(kept_row, row)) for row in rows)
        out.append("</ul>")
    return mark_safe("\n".join(out))  # noqa: S308 - rendered templates, escaped there


_KEYS = {"check": "k", "call": "c", "bet": "b", "raise": "r", "fold": "f", "in": "i", "out": "o",
         "declare:high": "h", "declare:low": "l", "declare:pig": "p"}


@register.filter
def shortcut_key(kind: str, value: str) -> str:
    """The key that presses an action's button (static/js/table.js; not while typing)."""
    return _KEYS.get(str(value)) or _KEYS.get(str(kind), "")
