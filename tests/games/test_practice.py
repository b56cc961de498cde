"""Practice tables: a member opens one, plays against computer players, asks the coach; the books, the
statistics and the notices never hear of it (games/services/practice.py)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

import engine
from clubhouse.models import HandResult
from games.errors import SeatRefused, TableRefused
from games.models import ComputerPlayer, Hand, HandAction, Seat, Table
from games.selectors.hands import hand_view_for
from games.selectors.states import hand_state
from games.services import computer_turns, practice
from games.services.hands import hand_act
from games.services.seating import seat_sit_out, seat_take, table_new_game
from ledger.models import Account, JournalEntry
from notices.models import TurnNotice
from notices.services.turns import turn_notice_send, turn_notices_sweep
from tests.games.helpers import make_rule_set, make_table
from tests.games.practice_helpers import plain_action, play_out


def _open(setup, game: str = "piranha", computers: int = 3, **kw) -> Table:
    return practice.practice_open(
        club=setup.club,
        user=setup.members[0],
        game=game,
        computers=computers,
        strength=kw.pop("strength", "strong"),
        **kw,
    )


def _books(setup) -> tuple[int, int, int]:
    return (
        JournalEntry.objects.filter(club=setup.club).count(),
        Account.objects.filter(club=setup.club).count(),
        HandResult.objects.filter(club=setup.club).count(),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_a_member_opens_a_practice_table_and_is_dealt_in_at_once(club_setup, game) -> None:
    table = _open(club_setup, game)
    assert table.practice and table.status == Table.Status.RUNNING
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    assert [s.user for s in seats][0] == club_setup.members[0]
    assert all(ComputerPlayer.objects.filter(user=s.user).exists() for s in seats[1:]) and len(seats) == 4
    assert not any(s.user.is_active or s.user.has_usable_password() for s in seats[1:])
    hand = Hand.objects.get(table=table)
    assert len(hand.players) == 4


@pytest.mark.django_db
def test_practice_under_the_clubs_house_rules_or_the_defaults(club_setup) -> None:
    rules = make_rule_set(club_setup.club, club_setup.organiser, engine.PilesRules(ante=50), max_seats=3)
    version = rules.versions.get()
    table = _open(club_setup, "piles", computers=2, rule_version_id=version.pk)
    assert table.rule_version == version
    with pytest.raises(practice.PracticeRefused, match="seat 3"):
        _open(club_setup, "piles", computers=3, rule_version_id=version.pk)
    with pytest.raises(practice.PracticeRefused, match="for this game"):
        _open(club_setup, "piranha", rule_version_id=version.pk)
    with pytest.raises(practice.PracticeRefused, match="one to 5"):
        _open(club_setup, "piranha", computers=6)
    with pytest.raises(practice.PracticeRefused, match="members"):
        practice.practice_open(
            club=club_setup.club, user=club_setup.outsider, game="piles", computers=1, strength="solid"
        )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_a_whole_practice_hand_never_touches_the_books_the_statistics_or_the_notices(club_setup, game) -> None:
    before = _books(club_setup)
    table = _open(club_setup, game)
    hand = play_out(table, club_setup.members[0])
    assert hand.is_finished and engine.result(hand_state(hand)) is not None
    assert _books(club_setup) == before == (0, 0, 0)
    assert turn_notices_sweep(hand_ids=[hand.pk]) == 0
    assert not TurnNotice.objects.exists() and mail.outbox == []
    nxt = Hand.objects.filter(table=table, finished_at__isnull=True).first()
    if nxt is not None:  # the next hand's turn: no notice, whatever the clock says
        seat = engine.to_act(hand_state(nxt))[0]
        assert not turn_notice_send(hand_id=nxt.pk, seat=seat, since=nxt.version, kind="turn")


@pytest.mark.django_db
def test_a_computer_turn_acts_once_and_a_stale_or_repeated_task_does_nothing(club_setup) -> None:
    table = _open(club_setup, "piles", computers=2)
    member = club_setup.members[0]
    hand = Hand.objects.get(table=table)
    for _ in range(20):  # to the first computer's betting turn
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        if hand.players[str(seat)] != member.pk:
            break
        hand_act(
            hand_id=hand.pk, table_id=table.pk, user=member, action=plain_action(state, seat), version=hand.version
        )
        hand.refresh_from_db()
    version = hand.version
    assert practice.computer_act(hand_id=hand.pk, version=version, seat=seat)
    assert not practice.computer_act(hand_id=hand.pk, version=version, seat=seat)  # the same task again
    assert not practice.computer_act(hand_id=hand.pk, version=version - 1, seat=seat)  # an older one
    assert HandAction.objects.filter(hand=hand, sequence__gt=version).count() == 1
    me = next(int(s) for s, u in hand.players.items() if u == member.pk)
    assert not practice.computer_act(hand_id=hand.pk, version=hand.version + 1, seat=me)  # the member's seat


@pytest.mark.django_db
def test_the_computers_sealed_drops_stay_sealed_to_the_member_until_the_reveal(club_setup) -> None:
    table = _open(club_setup, "piranha", computers=3)
    member = club_setup.members[0]
    hand = Hand.objects.get(table=table)
    state = hand_state(hand)
    assert engine.is_sealed(state)
    machines = [s for s in engine.to_act(state) if hand.players[str(s)] != member.pk]
    for seat in machines:
        hand.refresh_from_db()
        assert practice.computer_act(hand_id=hand.pk, version=hand.version, seat=seat)
    hand.refresh_from_db()
    view = hand_view_for(hand=hand, user=member)
    assert view.to_act == (next(int(s) for s, u in hand.players.items() if u == member.pk),)
    printed = engine.view_to_json(view)
    for entry in printed["seats"]:
        if entry["seat"] in machines:
            assert entry["decision"] == "decided" and entry["last_action"] == "decided", entry
    assert all(e.get("kind") in {"ante", "decided"} for e in printed["events"] if e.get("seat") in machines)
    assert engine.view(hand_state(hand), None) == hand_view_for(hand=hand, user=club_setup.members[1])


@pytest.mark.django_db
def test_a_practice_table_seats_no_second_member_and_deals_a_new_game_only_once_one_is_over(club_setup) -> None:
    table = _open(club_setup, "piles", computers=1)
    with pytest.raises(SeatRefused, match="practice"):
        seat_take(table_id=table.pk, user=club_setup.members[1], number=4, version_id=table.rule_version_id)
    with pytest.raises(TableRefused, match="still going on"):
        table_new_game(table_id=table.pk, user=club_setup.members[0])
    with pytest.raises(SeatRefused, match="computers wait for you"):  # they would play on by themselves
        seat_sit_out(table_id=table.pk, user=club_setup.members[0])


@pytest.mark.django_db
def test_the_computers_wait_while_their_member_is_away_and_play_once_they_are_back(club_setup, client_for) -> None:
    member = club_setup.members[0]
    table = _open(club_setup, "piranha", computers=3)
    hand = Hand.objects.get(table=table)  # the drop: every seat awaited
    member.away = True
    member.save(update_fields=["away"])
    assert computer_turns.computer_turns_schedule([(hand.pk, hand.version)]) == 0
    member.away = False
    member.save(update_fields=["away"])
    assert practice.practice_wake(table=table) == 3
    assert practice.practice_wake(table=table) == 0  # each turn is sent once
    assert client_for(member).get(reverse("games:table", args=[table.pk])).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_the_coach_speaks_for_the_members_decision(club_setup, client_for, game) -> None:
    table = _open(club_setup, game, computers=2)
    member = club_setup.members[0]
    hand = Hand.objects.get(table=table)
    for _ in range(20):  # until it is the member's turn
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        if hand.players[str(seat)] == member.pk:
            break
        practice.computer_act(hand_id=hand.pk, version=hand.version, seat=seat)
        hand.refresh_from_db()
    coaching = practice.practice_coach(table_id=table.pk, user=member)
    assert coaching.advice.action in engine.legal_actions(hand_state(hand), seat)
    assert 0 <= coaching.advice.equity <= 1
    if game == "piles":
        assert coaching.advice.high is not None and coaching.advice.low is not None
    client = client_for(member)
    page = client.post(reverse("games:practice_coach", args=[table.pk]), follow=True).content.decode()
    assert "Coach: " in page and "%" in page
    assert 'id="ask-coach"' in page and "Practice" in page


@pytest.mark.django_db
def test_the_coach_is_never_offered_at_a_money_table(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    from games.services.tables import table_start

    table_start(table_id=table.pk, user=a)
    client = client_for(a)
    assert 'id="ask-coach"' not in client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert client.post(reverse("games:practice_coach", args=[table.pk])).status_code == 403
    with pytest.raises(practice.CoachRefused, match="practice tables only"):
        practice.practice_coach(table_id=table.pk, user=a)


@pytest.mark.django_db
def test_the_lobby_opens_a_practice_table_only_its_member_sees(club_setup, client_for) -> None:
    member, other = club_setup.members[0], club_setup.members[1]
    client = client_for(member)
    lobby = client.get(reverse("games:lobby", args=[club_setup.club.pk])).content.decode()
    assert 'id="practice-form"' in lobby
    response = client.post(
        reverse("games:practice_new", args=[club_setup.club.pk]),
        {"game": "piles", "rule_version": "", "computers": "2", "strength": "beginner"},
    )
    table = Table.objects.get(practice=True)
    assert response.status_code == 302 and response["Location"] == reverse("games:table", args=[table.pk])
    assert "badge practice" in client.get(reverse("games:lobby", args=[club_setup.club.pk])).content.decode()
    assert "badge practice" in client.get(reverse("games:my_tables")).content.decode()
    others = client_for(other)
    assert table.name not in others.get(reverse("games:lobby", args=[club_setup.club.pk])).content.decode()
    assert others.get(reverse("games:table", args=[table.pk])).status_code == 403


@pytest.mark.django_db
def test_a_practice_table_neither_holds_up_nor_joins_the_club_export(club_setup) -> None:
    import io

    from clubdata.archive import club_export, club_export_refusal

    _open(club_setup, "piles", computers=1)  # a hand being played, always
    assert club_export_refusal(club=club_setup.club) == ""
    manifest = club_export(club=club_setup.club, out=io.BytesIO(), reason="A copy for the club's records")
    assert manifest["counts"]["tables"] == manifest["counts"]["hands"] == manifest["counts"]["seats"] == 0
