"""The helpers the Django pages (games/templatetags/games_tags.py) and the Jinja2 table area
(games/presentation/jinja.py) share: money in the club's currency, cards readable at a glance and by
screen readers, a key's value."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from accounts.money import money as _money
from engine.cards import Card
from engine.errors import CardError


def money(cents: Any, currency: str = "USD") -> str:
    """{{ amount|money:club.currency }} -> '$0.25'."""
    if cents in (None, ""):
        return ""
    return _money_words(int(cents), str(currency or "USD"))


# An amount's words by its cents and currency: the table area words some twenty amounts a version (pot, bets,
# each seat's paid, balance and net), nearly all of them worded before.
@functools.lru_cache(maxsize=4096)
def _money_words(cents: int, currency: str) -> str:
    return _money(cents, currency)


def card(code: str | None, plays: str = "") -> SafeString:
    """A face-up card: <span class="card suit-c" aria-label="seven of clubs">7♣</span>; None: a card back.

    ``plays`` ("plays", "plays in the high", ...): a card that makes a hand shown at the showdown, marked by
    css/cards.css after the half it plays in (``_PLAYS_CLASS``: the high raised, solid outline and ▲; the low
    lowered, dashed outline and ▼; both, a double outline and ▲▼) and said in its name: "seven of clubs,
    plays in the high".
    """
    return _card_html(str(code) if code else "", str(plays or ""))


def cards(codes: Iterable[str | None] | None, plays: str = "") -> SafeString:
    """A row of cards, each as ``card`` draws it: one call for the row (the table area draws some sixty cards a
    frame, and a call from a Jinja template costs more than the card's look-up)."""
    return mark_safe("".join([card(c, plays) for c in codes or ()]))  # noqa: S308 - each card escaped by card


# Piles shows a card's half by shape and mark, not by its name alone (or by colour alone).
_PLAYS_CLASS = {
    "plays in the high": "plays plays-high",
    "plays in the low": "plays plays-low",
    "plays in the high and the low": "plays plays-both",
}


@functools.lru_cache(maxsize=512)  # 52 cards, each plain or playing in a few ways, a back: each built once
def _card_html(code: str, plays: str = "") -> SafeString:
    if not code:
        return mark_safe('<span class="card back" role="img" aria-label="face-down card"></span>')  # noqa: S308
    try:
        c = Card.parse(code)
    except CardError:
        return mark_safe('<span class="card">?</span>')  # noqa: S308
    if plays:
        said = f"{c.label}, {plays}"
        return format_html(
            '<span class="card suit-{} {}" role="img" aria-label="{}" title="{}">{}</span>',
            c.suit,
            _PLAYS_CLASS.get(plays, "plays"),
            said,
            said,
            c.pretty,
        )
    return format_html('<span class="card suit-{}" role="img" aria-label="{}">{}</span>', c.suit, c.label, c.pretty)


def get(mapping: Any, key: Any) -> Any:
    try:
        return mapping.get(key)
    except AttributeError:
        return None
