"""Sealed decisions made at once (piranha.txt 3.1 the drop, piles.txt 4.1 the declaration).

Every undecided seat decides at the same time, so a decision made against the version its player saw
still stands when the only actions since were other seats' sealed decisions: it is taken, through the
services, the form post and the socket alike. Anything else made against an older version is still
refused (a bet, a decision from before the phase began, a double click, a finished hand), and a taken
late decision tells its player nothing about the others' choices.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

import engine
from games import services
from games.models import Hand, HandAction, Table
from kernel.errors import DomainError
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table, post_action, race
from tests.games.test_consumers import close_worker_thread_connections, next_of, open_table  # noqa: F401

MOVED_ON = "The table moved on; here is the current state."
GAMES = {
    "piranha": (engine.PiranhaRules(betting_round=True), ["in", "out"]),
    "piles": (engine.PilesRules(), ["declare:high", "declare:low", "declare:pig", "fold"]),
}


def _action(text: str) -> dict[str, Any]:
    kind, _, choice = text.partition(":")
    return {"type": kind, **({"choice": choice} if choice else {})}


def _state(hand: Hand) -> Any:
    hand.refresh_from_db()
    return engine.state_from_json(hand.state)


def table_at_the_decision(setup: Any, game: str) -> tuple[Table, Hand, int]:
    """Four seats (the organiser and three members) at a table whose hand has reached its sealed decision
    by every betting round being checked through; returns the table, the hand and the version before the
    last check (the version the decision's turn began at is the hand's version)."""
    rules, _ = GAMES[game]
    table = make_table(setup.club, setup.organiser, rules, players=setup.everyone)
    hand = services.table_start(table_id=table.pk, user=setup.organiser)
    before = -1
    while not engine.is_sealed(_state(hand)):
        seat = awaited(hand)[0]
        before = hand.version
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action={"type": "check"}, version=hand.version)
    hand.refresh_from_db()
    assert sorted(awaited(hand)) == [1, 2, 3, 4] and before == hand.version - 1
    return table, hand, before


@pytest.mark.parametrize("game", GAMES)
def test_every_seat_deciding_against_the_same_version_counts(club_setup, game) -> None:
    _, hand, _ = table_at_the_decision(club_setup, game)
    seen = hand.version
    choices = GAMES[game][1]
    for seat in (1, 2, 3):
        services.hand_act(hand_id=hand.pk, user=user_at(hand, seat), action=_action(choices[seat % 2]), version=seen)
    assert awaited(hand) == [4] and hand.version == seen + 3
    logged = list(
        HandAction.objects.filter(hand=hand, sequence__gt=seen).order_by("sequence").values_list("seat", "is_timeout")
    )
    assert logged == [(1, False), (2, False), (3, False)]
    # The last seat too: the decisions are opened together and the hand ends.
    services.hand_act(hand_id=hand.pk, user=user_at(hand, 4), action=_action(choices[0]), version=seen)
    hand.refresh_from_db()
    assert hand.is_finished and hand.version == seen + 4
    # A double click on the finished hand is refused.
    with pytest.raises(DomainError, match="moved on"):
        services.hand_act(hand_id=hand.pk, user=user_at(hand, 4), action=_action(choices[0]), version=seen)


@pytest.mark.parametrize("game", GAMES)
def test_a_second_decision_of_the_same_seat_is_refused(club_setup, game) -> None:
    _, hand, _ = table_at_the_decision(club_setup, game)
    seen = hand.version
    choices = GAMES[game][1]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, 2), action=_action(choices[0]), version=seen)
    for version in (seen, seen + 1):
        with pytest.raises(DomainError):
            services.hand_act(hand_id=hand.pk, user=user_at(hand, 2), action=_action(choices[1]), version=version)
    assert _state(hand).decisions[1] != "" and hand.version == seen + 1
    assert HandAction.objects.filter(hand=hand, sequence__gt=seen).count() == 1


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_against_a_version_from_before_the_phase_began_is_refused(club_setup, game) -> None:
    _, hand, before = table_at_the_decision(club_setup, game)
    with pytest.raises(DomainError, match="moved on"):
        services.hand_act(hand_id=hand.pk, user=user_at(hand, 1), action=_action(GAMES[game][1][0]), version=before)
    assert awaited(hand) == [1, 2, 3, 4] and hand.version == before + 1


@pytest.mark.parametrize("game", GAMES)
def test_a_bet_against_an_older_version_is_still_refused(club_setup, game) -> None:
    rules, _ = GAMES[game]
    table = make_table(club_setup.club, club_setup.organiser, rules, players=club_setup.everyone)
    hand = services.table_start(table_id=table.pk, user=club_setup.organiser)
    seen = hand.version
    first = awaited(hand)[0]
    services.hand_act(hand_id=hand.pk, user=user_at(hand, first), action={"type": "check"}, version=seen)
    second = awaited(hand)[0]
    # It is that seat's turn now and a bet is legal, but it was chosen before the check it did not see.
    assert "bet" in {a.type for a in engine.legal_actions(_state(hand), second)}
    for action in ({"type": "bet"}, {"type": "check"}, {"type": "fold"}):
        with pytest.raises(DomainError, match="moved on"):
            services.hand_act(hand_id=hand.pk, user=user_at(hand, second), action=action, version=seen)
    assert hand.version == seen + 1 and awaited(hand) == [second]


@pytest.mark.parametrize("game", GAMES)
def test_form_posts_take_a_late_decision_and_show_only_the_usual_page(club_setup, client_for, game) -> None:
    _, hand, _ = table_at_the_decision(club_setup, game)
    seen = hand.version
    choices = GAMES[game][1]
    clients: dict[int, Client] = {seat: client_for(user_at(hand, seat)) for seat in (1, 2, 3, 4)}
    first = post_action(clients[1], hand, choices[1], version=seen)
    late = post_action(clients[2], hand, choices[0], version=seen)
    assert MOVED_ON not in first and MOVED_ON not in late
    assert awaited(hand) == [3, 4]
    # The answer to the late decision is the table page as anyone at this version sees it.
    again = clients[2].get(f"/tables/{hand.table_id}/").content.decode()
    assert _without_tokens(late) == _without_tokens(again)


def _without_tokens(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.django_db(transaction=True)
async def test_sockets_take_a_late_decision_and_answer_only_with_the_version(club_setup, game) -> None:
    table, hand, _ = await database_sync_to_async(table_at_the_decision)(club_setup, game)
    seen = hand.version
    choices = GAMES[game][1]
    users = [await database_sync_to_async(user_at)(hand, seat) for seat in (1, 2)]
    comms = [await open_table(table.pk, user) for user in users]
    for comm, choice in zip(comms, choices, strict=False):
        await comm.send_json_to({"type": "action", "hand": hand.pk, "version": seen, "action": _action(choice)})
    acks = [await next_of(comm, "action.ok") for comm in comms]
    assert sorted(ack["version"] for ack in acks) == [seen + 1, seen + 2]
    # The acknowledgement carries the hand and its version only: nothing of anyone's choice.
    assert all(set(ack) == {"type", "hand", "version"} for ack in acks)
    assert await database_sync_to_async(awaited)(hand) == [3, 4]
    for comm in comms:
        await comm.disconnect()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.django_db(transaction=True)
def test_concurrent_decisions_from_parallel_connections_each_land_once(club_setup, game) -> None:
    _, hand, _ = table_at_the_decision(club_setup, game)
    seen = hand.version
    choices = GAMES[game][1]
    users = {seat: user_at(hand, seat) for seat in (1, 2, 3, 4)}
    tries = 3  # each seat clicks three times at once, all against the version it saw
    done = race(
        [
            (
                seat,
                partial(
                    services.hand_act, hand_id=hand.pk, user=users[seat], action=_action(choices[k % 2]), version=seen
                ),
            )
            for seat in users
            for k in range(tries)
        ]
    )
    taken, refused = done.went_through, done.refused
    assert not done.errors, done.errors
    assert sorted(taken) == [1, 2, 3, 4]
    assert len(refused) == 4 * (tries - 1)
    hand.refresh_from_db()
    assert hand.is_finished and hand.version == seen + 4
    assert sorted(HandAction.objects.filter(hand=hand, sequence__gt=seen).values_list("seat", flat=True)) == [
        1,
        2,
        3,
        4,
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("game", list(GAMES))
def test_a_late_decision_stands_only_while_every_action_logged_since_is_another_seats_sealed_one(
    club_setup, game
) -> None:
    """The log since the player's version is read whole: one action in it that is not another seat's sealed
    decision (a check here, or the seat's own decision) and the late decision is refused, whichever row it is."""
    from games.selectors.states import hand_state
    from games.services.locking import _late_sealed_decision

    table, hand, _ = table_at_the_decision(club_setup, game)
    seen = hand.version
    first, second, late = awaited(hand)[:3]
    for seat in (first, second):
        services.hand_act(
            hand_id=hand.pk, user=user_at(hand, seat), action=_action(GAMES[game][1][0]), version=hand.version
        )
    hand.refresh_from_db()
    state = hand_state(hand)
    decision = engine.action_from_dict(_action(GAMES[game][1][0]))
    assert _late_sealed_decision(hand=hand, seat=late, state=state, version=seen, action=decision)
    rows = list(HandAction.objects.filter(hand=hand, sequence__gt=seen).order_by("sequence"))
    assert [row.seat for row in rows] == [first, second]
    for row in rows:
        for forged in ({"seat": row.seat, "action": {"type": "check"}}, {"seat": late, "action": row.action}):
            HandAction.objects.filter(pk=row.pk).update(**forged)
            assert not _late_sealed_decision(hand=hand, seat=late, state=state, version=seen, action=decision)
        HandAction.objects.filter(pk=row.pk).update(seat=row.seat, action=row.action)
    assert _late_sealed_decision(hand=hand, seat=late, state=state, version=seen, action=decision)
