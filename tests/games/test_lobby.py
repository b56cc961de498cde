"""The lobby puts the member's own tables first: where it is their turn, then where they sit, then the rest."""

from __future__ import annotations

import re

import pytest

import engine
from games import services
from games.models import Table
from games.selectors.tables import table_list_open
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table


def named(table: Table, name: str) -> Table:
    Table.objects.filter(pk=table.pk).update(name=name)
    table.refresh_from_db()
    return table


def live_rows(html: str) -> list[str]:
    """The lobby's live fragment (what static/js/lobby.js swaps in): each row's table name and flag."""
    live = re.search(r'<div id="lobby-live" data-club-id="\d+">(.*?)</div>\s*<h2>Open a table</h2>', html, re.S)
    assert live, "no #lobby-live fragment"
    rows = re.findall(r"<li[^>]*>(.*?)</li>", live.group(1), re.S)
    out = []
    for row in rows:
        name = re.search(r"<strong>([^<]+)</strong>", row)
        flag = re.search(r'<span class="badge[^"]*">([^<]+)</span>', row)
        assert name
        out.append(f"{name.group(1)}{' [' + flag.group(1) + ']' if flag else ''}")
    return out


@pytest.mark.django_db
def test_the_lobby_lists_my_turn_then_my_seats_then_the_rest(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    club, organiser = club_setup.club, club_setup.organiser
    playing = named(make_table(club, organiser, engine.PilesRules(), players=[a, b]), "Playing")  # oldest
    hand = services.table_start(table_id=playing.pk, user=a)
    me = user_at(hand, awaited(hand)[0])  # Piles: one seat acts at a time
    other = b if me == a else a
    sitting = named(make_table(club, organiser, players=[me, c]), "Sitting")
    elsewhere = named(make_table(club, organiser, players=[other, c]), "Elsewhere")  # newest

    assert live_rows(client_for(me).get(f"/clubs/{club.pk}/tables/").content.decode()) == [
        "Playing [Your turn]",
        "Sitting [You're seated]",
        "Elsewhere",
    ]
    # Seated at the hand in play but not awaited: seated, in newest-first order among the seated.
    assert live_rows(client_for(other).get(f"/clubs/{club.pk}/tables/").content.decode()) == [
        "Elsewhere [You're seated]",
        "Playing [You're seated]",
        "Sitting",
    ]
    # Not seated anywhere: newest first, no flags; the fragment lobby.js fetches is the same page.
    page = client_for(organiser).get(f"/clubs/{club.pk}/tables/", HTTP_X_REQUESTED_WITH="lobby.js")
    assert live_rows(page.content.decode()) == ["Elsewhere", "Sitting", "Playing"]
    assert [r.table.pk for r in table_list_open(club=club)] == [elsewhere.pk, sitting.pk, playing.pk]
