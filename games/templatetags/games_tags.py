"""Template helpers: money in the club's currency and cards readable at a glance and by screen readers
(games/presentation/shared.py, which the Jinja2 table area uses too)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.presentation import shared
from games.presentation.area import jinja_template
from games.presentation.words import duration as _duration

register = template.Library()
register.filter("money", shared.money)
register.filter("get", shared.get)
register.simple_tag(shared.card, name="card")


@register.filter
def duration(seconds: Any) -> str:
    return _duration(int(seconds))


@register.simple_tag
def cardback() -> SafeString:
    return shared.card(None)


@register.simple_tag(takes_context=True)
def jinja(context: Any, name: str) -> SafeString:
    """``{% jinja "games/_board.jinja" %}``: a Jinja2 template of templates/jinja2/ (the table area and
    its pieces: games/presentation/jinja.py) rendered with this template's context."""
    return mark_safe(jinja_template(name).render(context.flatten()))  # noqa: S308 - rendered, escaped there
