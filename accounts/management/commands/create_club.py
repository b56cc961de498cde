"""Create a club and its first organiser on a fresh site: the organiser chooses their own password through a
one-time link (Django's password reset token), so no password is ever printed, typed on a command line or
kept in a shell history. docs/operations.md, "The first club and its organiser"."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import Club, User
from accounts.services import club_create
from kernel.errors import DomainError


class Command(BaseCommand):
    help = (
        "Create a club and its organiser, and print a one-time link where the organiser sets their password "
        "(valid for PASSWORD_RESET_TIMEOUT, 3 days by default, and only until a password is set)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--club", required=True, help="The club's name.")
        parser.add_argument("--organiser", required=True, help="The organiser's username (what they log in with).")
        parser.add_argument("--email", required=True, help="The organiser's email address (for password resets).")
        parser.add_argument("--display-name", default="", help="The name the club sees (default: the username).")
        parser.add_argument("--currency", default="USD", help="The club's three-letter currency code (default USD).")
        parser.add_argument(
            "--url", default="", help="Where the site is served, for the link (default: the SITE_URL setting)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        username: str = options["organiser"].strip()
        email: str = options["email"].strip()
        currency: str = options["currency"].strip().upper()
        if len(currency) != 3 or not currency.isalpha() or not currency.isascii():
            raise CommandError("Use a three-letter currency code such as USD, EUR or GBP.")
        if User.objects.filter(username__iexact=username).exists():
            raise CommandError(
                f"There is already an account {username!r}. Create the club from the site as that member, "
                "or choose another username."
            )
        organiser = User(username=username, email=email, display_name=options["display_name"].strip() or username)
        # A password nobody knows: the organiser sets theirs through the link, which this makes one-time
        # (the token is signed over the password hash, so it stops working once a password is set).
        organiser.set_unusable_password()
        try:
            organiser.full_clean()
        except ValidationError as error:
            raise CommandError(" ".join(m for messages in error.message_dict.values() for m in messages)) from None
        try:
            with transaction.atomic():
                organiser.save()
                default_limit = Club._meta.get_field("credit_limit").get_default()  # as a club made on the site
                club = club_create(
                    name=options["club"], currency=currency, credit_limit=default_limit, creator=organiser
                )
        except DomainError as error:
            raise CommandError(str(error)) from None

        base = (options["url"] or settings.SITE_URL).rstrip("/")
        link = base + reverse(
            "password_reset_confirm",
            kwargs={
                "uidb64": urlsafe_base64_encode(force_bytes(organiser.pk)),
                "token": default_token_generator.make_token(organiser),
            },
        )
        days = settings.PASSWORD_RESET_TIMEOUT / 86400
        self.stdout.write(
            self.style.SUCCESS(f"Club {club.name!r} (id {club.pk}) created; {username} organises it.")
            + f"\nGive {username} this link to set a password (it works once, for {days:g} days):\n"
            + f"    {link}\n"
            + f"Then {username} logs in at {base}{reverse('login')} and invites the members from the club's page."
        )
