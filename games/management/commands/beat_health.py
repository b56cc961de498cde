"""Exit 0 when Celery beat handed a task to Redis recently, 1 otherwise (the beat container's health check)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kernel.beat import heartbeat_age, heartbeat_path


class Command(BaseCommand):
    help = "Check that Celery beat is alive: its heartbeat file is younger than --max-age seconds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--max-age",
            type=float,
            default=settings.BEAT_HEARTBEAT_MAX_AGE,
            help="seconds (default: BEAT_HEARTBEAT_MAX_AGE)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        age = heartbeat_age()
        if age is None:
            raise CommandError(f"beat has not written its heartbeat ({heartbeat_path()})")
        if age > options["max_age"]:
            raise CommandError(f"beat's heartbeat is {age:.0f}s old (more than {options['max_age']:.0f}s)")
        self.stdout.write(f"beat is alive: heartbeat {age:.0f}s old")
