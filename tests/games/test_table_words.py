"""Small things the table and history pages say: the hand history (paged by key, former players),
a seat's sealed decision said once, the dealer's turned cards, the countdown under a minute."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from django.conf import settings

import engine
from games import services
from games.models import Seat
from games.presentation.words import event_words
from games.selectors.hands import hand_history
from tests.engine import test_piranha as piranha
from tests.games.helpers import make_table


def a_view(**changes: object) -> engine.HandView:
    """Seat 1's view of a Piranha hand just dealt, with ``changes``."""
    state, _ = piranha.deal()
    return replace(engine.view(state, 1), **changes)  # type: ignore[arg-type]


def play_a_hand_out(hand, users) -> None:
    """Everyone drops out: nobody in, the pot carries to a fresh deal (Piranha)."""
    for user in users:
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "out"}, version=hand.version)


@pytest.mark.django_db
def test_hand_history_pages_by_hand_number(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    for _ in range(5):
        play_a_hand_out(hand, [a, b])
        hand = table.hands.get(finished_at__isnull=True)
    page, next_before = hand_history(table=table, size=2)
    assert [h.number for h in page] == [5, 4] and next_before == 4
    page, next_before = hand_history(table=table, size=2, before=next_before)
    assert [h.number for h in page] == [3, 2] and next_before == 2
    page, next_before = hand_history(table=table, size=2, before=next_before)
    assert [h.number for h in page] == [1] and next_before is None
    html = client_for(a).get(f"/tables/{table.pk}/hands/?before=3").content.decode()
    assert "Hand 2<" in html and "Hand 1<" in html and "Hand 3<" not in html


@pytest.mark.django_db
def test_a_former_player_of_a_players_only_table_sees_the_hands_they_played(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    table = make_table(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c], spectators_allowed=False
    )
    hand = services.table_start(table_id=table.pk, user=a)
    services.seat_sit_out(table_id=table.pk, user=c)
    play_a_hand_out(hand, [a, b, c])
    services.seat_leave(table_id=table.pk, user=c)  # c leaves; a and b play on without c
    play_a_hand_out(table.hands.get(finished_at__isnull=True), [a, b])
    assert not Seat.objects.filter(table=table, user=c, left_at__isnull=True).exists()
    response = client_for(c).get(f"/tables/{table.pk}/hands/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Hand 1<" in html and "Hand 2<" not in html  # only the hand c was dealt into
    assert client_for(club_setup.organiser).get(f"/tables/{table.pk}/hands/").status_code == 403


@pytest.mark.django_db
def test_a_sealed_decision_is_said_once_on_the_seat_row(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "in"}, version=0)
    html = client_for(b).get(f"/tables/{table.pk}/").content.decode()
    row = re.search(r'<li class="seat[^"]*" data-seat="1">(.*?)</li>', html, flags=re.S)
    assert row is not None
    text = " ".join(re.sub(r"<[^>]+>", " ", row.group(1)).split())
    assert "decided" in text and "decided · decided" not in text, text


def test_the_dealer_turning_cards_is_a_sentence_with_a_subject() -> None:
    board = event_words(engine.Turn(cards=("As", "Td"), where="board", positions=(0, 1)), names={}, currency="USD")
    assert board == "The dealer turns ace of spades, ten of diamonds on the board."
    staged = event_words(engine.Turn(cards=("2c",), where="row", positions=(2,), stage=3), names={}, currency="USD")
    assert staged == "Stage 3: the dealer turns two of clubs on the row."


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run static/js/clock.js")
def test_a_countdown_under_a_minute_says_seconds() -> None:
    script = (Path(settings.BASE_DIR) / "static" / "js" / "clock.js").read_text()
    harness = (
        """
    var texts = {};
    function element(iso) {
      var el = {attrs: {"data-countdown": iso}, nextElementSibling: null,
                getAttribute: function (k) { return this.attrs[k]; },
                parentNode: {insertBefore: function (node) { el.nextElementSibling = node; }}};
      return el;
    }
    var now = Date.now();
    var els = [element(new Date(now + 45500).toISOString()), element(new Date(now + 1500).toISOString()),
               element(new Date(now + 125500).toISOString())];
    global.document = {querySelectorAll: function () { return els; }, createElement: function () {
      return {classList: {contains: function () { return true; }, toggle: function () {}},
              setAttribute: function () {}, textContent: ""}; }};
    global.window = {setInterval: function () {}};
    """
        + script
        + """
    console.log(JSON.stringify(els.map(function (e) { return e.nextElementSibling.textContent; })));
    """
    )
    out = subprocess.run(["node", "-e", harness], capture_output=True, text=True, timeout=30, check=True)
    texts = json.loads(out.stdout)
    assert re.fullmatch(r" \(in 4[45] seconds\)", texts[0]), texts
    assert texts[1] in (" (in 1 second)", " (in 0 seconds)"), texts
    assert re.fullmatch(r" \(in 2:0[45]\)", texts[2]), texts


def test_a_seat_state_is_said_once() -> None:
    from games.presentation.words import seat_state_words

    def seat(status: str, last_action: str | None, decision: str | None) -> engine.SeatView:
        return engine.SeatView(
            seat=1,
            status=status,
            paid=25,
            round_bet=0,
            last_action=last_action,
            decision=decision,
            cards=None,
            card_count=4,
        )

    assert seat_state_words(seat("out", "out", "out")) == "out"
    assert seat_state_words(seat("in", "in", "in")) == "in"
    assert seat_state_words(seat("active", "decided", "decided")) == "decided"
    assert seat_state_words(seat("active", "bet", None)) == "bet"
    assert seat_state_words(seat("folded", "fold", None)) == "folded"
    # One's own sealed decision, before it opens: said to oneself once.
    assert seat_state_words(seat("active", "decided", "in"), is_me=True) == "you chose in"
    assert seat_state_words(None) == ""


def test_a_raise_is_worded_the_same_on_the_button_and_in_the_log() -> None:
    from games.presentation.words import raise_to_label

    assert raise_to_label(engine.Action("raise", 25), current=50, currency="USD") == "Raise to $0.75"
    assert raise_to_label(engine.Action("call", 25), current=50, currency="USD") is None
    line = event_words(engine.Bet(seat=1, amount=50, action="raise", to=75), names={1: "Ann"}, currency="USD")
    assert line == "Ann raises to $0.75."
    assert (
        event_words(engine.Bet(seat=1, amount=25, action="call", to=50), names={1: "Ann"}, currency="USD")
        == "Ann calls $0.25."
    )


def test_what_a_piranha_loser_owes_before_the_drop() -> None:
    from games.presentation.reasons import match_owed

    view = a_view(phase="drop", pot=75)
    assert view.game == "piranha"
    assert match_owed(view, {"match_cap": None}) == 75
    assert match_owed(view, {"match_cap": 50}) == 50
    assert match_owed(replace(view, phase="over"), {}) is None
    assert match_owed(replace(view, game="piles", phase="betting"), {}) is None


def test_acting_and_a_board_all_up() -> None:
    from games.presentation.reasons import board_all_up, member_acted

    view = a_view()
    assert member_acted(replace(view, you=1, events=(engine.Ante(1, 25), engine.Decided(1))))
    assert not member_acted(replace(view, you=1, events=(engine.Ante(1, 25), engine.Check(2))))
    assert not member_acted(replace(view, you=None, events=(engine.Check(1),)))
    assert board_all_up(replace(view, board=engine.PilesBoard(square1=("As",), square2=("2c",), row=("3d",))))
    assert not board_all_up(replace(view, board=engine.PilesBoard(square1=("As",), square2=(None,), row=("3d",))))
    assert not board_all_up(replace(view, board=("As", "Kd", "2c", None, None)))
