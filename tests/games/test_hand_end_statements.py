"""The action that ends a hand and deals the next: its statements, and the books it writes in them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import engine
from accounts.models import User
from games import services
from games.models import CutList, DeckAhead, Hand
from games.selectors.states import hand_state
from ledger.models import JournalEntry, Posting
from tests.games.helpers import make_table
from tests.ledger.helpers import assert_books_consistent

pytestmark = pytest.mark.django_db


def _play_until_an_action_ends_the_hand(hand: Hand, players: dict[int, User]) -> tuple[Hand, list[str]]:
    """Each seat to act takes its first legal action until one ends the hand; that action's statements."""
    while True:
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        action = engine.legal_actions(state, seat)[0]
        with CaptureQueriesContext(connection) as ctx:
            acted = services.hand_act(
                table_id=hand.table_id, hand_id=hand.pk, user=players[seat], action=action, version=hand.version
            )
        if acted.is_finished:
            # The test's own transaction makes the service's a savepoint: not a statement of the action.
            return acted, [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
        hand = Hand.objects.get(pk=hand.pk)


@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25), engine.PilesRules()], ids=["piranha", "piles"])
def test_a_hand_end_posts_its_result_and_the_next_antes_with_one_statement_each(club_setup, rules) -> None:
    """Three players: the hand's result and the next hand's three antes each go to the books in one statement
    (accounts locked, entries and postings written), and the next hand is dealt; the books balance."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, rules, players=players)
    first = services.table_start(table_id=table.pk, user=players[0])
    seats = {int(seat): next(u for u in players if u.pk == user_id) for seat, user_id in first.players.items()}
    ended, statements = _play_until_an_action_ends_the_hand(first, seats)
    following = Hand.objects.get(table=table, number=ended.number + 1)
    books = [sql for sql in statements if '"ledger_' in sql]
    antes = JournalEntry.objects.filter(hand=following)
    assert antes.count() == 3 and Posting.objects.filter(entry__hand=following).count() == 6
    assert JournalEntry.objects.filter(hand=ended, kind="award").exists()
    # One statement for the result, one for the antes: each locks the accounts and writes entries and postings.
    assert len(books) == 2, books
    assert all("ledger_posting" in sql and "ledger_journalentry" in sql for sql in books)
    assert len(statements) <= 10, statements
    assert_books_consistent()


def test_a_deal_draws_the_deck_after_next_and_closes_the_next_list_in_one_statement(club_setup) -> None:
    """At the next deal, the deck of the deal after it is committed under the id the deal left spare and the
    next deal's list of cuts closes (its public moment, docs/fairness.md), both in one statement."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=players)
    first = services.table_start(table_id=table.pk, user=players[0])
    seats = {int(seat): next(u for u in players if u.pk == user_id) for seat, user_id in first.players.items()}
    ended, statements = _play_until_an_action_ends_the_hand(first, seats)
    dealt = Hand.objects.get(table=table, number=ended.number + 1)
    decks = [sql for sql in statements if '"games_deckahead"' in sql and "INSERT" in sql]
    drawn = [sql for sql in decks if 'INSERT INTO "games_deckahead"' in sql]
    assert len(drawn) == 1 and 'INSERT INTO "games_cutlist"' in drawn[0], decks
    after_next = DeckAhead.objects.get(table=table, number=dealt.number + 2)
    assert after_next.hand_id > dealt.pk and after_next.scheme == engine.SCHEME_CUT_V2
    closed = CutList.objects.get(deck__table=table, deck__number=dealt.number + 1)
    assert closed.closed_by == "previous-deal" and closed.cuts == []
    assert not CutList.objects.filter(deck=after_next).exists()  # its list stays open until this hand is dealt
