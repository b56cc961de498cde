"""Simulated play through the real engine, posting every chip event through the ledger.

Used by `manage.py ledger_simulate` and by the tests until play lands. It creates
the games rows the entries link to (RuleSet -> RuleSetVersion -> Table -> Hand)
directly, plays random legal actions, and posts the events of each step with
`ledger_post_hand_events` in the step's own transaction, like play will.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from accounts.models import Club, User
from games import engine
from games.models import Game, Hand, RuleSet, RuleSetVersion, Table
from games.services.proof import deal_salts

from .services import ledger_post_hand_events


def simulation_table_create(*, club: Club, game: str, created_by: User, name: str = "") -> Table:
    """A table of `game` with the default house rules (DESIGN.md)."""
    rules = engine.PiranhaRules() if game == Game.PIRANHA else engine.PilesRules()
    with transaction.atomic():
        rule_set = RuleSet.objects.create(club=club, name=f"Simulated {game}", game=game, created_by=created_by)
        version = RuleSetVersion.objects.create(
            rule_set=rule_set, number=1, rules=rules.to_dict(), max_seats=rules.max_players,
            created_by=created_by, frozen_at=timezone.now())
        return Table.objects.create(club=club, name=name or f"Simulated {Game(game).label}", rule_version=version,
                                    status=Table.Status.RUNNING, created_by=created_by)


@dataclass
class SimulatedHand:
    hand: Hand
    events: int
    entries: int


def _choose(rng: random.Random, actions: Sequence[engine.Action]) -> engine.Action:
    # Mostly stay in, so pots get built and decided at showdowns.
    weights = [0.25 if a.type in ("fold", "out") else 1.0 for a in actions]
    return rng.choices(list(actions), weights=weights, k=1)[0]


def simulation_hand_play(*, table: Table, players: Sequence[User], rng: random.Random,
                         created_by: User | None = None) -> SimulatedHand:
    """Deal and play one hand at `table` with random legal actions; post each step's chip events.

    Each step (the deal, then every action) runs in its own transaction that locks the hand
    row, as the play service does. Returns the finished hand and how many events/entries.
    """
    rules = engine.rules_from_dict(table.rule_version.rules)
    seats = list(range(len(players)))
    seat_users = dict(zip(seats, players, strict=True))
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        number = table.hands_played + 1
        button = number % len(seats)
        deck = list(engine.shuffled_deck())
        salts = deal_salts()
        state, events = engine.new_hand(rules, seats=seats, button=button, deck=deck,
                                        carry_pot=table.carry_pot, hand_number=number)
        hand = Hand.objects.create(
            table=table, number=number, rule_version=table.rule_version,
            players={str(s): u.pk for s, u in seat_users.items()}, button=button, carry_in=table.carry_pot,
            deck=deck, scheme=engine.SCHEME_MERKLE, salts=salts, commitment="",
            state=engine.state_to_json(state))
        hand.commitment = engine.merkle_root(hand.pk, deck, salts)
        hand.save(update_fields=["commitment"])
        entries = len(ledger_post_hand_events(hand=hand, events=events, seat_users=seat_users,
                                              created_by=created_by))
        count = len(events)
    while not engine.is_over(state):
        to_act = engine.to_act(state)
        seat = to_act[0] if len(to_act) == 1 else rng.choice(list(to_act))
        action = _choose(rng, engine.legal_actions(state, seat))
        with transaction.atomic():
            locked = Hand.objects.select_for_update().get(pk=hand.pk)
            state, events = engine.apply(state, seat, action)
            locked.state = engine.state_to_json(state)
            locked.version += 1
            if engine.is_over(state):
                locked.finished_at = timezone.now()
            locked.save(update_fields=["state", "version", "finished_at"])
            entries += len(ledger_post_hand_events(hand=locked, events=events, seat_users=seat_users,
                                                   created_by=created_by))
            count += len(events)
            hand = locked
    result = engine.result(state) or {}
    with transaction.atomic():
        Table.objects.filter(pk=table.pk).update(hands_played=hand.number, carry_pot=int(result.get("next_pot", 0)))
    return SimulatedHand(hand=hand, events=count, entries=entries)


def simulation_run(*, club: Club, players: Sequence[User], hands: int, seed: int | None = None,
                   created_by: User | None = None) -> list[SimulatedHand]:
    """Play `hands` hands alternating between a Piranha and a Piles table of the club."""
    rng = random.Random(seed)  # noqa: S311 - choosing simulated moves, not dealing (the deck uses the CSPRNG)
    starter = created_by or players[0]
    tables = [simulation_table_create(club=club, game=game, created_by=starter) for game in (Game.PIRANHA, Game.PILES)]
    played = []
    for i in range(hands):
        table = Table.objects.get(pk=tables[i % 2].pk)
        max_players = 7 if table.game == Game.PILES else 11
        count = rng.randint(2, min(len(players), max_players))
        played.append(simulation_hand_play(table=table, players=rng.sample(list(players), count), rng=rng,
                                           created_by=created_by))
    return played
