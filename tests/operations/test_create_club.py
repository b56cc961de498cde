"""`manage.py create_club`: the first club and organiser of a fresh site, who sets a password through a one-time
link printed for the operator (no password is printed or typed on a command line)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from accounts.models import Club, Membership, User
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a passphrase the organiser chose"


def create_club(**options: str) -> str:
    out = io.StringIO()
    call_command("create_club", stdout=out, **options)
    return out.getvalue()


def link_in(output: str) -> str:
    found = re.search(r"https://club\.example\.org(/password/reset/[^/\s]+/[^/\s]+/)", output)
    assert found, output
    return found.group(1)


def set_password(client: Client, link: str) -> bool:
    page = client.get(link, follow=True)
    if not page.context["validlink"]:
        return False
    done = client.post(page.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD})
    return done.status_code == 302 and done["Location"] == reverse("password_reset_complete")


def test_the_organiser_sets_a_password_through_the_link_once_and_organises_the_club():
    output = create_club(
        club="Friday poker", organiser="olive", email="olive@example.org", url="https://club.example.org/"
    )
    olive = User.objects.get(username="olive")
    club = Club.objects.get(name="Friday poker")
    assert Membership.objects.get(club=club, user=olive).role == Membership.Role.ORGANISER
    assert not olive.has_usable_password()  # nobody knows a password before the link is used
    assert olive.display_name == "olive" and olive.email == "olive@example.org"
    assert club.credit_limit == Club._meta.get_field("credit_limit").get_default()
    link = link_in(output)

    client = Client()
    assert set_password(client, link)
    assert client.post(reverse("login"), {"username": "olive", "password": PASSWORD}).status_code == 302
    assert client.get(reverse("club_settings", args=[club.pk])).status_code == 200  # organisers only
    # The link works once: the token is signed over the password it replaced.
    assert not set_password(Client(), link)


def test_the_link_names_the_site_url_by_default(settings):
    settings.SITE_URL = "https://club.example.org"
    output = create_club(club="Friday poker", organiser="olive", email="olive@example.org")
    assert link_in(output).startswith("/password/reset/")
    assert "https://club.example.org/login/" in output


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"organiser": "taken"}, "already an account"),
        ({"organiser": "TAKEN"}, "already an account"),
        ({"email": "Taken@example.org"}, "email address belongs to another account"),
        ({"email": "not an address"}, "valid email"),
        ({"organiser": "no spaces please"}, "username"),
        ({"club": "Two\nlines"}, "club name"),
        ({"club": "Hidden\u200bspace"}, "club name"),
        ({"currency": "dollars"}, "three-letter currency"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_created(options, words):
    UserFactory(username="taken", email="taken@example.org")
    accounts, clubs = User.objects.count(), Club.objects.count()
    arguments = {"club": "Friday poker", "organiser": "olive", "email": "olive@example.org", **options}
    with pytest.raises(CommandError, match=f"(?i){words}"):
        create_club(**arguments)
    assert (User.objects.count(), Club.objects.count()) == (accounts, clubs)
