"""An organiser closes a table: play stops, seats empty, and the pot goes back to those who paid it."""

from __future__ import annotations

import pytest
from django.core.management import call_command

import engine
from accounts.models import User
from games import services
from games.models import Hand, Table
from kernel.errors import DomainError
from ledger.models import Account, EntryKind, JournalEntry, Ruling
from ledger.services import balance_of
from tests.games.helpers import current_hand, fixed_deck, make_table

pytestmark = pytest.mark.django_db

ANTE = 25


def _drop(hand: Hand, decisions: dict[int, str]) -> None:
    """Every seat of the hand makes its sealed drop decision through the service."""
    for seat, decision in decisions.items():
        hand.refresh_from_db()
        user_id = hand.players[str(seat)]
        services.hand_act(
            hand_id=hand.pk, user=User.objects.get(pk=user_id), action={"type": decision}, version=hand.version
        )


def _pot_balance(table: Table) -> int:
    return Account.objects.get(kind=Account.Kind.TABLE_POT, table=table).balance


def _play_to_second_hand(club_setup, decisions: dict[int, str], fixed_decks) -> Table:
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=ANTE), players=players)
    fixed_decks(
        fixed_deck(
            {1: ["As", "Ad", "Ah", "Ks"], 2: ["2c", "3d", "7h", "9s"], 3: ["4c", "5d", "Jh", "Qs"]},
            ["Kd", "Kh", "8c", "2d", "6s"],
            button=1,
        )
    )
    services.table_start(table_id=table.pk, user=players[0])
    _drop(current_hand(table), decisions)
    table.refresh_from_db()
    assert table.hands.count() == 2, "the next hand is dealt"
    return table


def test_closing_returns_a_carried_pot_and_the_live_antes_to_who_paid_them(club_setup, fixed_decks) -> None:
    # Nobody stays in: the pot of three antes carries, the second hand antes again (six in all).
    table = _play_to_second_hand(club_setup, {1: "out", 2: "out", 3: "out"}, fixed_decks)
    live = current_hand(table)
    assert _pot_balance(table) == 6 * ANTE
    assert [balance_of(club=club_setup.club, user=u) for u in club_setup.members] == [-2 * ANTE] * 3

    ruling = services.table_close(table_id=table.pk, user=club_setup.organiser, reason="Abandoned after one hand")

    assert [balance_of(club=club_setup.club, user=u) for u in club_setup.members] == [0, 0, 0]
    assert _pot_balance(table) == 0
    table.refresh_from_db()
    live.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.carry_pot == 0
    assert not table.seats.filter(left_at__isnull=True).exists()
    assert live.voided_at is not None and live.finished_at is not None
    assert ruling.kind == Ruling.Kind.CLOSE_TABLE and ruling.amount == 6 * ANTE and ruling.hand_id == live.pk
    entry = JournalEntry.objects.get(kind=EntryKind.POT_RETURN, table=table)
    assert "Abandoned after one hand" in entry.memo
    call_command("ledger_verify")  # raises on any inconsistency


def test_closing_returns_only_what_was_paid_since_the_pot_was_last_won(club_setup, fixed_decks) -> None:
    # Seats 1 and 2 stay in; seat 1 (aces full) wins the pot, seat 2 pays the match into the next pot.
    table = _play_to_second_hand(club_setup, {1: "in", 2: "in", 3: "out"}, fixed_decks)
    first = table.hands.get(number=1)
    match = first.carry_in  # 0: nothing carried into the first hand
    loser = club_setup.members[1]
    before = {u.pk: balance_of(club=club_setup.club, user=u) for u in club_setup.members}
    pot = _pot_balance(table)
    paid_by_loser_since = pot - 2 * ANTE  # the match payment plus the loser's second ante
    assert paid_by_loser_since > ANTE and match == 0

    services.table_close(table_id=table.pk, user=club_setup.organiser, reason="Closing for the night")

    after = {u.pk: balance_of(club=club_setup.club, user=u) for u in club_setup.members}
    assert after[club_setup.members[0].pk] - before[club_setup.members[0].pk] == ANTE
    assert after[club_setup.members[2].pk] - before[club_setup.members[2].pk] == ANTE
    assert after[loser.pk] - before[loser.pk] == paid_by_loser_since
    assert _pot_balance(table) == 0
    call_command("ledger_verify")


def test_a_timeout_after_closing_changes_nothing(club_setup, fixed_decks) -> None:
    table = _play_to_second_hand(club_setup, {1: "out", 2: "out", 3: "out"}, fixed_decks)
    live = current_hand(table)
    services.table_close(table_id=table.pk, user=club_setup.organiser, reason="Stop")
    entries = JournalEntry.objects.count()
    assert services.hand_apply_timeout(hand_id=live.pk, version=live.version) is False
    assert JournalEntry.objects.count() == entries


def test_only_an_organiser_may_close_and_a_reason_is_needed(club_setup, client_for, fixed_decks) -> None:
    table = _play_to_second_hand(club_setup, {1: "out", 2: "out", 3: "out"}, fixed_decks)
    url = f"/tables/{table.pk}/close/"
    member = client_for(club_setup.members[0])
    assert member.get(url).status_code == 403
    assert member.post(url, {"reason": "mine now"}).status_code == 403
    assert client_for(club_setup.outsider).post(url, {"reason": "x"}).status_code == 404
    organiser = client_for(club_setup.organiser)
    refused = organiser.post(url, {"reason": "   "})
    assert refused.status_code == 400 and "Say why the table is closing" in refused.content.decode()
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING and _pot_balance(table) == 6 * ANTE


def test_the_close_page_says_who_gets_what_and_the_table_says_why_it_closed(
    club_setup, client_for, fixed_decks
) -> None:
    table = _play_to_second_hand(club_setup, {1: "out", 2: "out", 3: "out"}, fixed_decks)
    organiser = client_for(club_setup.organiser)
    page = organiser.get(f"/tables/{table.pk}/close/").content.decode()
    for member in club_setup.members:
        assert member.shown_name in page
    assert page.count("$0.50") >= 3  # each member paid two antes
    done = organiser.post(f"/tables/{table.pk}/close/", {"reason": "Rain stopped play"}, follow=True)
    html = done.content.decode()
    assert done.status_code == 200 and "Rain stopped play" in html and "went back to the members" in html
    again = organiser.post(f"/tables/{table.pk}/close/", {"reason": "twice"})
    assert again.status_code == 400 and "nothing left in its pot" in again.content.decode()
    assert Ruling.objects.filter(kind=Ruling.Kind.CLOSE_TABLE, table=table).count() == 1


def _finished_piranha_game(club_setup, fixed_decks) -> Table:
    """Seat 1 alone stays in: the pot is theirs and the game is over (piranha.txt: one in takes the pot)."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=players)
    services.table_start(table_id=table.pk, user=players[0])
    _drop(current_hand(table), {1: "in", 2: "out", 3: "out"})
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def test_a_player_of_a_finished_game_deals_the_next_one_at_the_same_table(club_setup, client_for, fixed_decks) -> None:
    table = _finished_piranha_game(club_setup, fixed_decks)
    ann, ben, cat = club_setup.members
    page = client_for(ben).get(f"/tables/{table.pk}/").content.decode()
    assert "Deal a new game" in page and "Sit out from the next hand" not in page
    services.seat_leave(table_id=table.pk, user=cat)  # a member may stand up between games
    before = Table.objects.count()

    response = client_for(ben).post(f"/tables/{table.pk}/new-game/")
    table.refresh_from_db()
    assert response["Location"] == f"/tables/{table.pk}/" and Table.objects.count() == before
    assert table.status == Table.Status.RUNNING and table.next_game_id is None
    hand = current_hand(table)
    assert sorted(hand.players.values()) == sorted([ann.pk, ben.pk]), "everyone still seated is dealt in"
    assert set(table.seats.filter(left_at__isnull=True).values_list("accepted_version", flat=True)) == {
        table.rule_version_id
    }
    # The game's first hand again: each antes (piranha.txt, the ante of a game's first hand).
    assert engine.state_from_json(hand.state).hand_number == 1 and hand.number == 2
    with pytest.raises(DomainError, match="still going on"):
        services.table_new_game(table_id=table.pk, user=ann)


def test_only_a_player_of_the_finished_game_may_deal_the_next(club_setup, client_for, fixed_decks) -> None:
    table = _finished_piranha_game(club_setup, fixed_decks)
    with pytest.raises(DomainError, match="Only a player seated at this table"):
        services.table_new_game(table_id=table.pk, user=club_setup.organiser)
    running = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=club_setup.members)
    with pytest.raises(DomainError, match="still going on"):
        services.table_new_game(table_id=running.pk, user=club_setup.members[0])
    assert client_for(club_setup.outsider).post(f"/tables/{table.pk}/new-game/").status_code == 404


def test_a_table_closed_mid_hand_shows_nobody_to_act_and_its_note_in_sentences(
    club_setup, client_for, fixed_decks
) -> None:
    table = _play_to_second_hand(club_setup, {1: "out", 2: "out", 3: "out"}, fixed_decks)
    live_page = client_for(club_setup.members[0]).get(f"/tables/{table.pk}/").content.decode()
    assert "to-act-tag" in live_page  # while the hand is played, its seats are awaited
    services.table_close(table_id=table.pk, user=club_setup.organiser, reason="End of the night")
    for viewer in (club_setup.organiser, *club_setup.members):
        page = client_for(viewer).get(f"/tables/{table.pk}/").content.decode()
        assert "Hand 2" in page and "to-act-tag" not in page and 'class="seat to-act' not in page
        assert "Waiting for" not in page
        assert ": End of the night. Its pot of $1.50 went back to the members who paid it." in page


def test_a_reason_that_ends_a_sentence_gets_no_second_full_stop() -> None:
    from games.presentation.words import sentence

    assert sentence("End of the night") == "End of the night."
    assert sentence(" Closed early! ") == "Closed early!"
    assert sentence("(see the chat.)") == "(see the chat.)"
    assert sentence("Why?") == "Why?"
