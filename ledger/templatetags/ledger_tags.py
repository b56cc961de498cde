"""Money in templates: integer cents shown in currency units."""

from __future__ import annotations

from django import template

from accounts.money import format_cents

register = template.Library()


@register.filter
def cents(amount: int | None) -> str:
    """12345 -> "123.45"; -5 -> "-0.05"."""
    return format_cents(int(amount or 0))


@register.filter
def signed_cents(amount: int | None) -> str:
    """12345 -> "+123.45" (a movement), -5 -> "-0.05"."""
    value = int(amount or 0)
    return ("+" if value > 0 else "") + format_cents(value)


@register.filter
def standing(amount: int | None) -> str:
    """The CSS class of a balance: up, down or even."""
    value = int(amount or 0)
    return "up" if value > 0 else "down" if value < 0 else "even"
