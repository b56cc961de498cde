"""Write a consistent backup of the database (pg_dump custom format) and its manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from operations.backup import BackupError, backup_create, manifest_read


class Command(BaseCommand):
    help = "Dump the database with pg_dump (custom format) beside a manifest of row counts and ledger totals."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--dir", default=None, help="Folder of the backups (default: BACKUP_DIR).")
        parser.add_argument(
            "--keep", type=int, default=None, help="Then delete all but the newest KEEP backups in the folder."
        )

    def handle(self, *args: Any, dir: str | None, keep: int | None, **options: Any) -> None:
        directory = Path(dir or settings.BACKUP_DIR)
        try:
            dump = backup_create(directory=directory, keep=keep)
        except (BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        manifest = manifest_read(dump) or {}
        ledger = manifest.get("ledger", {})
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {manifest.get('database')} to {dump} ({manifest.get('bytes', 0):,} bytes, "
                f"{sum(manifest.get('rows', {}).values()):,} rows, {ledger.get('postings', 0):,} postings)."
            )
        )
