"""The hand replay: each step of a finished hand shows a viewer exactly what their table showed them at
that moment (the engine's view for their seat, recorded live while the hand was played), on the page
(``?step=N``) and in its JSON; never a card they had not seen then, never a folded or dropped hand
(unless an organiser's ruling opened it to them, and then only after the hand); bad steps are refused
without an error page; who may replay is who may open the hand's page."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import engine
from accounts.models import User
from engine.cards import FULL_DECK, Card
from games import services
from games.models import Hand, HandAction
from tests.accounts.factories import MembershipFactory
from tests.games.helpers import card_labels_in, cards_in_view, fixed_deck, hidden_cards_in, make_table
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

Policy = Callable[[engine.State, int, list[engine.Action]], engine.Action]


@dataclass
class Played:
    hand: Hand
    players: dict[int, User]
    spectator: User
    organiser: User
    outsider: User
    folded: int  # the seat whose hand was never shown
    live: list[dict[int | None, engine.HandView]]  # per step: viewer seat (None: spectators) -> live view


def _play(hand: Hand, players: dict[int, User], policy: Policy) -> list[dict[int | None, dict[str, Any]]]:
    """Play ``hand`` to its end through the games service, recording each viewer's live view after the
    deal and after every action."""
    viewers: list[int | None] = [*players, None]

    def record() -> dict[int | None, dict[str, Any]]:
        hand.refresh_from_db()
        state = engine.state_from_json(hand.state)
        return {v: engine.view(state, v) for v in viewers}

    live = [record()]
    while not hand.is_finished:
        state = engine.state_from_json(hand.state)
        seat = engine.to_act(state)[0]
        action = policy(state, seat, engine.legal_actions(state, seat))
        services.hand_act(
            table_id=hand.table_id, hand_id=hand.pk, user=players[seat], action=action, version=hand.version
        )
        live.append(record())
    return live


def _betting(fold_seat: int | None) -> Callable[[engine.State, int, list[engine.Action]], engine.Action | None]:
    def choose(state: engine.State, seat: int, legal: list[engine.Action]) -> engine.Action | None:
        kinds = {a.type: a for a in legal}
        if state.phase != "betting":
            return None
        if seat == fold_seat and "fold" in kinds:
            return kinds["fold"]
        for kind in ("bet", "call", "check"):
            if kind in kinds:
                return kinds[kind]
        raise AssertionError(legal)

    return choose


@pytest.fixture
def piranha(club_setup) -> Played:
    """Piranha with the betting round: seat 3 folds in it, seats 1 and 2 stay in and show down."""
    a, b, c = club_setup.members
    table = make_table(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25, betting_round=True), players=[a, b, c]
    )
    hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    bets = _betting(fold_seat=3)

    def policy(state: engine.State, seat: int, legal: list[engine.Action]) -> engine.Action:
        return bets(state, seat, legal) or engine.Action("in")

    players = {1: a, 2: b, 3: c}
    live = _play(hand, players, policy)
    return Played(
        hand, players, MembershipFactory(club=club_setup.club).user, club_setup.organiser, club_setup.outsider, 3, live
    )


@pytest.fixture
def piles(club_setup) -> Played:
    """Piles to the declaration: seat 1 declares pig, seat 2 high, seat 3 folds at the declaration."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(
        table_id=table.pk, user=a, deck=fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
    )
    bets = _betting(fold_seat=None)
    declared = {
        1: engine.Action("declare", choice="pig"),
        2: engine.Action("declare", choice="high"),
        3: engine.Action("fold"),
    }

    def policy(state: engine.State, seat: int, legal: list[engine.Action]) -> engine.Action:
        return bets(state, seat, legal) or declared[seat]

    players = {1: a, 2: b, 3: c}
    live = _play(hand, players, policy)
    return Played(
        hand, players, MembershipFactory(club=club_setup.club).user, club_setup.organiser, club_setup.outsider, 3, live
    )


def _viewers(played: Played) -> list[tuple[User, int | None]]:
    return [*((u, s) for s, u in played.players.items()), (played.spectator, None), (played.organiser, None)]


def _check_every_step(played: Played, client_for) -> None:
    hand = played.hand
    log = HandAction.objects.filter(hand=hand).count()
    assert len(played.live) == log + 1
    for user, seat in _viewers(played):
        client = client_for(user)
        response = client.get(f"/hands/{hand.pk}/replay.json")
        assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
        steps = response.json()["steps"]
        assert len(steps) == log + 2  # the deal, one per action, the showdown and payouts
        assert [s["index"] for s in steps] == list(range(log + 2))
        for index, step in enumerate(steps):
            live = played.live[min(index, log)][seat]
            seen = cards_in_view(live)
            hidden = [c for c in FULL_DECK if c not in seen]
            html = client.get(f"/hands/{hand.pk}/replay/?step={index}").content.decode()
            for where, text in (
                ("page", html),
                ("json", step["html"]),
                ("json fields", json.dumps({k: v for k, v in step.items() if k != "html"}, ensure_ascii=False)),
            ):
                found = hidden_cards_in(text, hidden)
                assert found == set(), f"step {index}, seat {seat}: the {where} holds {found}"
            # And what the table showed them is there: their own cards, the board, the hands shown.
            assert card_labels_in(step["html"]) == {Card.parse(c).label for c in seen}, (index, seat)
            # Sealed decisions: others see "decided" until the opening, as they did live.
            for row in live.seats:
                if row.seat != seat and row.decision == "decided":
                    drawn = re.search(rf'data-seat="{row.seat}">(.*?)</li>', step["html"], re.S)
                    assert drawn and "decided" in drawn.group(1)
                    state = re.findall(r'<span class="seat-state">(.*?)</span>', drawn.group(1))
                    assert state == ["decided"], (index, seat, drawn.group(1))
        folded = played.players[played.folded]
        never = set(engine.state_from_json(hand.state).hole[list(played.players).index(played.folded)])
        everything = json.dumps(response.json(), ensure_ascii=False)
        if seat != played.folded:
            assert hidden_cards_in(everything, sorted(never)) == set(), f"{user} sees {folded}'s folded hand"


@pytest.mark.django_db
def test_every_step_of_a_piranha_hand_shows_each_viewer_only_what_they_saw(piranha, client_for) -> None:
    _check_every_step(piranha, client_for)
    state = engine.state_from_json(piranha.hand.state)
    assert engine.result(state).reason == "showdown"
    assert [s.status for s in engine.view(state, None).seats] == ["in", "in", "folded"]


@pytest.mark.django_db
def test_every_step_of_a_piles_hand_shows_each_viewer_only_what_they_saw(piles, client_for) -> None:
    _check_every_step(piles, client_for)
    # The declarations open together, at the last one, as they did live.
    html = client_for(piles.spectator).get(f"/hands/{piles.hand.pk}/replay/?step={len(piles.live) - 2}")
    seat_1 = re.search(r'data-seat="1">(.*?)</li>', html.content.decode(), re.S)
    assert seat_1 and "decided" in seat_1.group(1) and "pig" not in seat_1.group(1)
    last = client_for(piles.spectator).get(f"/hands/{piles.hand.pk}/replay/?step={len(piles.live) - 1}")
    seat_1 = re.search(r'data-seat="1">(.*?)</li>', last.content.decode(), re.S)
    assert seat_1 and "pig" in seat_1.group(1)


@pytest.mark.django_db
def test_a_step_link_works_without_javascript(piranha, client_for) -> None:
    client = client_for(piranha.players[1])
    hand = piranha.hand
    last = len(piranha.live)
    first = client.get(f"/hands/{hand.pk}/replay/").content.decode()
    assert 'data-step="0"' in first and 'href="?step=1"' in first and 'rel="prev" data-go="prev" aria-disabled' in first
    assert "The deal" in first and "js/replay.js" in first
    middle = client.get(f"/hands/{hand.pk}/replay/?step=2").content.decode()
    assert 'href="?step=1"' in middle and 'href="?step=3"' in middle
    end = client.get(f"/hands/{hand.pk}/replay/?step={last}").content.decode()
    assert "Showdown and payouts" in end and 'rel="next" data-go="next" aria-disabled' in end
    assert "takes" in end  # the payouts
    # From the hand's page, the table's history and each ledger line the hand made.
    replay = f"/hands/{hand.pk}/replay/"
    assert replay in client.get(f"/hands/{hand.pk}/").content.decode()
    assert replay in client.get(f"/tables/{hand.table_id}/hands/").content.decode()
    club = hand.table.club_id
    assert replay in client.get(f"/clubs/{club}/ledger/members/{piranha.players[1].pk}/").content.decode()
    journal = client_for(piranha.organiser).get(f"/clubs/{club}/ledger/journal/?table={hand.table_id}")
    assert replay in journal.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw,status",
    [
        ("", 400),
        ("-1", 400),
        ("abc", 400),
        ("1.5", 400),
        ("1e3", 400),
        ("0x1", 400),
        (" 1", 400),
        ("１", 400),
        ("99999999999999999999", 400),
        ("9999", 404),
        ("%00", 400),
        ("1;drop", 400),
    ],
)
def test_a_bad_step_is_refused_without_an_error_page(piranha, client_for, raw, status) -> None:
    client = client_for(piranha.spectator)
    response = client.get(f"/hands/{piranha.hand.pk}/replay/", {"step": raw})
    assert response.status_code == status
    if status == 400:
        assert "must be a whole number" in response.content.decode()
        assert "The deal" in response.content.decode()


@pytest.mark.django_db
def test_one_past_the_last_step_is_not_found(piranha, client_for) -> None:
    client = client_for(piranha.spectator)
    last = len(piranha.live)
    assert client.get(f"/hands/{piranha.hand.pk}/replay/?step={last}").status_code == 200
    assert client.get(f"/hands/{piranha.hand.pk}/replay/?step={last + 1}").status_code == 404


@pytest.mark.django_db
def test_who_may_replay_is_who_may_open_the_hand_page(club_setup, piranha, client_for) -> None:
    hand = piranha.hand
    for path in (f"/hands/{hand.pk}/replay/", f"/hands/{hand.pk}/replay.json", f"/hands/{hand.pk}/replay/?step=1"):
        assert client_for(piranha.outsider).get(path).status_code == 404
        assert client_for(None).get(path).status_code == 302  # to the login page
    assert client_for(piranha.outsider).get(f"/hands/{hand.pk}/").status_code == 404
    assert client_for(piranha.spectator).get("/hands/999999/replay/").status_code == 404
    # Where the house rules keep spectators out, a member who was not dealt in gets the hand page's 403.
    a, b, _ = club_setup.members
    table = make_table(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b], spectators_allowed=False
    )
    closed = services.table_start(table_id=table.pk, user=a)
    for seat, user in ((1, a), (2, b)):
        state = engine.state_from_json(closed.state)
        if seat in engine.to_act(state):
            services.hand_act(
                table_id=table.pk, hand_id=closed.pk, user=user, action=engine.Action("out"), version=closed.version
            )
            closed.refresh_from_db()
    closed.refresh_from_db()
    while not closed.is_finished:
        state = engine.state_from_json(closed.state)
        seat = engine.to_act(state)[0]
        services.hand_act(
            table_id=table.pk,
            hand_id=closed.pk,
            user=a if seat == 1 else b,
            action=engine.Action("out"),
            version=closed.version,
        )
        closed.refresh_from_db()
    spectator = client_for(piranha.spectator)
    assert spectator.get(f"/hands/{closed.pk}/").status_code == 403
    assert spectator.get(f"/hands/{closed.pk}/replay/").status_code == 403
    assert spectator.get(f"/hands/{closed.pk}/replay.json").status_code == 403
    assert client_for(a).get(f"/hands/{closed.pk}/replay/").status_code == 200
    # A hand still being played has no replay yet: the table, as its page does.
    playing = table.hands.filter(finished_at__isnull=True).first()
    if playing is not None:
        assert client_for(a).get(f"/hands/{playing.pk}/replay/").status_code == 302


@pytest.mark.django_db
def test_a_ruling_opens_the_folded_hand_to_its_players_on_the_last_step_only(piranha, client_for) -> None:
    hand = piranha.hand
    services.hand_dispute_open(hand_id=hand.pk, user=piranha.organiser, reason="Seat 3 asked to see it.")
    folded = engine.state_from_json(hand.state).hole[2]
    for user, seat in _viewers(piranha):
        steps = client_for(user).get(f"/hands/{hand.pk}/replay.json").json()["steps"]
        for step in steps[:-1]:
            if seat != 3:
                assert hidden_cards_in(step["html"], folded) == set()
        shown = hidden_cards_in(steps[-1]["html"], folded)
        opened = seat is not None or user == piranha.organiser  # the hand's players and the organisers
        assert shown == (set(folded) if opened else set()), (seat, user)
        if opened and seat != 3:
            assert "opened after the hand by an organiser's ruling" in steps[-1]["html"]


@pytest.mark.django_db
def test_a_record_that_does_not_play_back_sends_the_member_to_the_hand_page(piranha, client_for) -> None:
    hand = piranha.hand
    Hand.objects.filter(pk=hand.pk).update(state={**hand.state, "pot": hand.state["pot"] + 1})
    client = client_for(piranha.spectator)
    response = client.get(f"/hands/{hand.pk}/replay/")
    assert response.status_code == 302 and response["Location"] == f"/hands/{hand.pk}/"
    response = client.get(f"/hands/{hand.pk}/replay.json")
    assert response.status_code == 409 and "does not play back" in response.json()["error"]
    page = client.get(f"/hands/{hand.pk}/replay/", follow=True).content.decode()
    assert "does not play back step by step" in page
