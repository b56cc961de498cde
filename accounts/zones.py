"""Time zones a member may choose: the IANA names of the installed tz database, read when asked.

Not stored in a migration: a tzdata update changes the list without one.
"""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.core.exceptions import ValidationError


@cache
def zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def zone_choices() -> list[tuple[str, str]]:
    """[("Africa/Abidjan", "Africa/Abidjan"), ...] in name order, for a form's select."""
    return [(name, name) for name in sorted(zone_names())]


def is_zone(name: str) -> bool:
    return name in zone_names()


def validate_time_zone(value: str) -> None:
    if not is_zone(value):
        raise ValidationError("Choose a time zone from the list.", code="invalid_choice")
