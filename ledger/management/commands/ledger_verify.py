"""Recompute every balance from the postings and check that every entry sums to zero."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from ledger.verify import ledger_problems


class Command(BaseCommand):
    help = (
        "Recompute every balance and running balance from the postings and check every entry sums "
        "to zero; exits non-zero naming each difference."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--club", type=int, default=None, help="Check one club only (id).")

    def handle(self, *args: Any, club: int | None, **options: Any) -> None:
        # One snapshot of the whole books: REPEATABLE READ, read only.
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if outermost:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            problems, summary = ledger_problems(club_id=club)
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(f"ledger_verify: {len(problems)} problem(s) found ({summary}).")
        self.stdout.write(self.style.SUCCESS(f"ledger_verify: the books balance ({summary})."))
