"""Play simulated hands of both games with the engine and post their chip events through the ledger."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Club, Membership, User
from games.demo.simulate import simulation_run


class Command(BaseCommand):
    help = "Play N simulated hands (alternating a Piranha and a Piles table) in a club, posting to the ledger."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--club", type=int, required=True, help="The club's id.")
        parser.add_argument("--hands", type=int, default=10)
        parser.add_argument("--seed", type=int, default=None, help="Seed for the players' choices (not the deal).")

    def handle(self, *args: Any, club: int, hands: int, seed: int | None, **options: Any) -> None:
        found = Club.objects.filter(pk=club).first()
        if found is None:
            raise CommandError(f"No club with id {club}.")
        if hands < 1:
            raise CommandError("--hands must be at least 1.")
        players = list(User.objects.filter(memberships__club=found).order_by("pk"))
        if len(players) < 2:
            raise CommandError("The club needs at least two members to play.")
        organiser = Membership.objects.filter(club=found, role=Membership.Role.ORGANISER).select_related("user").first()
        played = simulation_run(
            club=found, players=players, hands=hands, seed=seed, created_by=organiser.user if organiser else None
        )
        entries = sum(p.entries for p in played)
        self.stdout.write(
            self.style.SUCCESS(f"Played {len(played)} hands at {found.name} ({entries} journal entries posted).")
        )
