"""Read a club export into a new club, or into an empty one."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Club
from clubdata.archive import ArchiveError
from clubdata.importing import club_import


class Command(BaseCommand):
    help = (
        "Import a club export (a zip made by club_export or the club's data page) into a new club, or "
        "with --into into an existing club that has no rule sets, tables or books yet."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="The zip file.")
        parser.add_argument("--into", type=int, default=None, help="An empty club's id (default: a new club).")

    def handle(self, *args: Any, file: str, into: int | None, **options: Any) -> None:
        target = None
        if into is not None:
            target = Club.objects.filter(pk=into).first()
            if target is None:
                raise CommandError(f"No club has the id {into}.")
        try:
            with open(file, "rb") as stream:
                result = club_import(source=stream, into=target)
        except (ArchiveError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        counts = ", ".join(f"{n} {name}" for name, n in result.counts.items())
        self.stdout.write(self.style.SUCCESS(f"Imported into club #{result.club.pk} {result.club.name}: {counts}."))
        if result.new_users:
            self.stdout.write(
                f"New accounts (no password yet; they use 'Forgot your password?'): {', '.join(result.new_users)}"
            )
