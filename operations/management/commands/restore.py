"""Restore a backup into the configured database, then check the books with ledger_verify."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from operations.backup import BackupError, backup_restore


class Command(BaseCommand):
    help = (
        "Restore a `manage.py backup` dump into the database (which must be empty unless --force), "
        "compare it with its manifest and run ledger_verify."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="The .dump file written by `manage.py backup`.")
        parser.add_argument(
            "--force", action="store_true", help="Replace what a non-empty database holds with the backup."
        )

    def handle(self, *args: Any, file: str, force: bool, **options: Any) -> None:
        try:
            facts = backup_restore(dump=Path(file), replace=force)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Restored {file}: {sum(facts['rows'].values()):,} rows, "
            f"{facts['ledger'].get('postings', 0):,} postings; the manifest matches."
        )
        call_command("ledger_verify", stdout=self.stdout, stderr=self.stderr)
