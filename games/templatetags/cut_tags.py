"""{% coming_deals %}: a table's coming deals with their roots and, once closed, their lists of cuts
(static/js/cut.js signs the open ones with the browser's device key; there is no cut without JavaScript)."""

from __future__ import annotations

from typing import Any

from django import template

from games.models import Hand
from games.selectors.cuts import decks_coming, hand_cut_summary
from games.selectors.seating import seat_of

register = template.Library()


@register.inclusion_tag("games/_coming_deals.html", takes_context=True)
def coming_deals(context: Any, form: bool = True) -> dict[str, Any]:
    table = context["table"]
    user = context["request"].user
    seated = form and user.is_authenticated and seat_of(table=table, user=user) is not None
    return {
        "table": table,
        "decks": decks_coming(table=table),
        "seated": seated,
        "csrf_token": context.get("csrf_token"),
    }


@register.filter
def deal_claim(hand: Hand) -> str:
    """What ``hand``'s deal rests on, in the one sentence every page uses (docs/fairness.md)."""
    return str(hand_cut_summary(hand=hand)["words"])
