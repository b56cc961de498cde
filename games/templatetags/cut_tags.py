"""{% coming_deals %}: the roots of a table's coming deals, with the cut form for a seated member (works
without JavaScript; static/js/cut.js cuts from the browser's random generator)."""

from __future__ import annotations

from typing import Any

from django import template

from games.selectors.cuts import cuts_made, decks_coming
from games.selectors.seating import seat_of

register = template.Library()


@register.inclusion_tag("games/_coming_deals.html", takes_context=True)
def coming_deals(context: Any, form: bool = True) -> dict[str, Any]:
    table = context["table"]
    user = context["request"].user
    seated = form and user.is_authenticated and seat_of(table=table, user=user) is not None
    made = cuts_made(table=table, user=user) if seated else {}
    return {
        "table": table,
        "decks": [{**d, "cut": made.get(d["deal"], 0)} for d in decks_coming(table=table)],
        "seated": seated,
        "csrf_token": context.get("csrf_token"),
    }
