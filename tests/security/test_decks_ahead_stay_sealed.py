"""A deck committed ahead of its deal shows only its root until its hand ends: no card order and no salt of
a coming deck is in any page, JSON, download or club export, to a player, a spectator or an organiser."""

from __future__ import annotations

import io
import zipfile

import pytest

import engine
from clubdata.archive import club_export
from games import services
from games.models import DeckAhead
from games.services.cuts import cut_take
from tests.games.cut_keys import registered
from tests.games.helpers import make_table, post_action

pytestmark = pytest.mark.django_db


def test_no_salt_or_order_of_a_coming_deck_leaves_the_database(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    device, _ = registered(b, 0)
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    signed = device.cut_of(table, 3)  # deal 2's list closed at deal 1; deal 3's is open
    cut_take(table_id=table.pk, user=b, number=3, device=signed["device"], signature=signed["signature"])
    for user, choice in ((a, "in"), (b, "out")):  # one in: the game is over, deals 2 and 3 never dealt
        post_action(client_for(user), hand, choice)
        hand.refresh_from_db()
    assert hand.is_finished
    coming = list(DeckAhead.objects.filter(table=table, dealt_at__isnull=True))
    assert len(coming) == 2
    secrets_of = (
        [s for d in coming for s in d.salts]
        + [" ".join(d.deck) for d in coming]
        + ['", "'.join(d.deck[:6]) for d in coming]
    )
    latest = table.hands.order_by("-number").first()
    paths = [
        f"/tables/{table.pk}/",
        f"/tables/{table.pk}/cut/",
        f"/tables/{table.pk}/cuts/?since=1",
        f"/tables/{table.pk}/hands/",
        f"/hands/{hand.pk}/",
        f"/hands/{hand.pk}/proof.json",
        f"/hands/{hand.pk}/replay.json",
        f"/api/v1/hands/{hand.pk}",
        f"/api/v1/tables/{table.pk}/hands",
        f"/clubs/{table.club_id}/tables/",
        "/account/data/download.json",
        "/tables/mine/",
    ]
    if latest is not None and latest.pk != hand.pk:
        paths.append(f"/api/v1/hands/{latest.pk}")
    for user in (a, b, c, club_setup.organiser):
        client = client_for(user)
        for path in paths:
            body = client.get(path).content.decode()
            leaked = [s for s in secrets_of if s in body]
            assert leaked == [], (user.username, path)
    out = io.BytesIO()
    club_export(club=club_setup.club, out=out, reason="Checking the coming decks stay sealed")
    archive = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    everything = "".join(archive.read(name).decode(errors="replace") for name in archive.namelist())
    assert [s for s in secrets_of if s in everything] == []
    for d in coming:  # the roots are public
        assert d.root in client_for(c).get(f"/tables/{table.pk}/cut/").content.decode()
