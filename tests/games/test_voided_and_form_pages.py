"""Pages that must say the truth about a ruling: a voided hand is not shown as won; the rulings and
settle-up forms work in a browser (distinct element ids, a date picker that shows today)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.utils import timezone

import engine
from games import services
from games.services.voiding import hand_void
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import current_hand, fixed_deck, make_table

pytestmark = pytest.mark.django_db


def _won_hand(club_setup, fixed_decks):
    """Hand 1: seats 1 and 2 stay in, seat 1 (aces full) wins; seat 2's match payment carries on.
    Returns the finished hand (its pot carried into hand 2, which is being played)."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=players)
    fixed_decks(
        fixed_deck(
            {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["4c", "5d", "Jh", "Qs"]},
            ["Kd", "Kh", "8c", "2d", "6s"],
            button=1,
        )
    )
    hand = services.table_start(table_id=table.pk, user=players[0])
    for seat, decision in ((1, "in"), (2, "out"), (3, "out")):
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=players[seat - 1], action={"type": decision}, version=hand.version)
    hand.refresh_from_db()
    return table, hand


def test_a_voided_hand_says_who_voided_it_and_why_instead_of_who_won(club_setup, client_for, fixed_decks) -> None:
    table, hand = _won_hand(club_setup, fixed_decks)  # seat 1 alone in: wins, the game is over
    winner = club_setup.members[0].shown_name
    page = client_for(club_setup.members[1]).get(f"/hands/{hand.pk}/").content.decode()
    assert f"Won by {winner}" in page
    hand_void(hand=hand, reason="Cards exposed at the deal", ruled_by=club_setup.organiser)

    page = client_for(club_setup.members[1]).get(f"/hands/{hand.pk}/").content.decode()
    assert "Won by" not in page and f"{winner} takes" not in page
    assert "Voided" in page and "Cards exposed at the deal" in page
    assert club_setup.organiser.shown_name in page and "reversed" in page


def test_the_last_hand_box_says_a_voided_hand_was_voided(club_setup, client_for) -> None:
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=players)
    hand = services.table_start(table_id=table.pk, user=players[0])
    # The first to act bets and the others fold: the bettor takes the pot, nothing carries, hand 2 is dealt.
    bettor = awaited(hand)[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, bettor), action={"type": "bet"}, version=0)
    while awaited(hand):
        seat = awaited(hand)[0]
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "fold"}, version=hand.version)
    assert current_hand(table).number == 2
    winner = user_at(hand, bettor).shown_name
    viewer = client_for(players[0])
    assert f"Won by {winner}" in viewer.get(f"/tables/{table.pk}/").content.decode()

    hand_void(hand=hand, reason="Misdeal at the deal", ruled_by=club_setup.organiser)

    page = viewer.get(f"/tables/{table.pk}/").content.decode()
    assert "Last hand (1)" in page and "Voided" in page and "Misdeal at the deal" in page
    assert f"Won by {winner}" not in page


def test_the_rulings_page_has_no_duplicate_element_ids(club_setup, client_for) -> None:
    html = client_for(club_setup.organiser).get(f"/clubs/{club_setup.club.pk}/ledger/rulings/").content.decode()
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [name for name, count in ids.items() if count > 1] == []
    for label_for in re.findall(r'<label for="([^"]+)"', html):
        assert ids[label_for] == 1, f"label for {label_for} points nowhere"


def test_paid_on_starts_at_today_in_a_form_the_date_picker_reads(club_setup, client_for) -> None:
    html = client_for(club_setup.members[0]).get(f"/clubs/{club_setup.club.pk}/ledger/settle/").content.decode()
    field = re.search(r'<input[^>]*name="paid_on"[^>]*>', html)
    assert field is not None
    assert f'value="{timezone.localdate().isoformat()}"' in field.group(0)


@pytest.mark.django_db(transaction=True)  # the announcement goes out when the void commits
def test_voiding_a_hand_tells_the_tables_sockets(club_setup, fixed_decks) -> None:
    import asyncio

    from asgiref.sync import async_to_sync, sync_to_async
    from channels.layers import get_channel_layer

    table, hand = _won_hand(club_setup, fixed_decks)
    layer = get_channel_layer()

    async def listen_and_void() -> dict:
        channel = await layer.new_channel()
        await layer.group_add(f"table.{table.pk}", channel)
        await sync_to_async(hand_void)(hand=hand, reason="Misdeal", ruled_by=club_setup.organiser)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:  # the frames of the hand's own steps may still be on their way (the publisher thread)
            message = await asyncio.wait_for(layer.receive(channel), timeout=max(0.1, deadline - loop.time()))
            if json.loads(message["text"]).get("full"):
                break
        await layer.group_discard(f"table.{table.pk}", channel)
        return message

    message = async_to_sync(listen_and_void)()
    frame = json.loads(message["text"])
    assert message["type"] == frame["type"] == "table.public" and frame["table"] == table.pk and frame["full"]
    hand.refresh_from_db()
    assert hand.voided_at is not None
