"""Spoofing with invisible characters: a right-to-left override in a display name makes "‮nimda" read
as "admin", a zero-width space makes a second "Ann", a line break forges a line of the log or of a mail.

Every name members see (display names, club, table and house-rule names) and every chat line refuses
them, through the pages, the services and the table socket, with one message (kernel/text.py), and
nothing is stored. Ordinary names and emoji (a zero-width joiner inside a family emoji) still pass.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

import engine
from accounts.models import Club, User
from accounts.services import invitation_create
from games import services
from games.models import ChatMessage, RuleSet, Table
from games.services.chat import chat_post
from kernel.errors import DomainError
from tests.games.helpers import make_rule_set, make_table
from tests.games.test_consumers import close_worker_thread_connections, open_table  # noqa: F401

HOSTILE = {
    "right-to-left override": "Ann\u202e",
    "left-to-right isolate": "\u2066Ann",
    "right-to-left mark": "An\u200fn",
    "zero-width space": "An\u200bn",
    "zero-width joiner": "An\u200dn",
    "byte-order mark": "\ufeffAnn",
    "soft hyphen": "An\u00adn",
    "line break": "Ann\nBcc: x@example.org",
    "escape": "Ann\x1b[31m",
    "nul": "Ann\x00",
    "line separator": "An\u2028n",
}
REFUSAL = "no invisible ones such as text-direction overrides"
NUL_REFUSAL = "Null characters are not allowed."  # Django's own form fields refuse a NUL first


def refused(html: str) -> bool:
    return REFUSAL in html or NUL_REFUSAL in html


def profile_data(user: User, **extra: str) -> dict[str, str]:
    return {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": "UTC",
        "turn_notices": "each",
        "turn_reminder": "on",
        **extra,
    }


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_display_name_with_an_invisible_character_is_refused(club_setup, client_for, kind: str) -> None:
    user = club_setup.members[0]
    before = user.display_name
    response = client_for(user).post(reverse("profile"), profile_data(user, display_name=HOSTILE[kind]))
    assert response.status_code == 200 and refused(response.content.decode())
    user.refresh_from_db()
    assert user.display_name == before


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_new_account_with_an_invisible_character_in_its_name_is_refused(club_setup, client, kind: str) -> None:
    invitation = invitation_create(
        club_id=club_setup.club.pk, created_by=club_setup.organiser, site_url="http://testserver/"
    )
    response = client.post(
        reverse("invitation_accept", args=[invitation.token]),
        {
            "username": "newcomer",
            "display_name": HOSTILE[kind],
            "email": "new@example.org",
            "password1": "a long pass phrase 7",
            "password2": "a long pass phrase 7",
        },
    )
    assert response.status_code == 200 and refused(response.content.decode())
    assert not User.objects.filter(username="newcomer").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_club_table_and_house_rule_names_with_an_invisible_character_are_refused(
    club_setup, client_for, kind: str
) -> None:
    name = HOSTILE[kind]
    organiser = client_for(club_setup.organiser)
    clubs = Club.objects.count()
    response = organiser.post(reverse("club_new"), {"name": name, "currency": "EUR", "credit_limit_units": "50"})
    assert response.status_code == 200 and refused(response.content.decode())
    assert Club.objects.count() == clubs
    club = club_setup.club
    response = organiser.post(
        reverse("club_settings", args=[club.pk]), {"name": name, "currency": club.currency, "credit_limit_units": "100"}
    )
    assert refused(response.content.decode())
    club.refresh_from_db()
    assert club.name != name
    version = make_rule_set(club, club_setup.organiser).versions.get()
    response = organiser.post(reverse("games:table_new", args=[club.pk]), {"name": name, "rule_version": version.pk})
    assert response.status_code == 200 and refused(response.content.decode())
    assert not Table.objects.exists()
    # The services refuse them too, whoever calls them.
    with pytest.raises(DomainError, match=REFUSAL):
        services.table_create(club=club, user=club_setup.organiser, name=name, rule_version_id=version.pk)
    with pytest.raises(DomainError, match=REFUSAL):
        services.rule_set_create(
            club=club,
            user=club_setup.organiser,
            name=name,
            rules=engine.PiranhaRules(),
            max_seats=7,
            spectators_allowed=True,
        )
    assert RuleSet.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [k for k in HOSTILE if k != "zero-width joiner"])
def test_a_chat_line_with_an_invisible_character_is_refused(club_setup, client_for, kind: str) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    page = client_for(a).post(reverse("games:chat_send", args=[table.pk]), {"text": f"hi {HOSTILE[kind]}"}, follow=True)
    assert refused(page.content.decode())
    with pytest.raises(DomainError, match=REFUSAL):
        chat_post(table_id=table.pk, user=a, text=f"ok {HOSTILE[kind]} ok")
    assert not ChatMessage.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_refuses_a_chat_line_with_a_bidi_override(club_setup) -> None:
    a, b, _ = club_setup.members
    table = await database_sync_to_async(make_table)(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b]
    )
    comm = await open_table(table.pk, a)
    await comm.send_json_to({"type": "chat", "text": "pay \u202e01$ \u202cme"})
    answer = await comm.receive_json_from(timeout=5)
    assert answer["type"] == "error" and REFUSAL in answer["message"]
    await comm.disconnect()
    assert not await database_sync_to_async(ChatMessage.objects.exists)()


@pytest.mark.django_db
def test_ordinary_names_and_emoji_still_pass(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    response = client_for(a).post(reverse("profile"), profile_data(a, display_name="Zoë Åsa-José"))
    assert response.status_code == 302
    a.refresh_from_db()
    assert a.display_name == "Zoë Åsa-José"
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji joined by zero-width joiners
    assert chat_post(table_id=table.pk, user=a, text=f"gg {family} 👍🏽").text == f"gg {family} 👍🏽"
