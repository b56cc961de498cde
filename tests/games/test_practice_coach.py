"""The coach at a practice table (games/services/practice.py ``practice_coach``): money in the club's currency,
the same words on a reload of the same position, and the strong computer player fed only its own seat's reads
of the hands before (``_table_reads``)."""

from __future__ import annotations

import pytest

import engine
from games.models import Hand, Table
from games.selectors.states import hand_state
from games.services import practice
from games.services.seating import table_new_game
from tests.games.practice_helpers import play_out
from tests.games.test_practice import _open


def _members_turn(table, member) -> Hand:
    hand = Hand.objects.filter(table=table).order_by("-number").first()
    for _ in range(30):
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        if hand.players[str(seat)] == member.pk:
            return hand
        practice.computer_act(hand_id=hand.pk, version=hand.version, seat=seat)
        hand = Hand.objects.filter(table=table).order_by("-number").first()
    raise AssertionError("never the member's turn")


@pytest.mark.django_db
def test_the_coach_says_money_in_the_clubs_currency_and_the_same_on_a_reload(club_setup) -> None:
    club_setup.club.currency = "EUR"
    club_setup.club.save(update_fields=["currency"])
    table = _open(club_setup, "piranha", computers=3)
    member = club_setup.members[0]
    # A close call names no amount ("worth about as much as dropping"), and the deal is the table's own: play on
    # to a hand whose advice names one.
    for _ in range(8):
        _members_turn(table, member)
        first = practice.practice_coach(table_id=table.pk, user=member)
        if "€" in first.advice.sentence or "$" in first.advice.sentence:
            break
        play_out(table, member)
        table.refresh_from_db()
        if table.status == Table.Status.FINISHED:  # one alone stayed in: the game goes on at the same table
            table_new_game(table_id=table.pk, user=member)
    assert "€" in first.advice.sentence and "$" not in first.advice.sentence, first.advice.sentence
    assert practice.practice_coach(table_id=table.pk, user=member).advice == first.advice


@pytest.mark.django_db
def test_a_strong_computer_reads_the_members_drops_from_its_own_views_of_the_hands_before(club_setup) -> None:
    from games.services.hands import hand_act

    table = _open(club_setup, "piranha", computers=2, strength="strong")
    member = club_setup.members[0]
    hand = _members_turn(table, member)
    computer = next(int(uid) for uid in hand.players.values() if int(uid) != member.pk)
    assert practice._table_reads(hand=hand, user_id=computer).seats == {}  # nothing seen before the first hand
    mine = next(int(s) for s, uid in hand.players.items() if int(uid) == member.pk)
    hand_act(hand_id=hand.pk, table_id=table.pk, user=member, action={"type": "in"}, version=hand.version)
    for _ in range(10):  # the computers decide; the hand opens and the next is dealt
        hand.refresh_from_db()
        if hand.is_finished:
            break
        for seat in engine.to_act(hand_state(hand)):
            practice.computer_act(hand_id=hand.pk, version=hand.version, seat=seat)
    hand.refresh_from_db()
    assert hand.is_finished
    later = Hand(table_id=table.pk, number=hand.number + 1)  # a hand after it (whether or not the game goes on)
    reads = practice._table_reads(hand=later, user_id=computer)
    assert reads.of(mine).drops == 1 and reads.of(mine).stayed == 1
