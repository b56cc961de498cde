"""Random hands of both games, 2 to 6 seats, played through the services (games/demo/simulate.py): each
hand's stored deal and action log, played again by the engine, gives back the stored state and the
stored events, and the journal holds exactly the engine's chip movements and payouts for it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine.events import PAY_KINDS
from games.demo.simulate import simulation_run
from games.models import Hand
from games.selectors.hands import hand_deck_dealt
from ledger.models import AWARD_KINDS, Posting
from tests.accounts.factories import ClubFactory, MembershipFactory

pytestmark = pytest.mark.django_db

SEEDS = (3, 17, 2026, 41)
HANDS_PER_SEED = 10  # alternating Piranha and Piles, 2 to 6 players each: about half a minute in all


def _engine_replay(hand: Hand) -> tuple[engine.State, list[dict[str, Any]]]:
    """The hand played again from its deck and log; checks each stored step's events on the way."""
    stored = engine.state_from_json(hand.state)
    state, deal = engine.new_hand(
        stored.rules,
        seats=stored.seats,
        button=stored.button,
        deck=hand_deck_dealt(hand=hand),
        carry_pot=stored.carry_pot,
        hand_number=stored.hand_number,
    )
    events = [engine.event_to_json(e) for e in deal]
    assert events == hand.deal_events, f"hand {hand.pk}: the deal"
    log = []
    for row in hand.actions.order_by("sequence"):
        action = engine.action_from_dict(row.action)
        state, step = engine.apply(state, row.seat, action)
        assert [engine.event_to_json(e) for e in step] == row.events, f"hand {hand.pk}: step {row.sequence}"
        events += [engine.event_to_json(e) for e in step]
        log.append((row.seat, action))
    # The engine's own replay of the same log agrees.
    again = engine.replay(
        stored.rules,
        seats=stored.seats,
        button=stored.button,
        deck=hand_deck_dealt(hand=hand),
        carry_pot=stored.carry_pot,
        hand_number=stored.hand_number,
        log=log,
    )
    assert engine.state_to_json(again) == engine.state_to_json(state)
    return state, events


def _engine_moves(hand: Hand, events: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(kind, member, signed cents for the member) of each chip-moving event, in order."""
    users = {int(seat): user_id for seat, user_id in hand.players.items()}
    return [
        (e["kind"], users[e["seat"]], -e["amount"] if e["kind"] in PAY_KINDS else e["amount"])
        for e in events
        if e["kind"] in PAY_KINDS | AWARD_KINDS and e.get("amount")
    ]


def _ledger_moves(hand: Hand) -> list[tuple[str, int, int]]:
    lines = (
        Posting.objects.filter(entry__hand=hand, account__user__isnull=False)
        .order_by("entry_id", "id")
        .values_list("entry__kind", "account__user_id", "amount")
    )
    return [(kind, user_id, amount) for kind, user_id, amount in lines]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_hands_replay_to_their_state_and_their_books(seed):
    club = ClubFactory()
    players = [MembershipFactory(club=club).user for _ in range(6)]
    played = simulation_run(club=club, players=players, hands=HANDS_PER_SEED, seed=seed)
    assert len(played) == HANDS_PER_SEED
    games, sizes = set(), set()
    for simulated in played:
        hand = Hand.objects.get(pk=simulated.hand.pk)
        assert hand.is_finished and hand.voided_at is None
        final, events = _engine_replay(hand)
        assert engine.state_to_json(final) == hand.state
        assert engine.is_over(final)
        games.add(final.game)
        sizes.add(len(final.seats))

        moves = _engine_moves(hand, events)
        assert _ledger_moves(hand) == moves
        # Every entry balances against the table's pot: the member lines and the pot lines cancel.
        pot_total = sum(
            Posting.objects.filter(entry__hand=hand, account__user__isnull=True).values_list("amount", flat=True)
        )
        assert pot_total == -sum(amount for *_, amount in moves)
        # What each seat won is the engine's result.
        result = engine.result(final)
        assert result is not None
        users = {int(seat): user_id for seat, user_id in hand.players.items()}
        paid_out = Counter({users[p.seat]: p.amount for p in result.payouts if p.amount})
        awarded: Counter[int] = Counter()
        for kind, user_id, amount in _ledger_moves(hand):
            if kind in AWARD_KINDS:
                awarded[user_id] += amount
        assert awarded == paid_out
    assert games == {"piranha", "piles"}
    assert min(sizes) >= 2 and max(sizes) <= 6
