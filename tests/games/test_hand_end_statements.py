"""The action that ends a hand and deals the next: its statements, and the books it writes in them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import engine
from accounts.models import User
from engine.events import PAY_KINDS
from games import services
from games.models import CutList, DeckAhead, Hand, HandAction, Table
from games.selectors.states import hand_state
from ledger.models import AWARD_KINDS, JournalEntry
from tests.games.async_helpers import awaited, expire
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
def test_a_hand_end_posts_its_result_with_the_next_antes_in_one_statement(club_setup, rules) -> None:
    """Three players: the hand's result and the next hand's three antes go to the books together, in one
    statement (accounts locked, entries and postings written), the result first; the books balance."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, rules, players=players)
    first = services.table_start(table_id=table.pk, user=players[0])
    seats = {int(seat): next(u for u in players if u.pk == user_id) for seat, user_id in first.players.items()}
    ended, statements = _play_until_an_action_ends_the_hand(first, seats)
    following = Hand.objects.get(table=table, number=ended.number + 1)
    books = [sql for sql in statements if '"ledger_' in sql]
    assert len(books) == 1 and "ledger_posting" in books[0] and "ledger_journalentry" in books[0], books
    assert len(statements) <= 8, statements
    assert _chip_events_posted(ended) == _chip_events_logged(ended)
    assert any(kind == "award" for kind, _, _ in _chip_events_posted(ended))
    assert _chip_events_posted(following) == _chip_events_logged(following) == [("ante", s, 25) for s in sorted(seats)]
    result = JournalEntry.objects.filter(hand=ended).order_by("pk").last()
    assert result is not None and JournalEntry.objects.filter(hand=following, pk__lt=result.pk).count() == 0
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


def _chip_events_logged(hand: Hand) -> list[tuple[str, int, int]]:
    """Each chip event of ``hand`` (its deal and every logged action) as (kind, seat, amount), sorted."""
    events = [*hand.deal_events, *(e for row in HandAction.objects.filter(hand=hand) for e in row.events)]
    return sorted(
        (e["kind"], e["seat"], e["amount"]) for e in events if e["kind"] in (*PAY_KINDS, *AWARD_KINDS) and e["amount"]
    )


def _chip_events_posted(hand: Hand) -> list[tuple[str, int, int]]:
    """Each entry of ``hand`` in the books as (kind, seat, amount), sorted: the seat read from its player's
    account, the amount what the pot received or paid."""
    seat_of = {user_id: int(seat) for seat, user_id in hand.players.items()}
    posted = []
    for entry in JournalEntry.objects.filter(hand=hand).prefetch_related("postings__account"):
        (member,) = [p for p in entry.postings.all() if p.account.user_id is not None]
        posted.append((entry.kind, seat_of[member.account.user_id], abs(member.amount)))
    return sorted(posted)


@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25), engine.PilesRules()], ids=["piranha", "piles"])
def test_a_hand_whose_end_deals_no_next_hand_posts_its_result_alone(club_setup, rules) -> None:
    """A hand's result waits for the next deal's antes; when no hand is dealt (two of three players sat out
    during it, or every clock ran out), it is posted alone: every chip event of the hand is in the books once."""
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, rules, players=players)
    first = services.table_start(table_id=table.pk, user=players[0])
    seats = {int(seat): next(u for u in players if u.pk == user_id) for seat, user_id in first.players.items()}
    for user in players[1:]:
        services.seat_sit_out(table_id=table.pk, user=user)
    ended, _ = _play_until_an_action_ends_the_hand(first, seats)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN and not Hand.objects.filter(table=table, number=2).exists()
    assert _chip_events_posted(ended) == _chip_events_logged(ended)
    assert any(kind == "award" for kind, _, _ in _chip_events_posted(ended))

    for user in players[1:]:
        services.seat_sit_in(table_id=table.pk, user=user)
    second = services.table_start(table_id=table.pk, user=players[0])
    while awaited(second):  # nobody plays it: no hand is dealt after it
        expire(second)
        assert services.hand_apply_timeout(hand_id=second.pk, version=second.version) is True
        second.refresh_from_db()
    table.refresh_from_db()
    assert second.is_finished and table.status == Table.Status.OPEN and table.stopped_at_hand == second.number
    assert _chip_events_posted(second) == _chip_events_logged(second)
    assert_books_consistent()
