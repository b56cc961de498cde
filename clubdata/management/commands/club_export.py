"""Write a club to a zip file (the format of clubdata/archive.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Club
from clubdata.archive import ArchiveError, club_export


class Command(BaseCommand):
    help = "Export a club (members, rule sets, tables, hands with their logs, the books) to a zip file."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--club", type=int, required=True, help="The club's id.")
        parser.add_argument("--out", required=True, help="The zip file to write.")
        parser.add_argument(
            "--reason",
            required=True,
            help="Why (recorded, and read by the members on the page of every hand the file holds).",
        )

    def handle(self, *args: Any, club: int, out: str, reason: str, **options: Any) -> None:
        found = Club.objects.filter(pk=club).first()
        if found is None:
            raise CommandError(f"No club has the id {club}.")
        try:
            with open(out, "wb") as stream:
                manifest = club_export(club=found, out=stream, reason=reason)
        except ArchiveError as exc:
            raise CommandError(str(exc)) from exc
        counts = ", ".join(f"{n} {name}" for name, n in manifest["counts"].items())
        self.stdout.write(self.style.SUCCESS(f"Exported {found.name} to {out}: {counts}."))
