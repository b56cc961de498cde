"""The Jinja2 environment of the table area (templates/jinja2/, settings ``TEMPLATES``).

The table area is the one screen rendered on every version of a hand (games/live/render.py), so it is
written for Jinja2, whose compiled templates cost a fraction of Django's per node. The pages
around it stay Django templates and include it with ``{% jinja "games/area.jinja" %}``
(games/templatetags/games_tags.py), as the replay and the hand's page include the board and the seat
row. The filters and globals are those the Django tags give the pages (games/presentation/shared.py), and
the area's own (games/presentation/area.py); Jinja's built-in ones (``default``, ``join``) behave as Jinja's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.template.defaultfilters import date
from django.templatetags.static import static
from django.utils import timezone
from jinja2 import Environment
from markupsafe import Markup

from games.presentation import area, shared, words


class _Environment(Environment):
    """Jinja's environment, except that ``row.number`` on a dict (the presenters' rows, clocks and
    addresses) looks up the key first, as Django's templates do. Jinja tries the attribute first, and
    the AttributeError a dict raises for it costs ten times the key's look-up, on every row of every
    member's area. An object's attribute is read here too: through Jinja's own method, a frame more,
    it cost twice as much (about 0.1 us more, some two hundred times a frame)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        else:
            try:
                return getattr(obj, attribute)
            except AttributeError:
                pass
        return super().getattr(obj, attribute)  # the item, else undefined

    def make_globals(self, d: Any) -> dict[str, Any]:
        """A template's globals as a plain dict, not Jinja's ChainMap over the environment's: every render copies
        them into its context, and a ChainMap is read key by key in Python (about 13 us a render: 15% of a
        member's private frame, whose parts make three; bench/public_frame.py). The environment's globals are
        all set before any template loads (``environment``), so the copy misses nothing."""
        return {**self.globals, **(d or {})}


def environment(**options: Any) -> Environment:
    # The compiled templates in a plain dict, not Jinja's LRU of 400 (a lock and a reordering at every look-up, and
    # every include and part looks one up: some twenty a version); the area's templates are a score.
    options.setdefault("cache_size", -1)
    env = _Environment(**options)  # noqa: S701 - autoescape is on: Django's backend sets it
    env.filters.update(
        {
            "money": shared.money,
            "card": shared.card,  # {{ c|card }}, {{ c|card(plays) }}: a filter is called directly, a global through
            "cards": shared.cards,  # the context's call (jinja2.runtime.Context.call), a few us more a card
            "clock_time": area.clock_time,
            "date": lambda moment, fmt: date(_local(moment), fmt),
            "get": shared.get,
            "clock_of": area.clock_of,
            "seat_state": area.seat_state,
            "shortcut_key": area.shortcut_key,
            "sentence": words.sentence,
        }
    )
    env.globals.update(
        {
            "static": static,
            "csrf_input": csrf_input,
            "seat_ring": area.seat_ring,
            "previous_hand": area.previous_hand,
            "advance_panel": area.advance_panel,
            "piles_helper_words": words.piles_helper_words,
            "seat_shown": area.seat_shown,
        }
    )
    return env


def _local(moment: Any) -> Any:
    """In the current time zone, as Django's template engine hands a moment to ``date``."""
    return timezone.localtime(moment) if isinstance(moment, datetime) and timezone.is_aware(moment) else moment


def csrf_input(token: Any) -> Markup:
    """The form's CSRF field, as Django's ``{% csrf_token %}`` writes it; nothing without a token (the
    socket's pushed area: the page's script adds the page's own)."""
    if not token or token == "NOTPROVIDED":  # noqa: S105 - Django's word for "no token made", not a secret
        return Markup("")
    return Markup('<input type="hidden" name="csrfmiddlewaretoken" value="{}">').format(str(token))
