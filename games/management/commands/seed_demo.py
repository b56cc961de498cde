"""Create the demo club once: an organiser and four members, credentials printed once."""

from __future__ import annotations

import secrets
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

import engine
from accounts.models import Club, Membership, User
from accounts.services import club_create
from games.demo.simulate import simulation_run
from games.services import rule_set_create, table_create

DEMO_CLUB = "Demo club"
ORGANISER = ("olive", "Olive (organiser)")
MEMBERS = [("ann", "Ann"), ("ben", "Ben"), ("cat", "Cat"), ("dan", "Dan")]


class Command(BaseCommand):
    help = "Create the demo club with an organiser and four members (does nothing if it exists)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the site is served.")

    def handle(self, *args: Any, url: str, **options: Any) -> None:
        # Keyed on the demo organiser, not the club's name, which organisers may change.
        if User.objects.filter(username=ORGANISER[0]).exists():
            self.stdout.write(
                f"Demo club already set up; log in at {url} with the credentials printed the first time "
                "(forgotten? `python manage.py changepassword olive`)."
            )
            return
        credentials: list[tuple[str, str]] = []
        with transaction.atomic():
            people = []
            for username, display_name in [ORGANISER, *MEMBERS]:
                password = secrets.token_urlsafe(9)
                user = User.objects.create_user(
                    username=username,
                    password=password,
                    display_name=display_name,
                    email=f"{username}@example.com",
                )
                credentials.append((username, password))
                people.append(user)
            club = club_create(name=DEMO_CLUB, currency="USD", credit_limit=500_00, creator=people[0])
            Membership.objects.bulk_create(Membership(club=club, user=user) for user in people[1:])
            seed_house_rules(club=club, organiser=people[0])
        # A few finished hands of both games, so the ledger has a history to explain (each move in its
        # own transaction, as at the table).
        simulation_run(club=club, players=people, hands=8, seed=7, created_by=people[0])
        lines = [f"Demo club created. Log in at {url} with (shown only this once):"]
        lines += [f"    {username:<6} {password}" for username, password in credentials]
        self.stdout.write(self.style.SUCCESS("\n".join(lines)))


def seed_house_rules(*, club: Club, organiser: User) -> None:
    """The demo's agreed house rules and two open tables: one with a short clock to watch it move."""
    piranha = rule_set_create(
        club=club,
        user=organiser,
        name="Piranha, capped at $5",
        max_seats=6,
        spectators_allowed=True,
        rules=engine.PiranhaRules(ante=25, match_cap=500, turn_seconds=3600),
    )
    quick = rule_set_create(
        club=club,
        user=organiser,
        name="Quick Piranha (1-minute clock)",
        max_seats=6,
        spectators_allowed=True,
        rules=engine.PiranhaRules(ante=25, match_cap=200, turn_seconds=60),
    )
    piles = rule_set_create(
        club=club,
        user=organiser,
        name="Piles, quarter ante",
        max_seats=7,
        spectators_allowed=True,
        rules=engine.PilesRules(turn_seconds=3600),
    )
    del piranha
    for rule_set, name in [(quick, "Quick Piranha"), (piles, "Piles night")]:
        table_create(club=club, user=organiser, name=name, rule_version_id=rule_set.versions.get().pk)
