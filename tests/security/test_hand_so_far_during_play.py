"""The hand so far during play (/hands/<id>/so-far/ and .json): a member and a spectator stepping back through
a hand being played get only what the live table shows them now. No hidden card (another seat's hole card, a
board card not yet turned) in any step, and another seat's sealed decision (Piranha's drop) only as
"decided", however it was made, exactly as a seat deciding "in" at a twin table."""

from __future__ import annotations

import re
from typing import Any

import pytest

import engine
from accounts.models import User
from games import services
from games.models import Hand
from games.services.hands import hand_apply_timeout
from tests.games.async_helpers import awaited, expire, seat_of, user_at
from tests.games.helpers import cards_in_view, hidden_cards_in, make_table, post_action
from tests.security.test_reading_a_sealed_decision_before_the_reveal import TELLING, client_for, prepare

GAMES = {"piranha": engine.PiranhaRules(betting_round=True), "piles": engine.PilesRules()}
_PREFERRED = ("check", "call", "in")


def steps_html(user: User, hand_id: int) -> list[str]:
    """Every step's title and picture, from the JSON and from the plain page of each step."""
    client = client_for(user)
    response = client.get(f"/hands/{hand_id}/so-far.json")
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
    steps = response.json()["steps"]
    out = [s["title"] + s["html"] for s in steps]
    for index in range(len(steps)):
        page = client.get(f"/hands/{hand_id}/so-far/?step={index}")
        assert page.status_code == 200
        main = re.search(r"<main.*</main>", page.content.decode(), re.S)  # the header counts one's own tables
        assert main
        out.append(main.group(0))
    return out


def play_some(hand: Hand, moves: int) -> None:
    """``moves`` actions by whoever is awaited: a check, call or stay when they may, else the first legal."""
    for _ in range(moves):
        hand.refresh_from_db()
        seat = awaited(hand)[0]
        legal = engine.view(engine.state_from_json(hand.state), seat).legal_actions
        action = next((a for a in legal if a.type in _PREFERRED), legal[0])
        services.hand_act(
            hand_id=hand.pk, user=user_at(hand, seat), action=engine.action_to_dict(action), version=hand.version
        )
    hand.refresh_from_db()


@pytest.mark.django_db
@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_card_the_live_table_hides(club_setup, game: str) -> None:
    a, b, x = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, GAMES[game], players=[a, b, x])
    hand = services.table_start(table_id=table.pk, user=a)
    play_some(hand, 4)
    assert not hand.is_finished
    state = engine.state_from_json(hand.state)
    for viewer, seat in ((a, seat_of(hand, a)), (club_setup.organiser, None)):
        hidden = sorted(set(state.deck) - cards_in_view(engine.view(state, seat)))
        assert len(hidden) > 40
        pages = steps_html(viewer, hand.pk)
        assert len(pages) == 2 * 5  # the deal and four actions, as JSON and as pages
        for html in pages:
            assert hidden_cards_in(html, hidden) == set(), (viewer, html)
        if seat is not None:  # the viewer's own cards are there: the check reads the cards drawn
            own = state.hole[state.seats.index(seat)]
            assert hidden_cards_in(pages[0], own) == set(own)


_RANKS = "two|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace"


def _cards_and_ids_out(html: str) -> str:
    """The twin tables were dealt different cards: the cards, what they make and the ids aside."""
    html = re.sub(r'<span class="card[^"]*"[^>]*>[^<]*</span>', "C", html)
    html = re.sub(rf"\b({_RANKS}) of (clubs|diamonds|hearts|spades)\b", "C", html)
    html = re.sub(r"Your best hand: <strong>[^<]*</strong>", "Your best hand: H", html)
    return re.sub(r"/(tables|hands)/\d+/", r"/\1/N/", html)


def seen(club_setup: Any, way: str) -> dict[str, list[str]]:
    """x decides by ``way`` ("in", "out"), or its clock runs out ("timeout": the default waits for the opening), or
    x does "nothing"; then every step a (still deciding) and a spectator see, cards and ids aside."""
    a, b, x = club_setup.members
    _table_id, hand_id = prepare(club_setup, "click")
    hand = Hand.objects.get(pk=hand_id)
    chose = way in ("in", "out")
    if way == "timeout":
        expire(hand, [seat_of(hand, x)])
        assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False
    elif chose:
        post_action(client_for(x), hand, way)
    hand.refresh_from_db()
    assert hand.state["phase"] == "drop" and (seat_of(hand, x) in awaited(hand)) is not chose
    own = steps_html(x, hand_id)[-1]  # x's own step tells x's own choice
    assert ("Your sealed decision" in own) is chose
    out = {}
    for name, viewer in (("member", a), ("spectator", club_setup.organiser)):
        pages = steps_html(viewer, hand_id)
        for html in pages:
            assert "Your sealed decision" not in html
            for mark in TELLING:
                assert mark not in html, (name, mark)
        out[name] = [_cards_and_ids_out(html) for html in pages]
    assert (f"{x.shown_name} has decided." in out["member"][-1]) is chose
    return out


@pytest.mark.django_db
@pytest.mark.parametrize(("way", "twin"), [("out", "in"), ("timeout", "nothing")])
def test_a_drop_shows_only_as_decided_and_a_clock_that_ran_out_not_at_all(club_setup, way: str, twin: str) -> None:
    assert seen(club_setup, way) == seen(club_setup, twin)


@pytest.mark.django_db
def test_a_finished_hand_has_its_replay_instead(club_setup) -> None:
    a, b, x = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, GAMES["piranha"], players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(
        hand_id=hand.pk, user=user_at(hand, awaited(hand)[0]), action={"type": "fold"}, version=hand.version
    )
    hand.refresh_from_db()
    assert hand.is_finished
    assert client_for(a).get(f"/hands/{hand.pk}/so-far/")["Location"] == f"/hands/{hand.pk}/replay/"
    assert client_for(a).get(f"/hands/{hand.pk}/so-far.json").status_code == 409
    assert client_for(club_setup.outsider).get(f"/hands/{hand.pk}/so-far/").status_code == 404


@pytest.mark.django_db
def test_where_spectators_are_kept_out_only_the_players_step_back(club_setup) -> None:
    a, b, x = club_setup.members
    table = make_table(
        club_setup.club, club_setup.organiser, GAMES["piranha"], players=[a, b], spectators_allowed=False
    )
    hand = services.table_start(table_id=table.pk, user=a)
    for suffix in ("so-far/", "so-far.json"):
        assert client_for(a).get(f"/hands/{hand.pk}/{suffix}").status_code == 200
        for watcher in (x, club_setup.organiser):
            response = client_for(watcher).get(f"/hands/{hand.pk}/{suffix}")
            assert response.status_code == 403 and "keep spectators out" in response.content.decode()
