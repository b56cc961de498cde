"""The table area's clock times written without Django's ``date`` filter (games/presentation/area.py ``_PLAIN``)
say exactly what the filter says, in the site's language, in any time zone."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta

from django.template.defaultfilters import date
from django.utils import timezone, translation

from games.presentation.area import _PLAIN, clock_time


def test_each_plain_format_writes_what_django_writes() -> None:
    start = datetime(2026, 1, 1, 0, 0, 7, tzinfo=UTC)
    moments = [start + timedelta(days=d, hours=h, minutes=13 * h) for d in range(0, 365, 9) for h in (0, 5, 23)]
    with translation.override("en-gb"):
        for zone in ("UTC", "Europe/London", "America/St_Johns", "Asia/Kathmandu", "Pacific/Kiritimati"):
            with timezone.override(zoneinfo.ZoneInfo(zone)):
                for moment in moments:
                    for fmt in _PLAIN:
                        assert clock_time(moment, fmt) == str(date(timezone.localtime(moment), fmt)), (zone, fmt)
