"""Simulated play: random legal moves made through the real games services.

Used by `manage.py ledger_simulate`, `manage.py seed_demo`, the benchmarks and the tests. A
simulated hand is a hand like any other: players sit down (``seat_take``), a seated player starts
the table (``table_start``), every move goes through ``hand_act`` (so each step has its
action log row, its clocks and its ledger entries) and the table closes the hand itself. The players
sit out once the hand is dealt, so no next hand is dealt after it and the next simulated hand may
be played by others.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from accounts.models import Club, User
from games.models import Game, Hand, HandAction, Table
from games.services.hands import hand_act
from games.services.rulesets import rule_set_create
from games.services.seating import seat_sit_in, seat_sit_out, seat_take, table_create, table_new_game
from games.services.tables import table_start
from ledger.models import JournalEntry


def simulation_table_create(*, club: Club, game: str, created_by: User, name: str = "") -> Table:
    """A table of `game` with the default house rules (docs/design.md), opened through the services."""
    rules = engine.PiranhaRules() if game == Game.PIRANHA else engine.PilesRules()
    rule_set = rule_set_create(
        club=club,
        user=created_by,
        name=f"Simulated {game}",
        rules=rules,
        max_seats=rules.max_players,
        spectators_allowed=True,
    )
    version = rule_set.versions.get(number=1)
    return table_create(
        club=club, user=created_by, name=name or f"Simulated {Game(game).label}", rule_version_id=version.pk
    )


@dataclass
class SimulatedHand:
    hand: Hand
    events: int
    entries: int


def _choose(rng: random.Random, actions: Sequence[engine.Action]) -> engine.Action:
    # Mostly stay in, so pots get built and decided at showdowns.
    weights = [0.25 if a.type in ("fold", "out") else 1.0 for a in actions]
    return rng.choices(list(actions), weights=weights, k=1)[0]


def _seat(table: Table, players: Sequence[User]) -> None:
    """Exactly ``players`` seated and playing at ``table`` (no hand is being played there)."""
    seats = {s.user_id: s for s in table.seats.filter(left_at__isnull=True)}
    taken = {s.number for s in seats.values()}
    free = (n for n in range(1, table.rule_version.max_seats + 1) if n not in taken)
    wanted = {u.pk for u in players}
    for user_id, seat in seats.items():
        if user_id not in wanted and not seat.sitting_out:
            seat_sit_out(table_id=table.pk, user=seat.user)
    for user in players:
        mine = seats.get(user.pk)
        if mine is None:
            seat_take(table_id=table.pk, user=user, number=next(free), version_id=table.rule_version_id)
        elif mine.sitting_out:
            seat_sit_in(table_id=table.pk, user=user)


def simulation_hand_play(
    *, table: Table, players: Sequence[User], rng: random.Random, created_by: User | None = None
) -> SimulatedHand:
    """Deal and play one hand at `table` with `players`, making random legal moves through the services.

    Returns the finished hand and how many events and journal entries it has. Raises DomainError
    when a player may not sit (e.g. below the club's credit limit) or the game at the table is over.
    """
    table = Table.objects.select_related("rule_version").get(pk=table.pk)
    _seat(table, players)
    hand = table_start(table_id=table.pk, user=players[0])
    for user in players:  # the hand is played out; none is dealt after it
        seat_sit_out(table_id=table.pk, user=user)
    by_seat = {int(seat): user_id for seat, user_id in hand.players.items()}
    users = {u.pk: u for u in players}
    while True:
        hand = Hand.objects.get(pk=hand.pk)
        state = engine.state_from_json(hand.state)
        if hand.is_finished or engine.is_over(state):
            break
        to_act = engine.to_act(state)
        seat = to_act[0] if len(to_act) == 1 else rng.choice(list(to_act))
        action = _choose(rng, engine.legal_actions(state, seat))
        hand_act(hand_id=hand.pk, user=users[by_seat[seat]], action=action, version=hand.version)
    events = len(hand.deal_events) + sum(
        len(e) for e in HandAction.objects.filter(hand=hand).values_list("events", flat=True)
    )
    entries = JournalEntry.objects.filter(hand=hand).count()
    return SimulatedHand(hand=hand, events=events, entries=entries)


def simulation_run(
    *, club: Club, players: Sequence[User], hands: int, seed: int | None = None, created_by: User | None = None
) -> list[SimulatedHand]:
    """Play `hands` hands alternating between a Piranha and a Piles table of the club (a game that
    ends goes on at its next table)."""
    rng = random.Random(seed)  # noqa: S311 - choosing simulated moves, not dealing (the deck uses the CSPRNG)
    starter = created_by or players[0]
    tables = [simulation_table_create(club=club, game=game, created_by=starter) for game in (Game.PIRANHA, Game.PILES)]
    played = []
    for i in range(hands):
        table = Table.objects.get(pk=tables[i % 2].pk)
        if table.status == Table.Status.FINISHED:
            player = table.seats.filter(left_at__isnull=True).order_by("number").first()
            assert player is not None
            table = tables[i % 2] = table_new_game(table_id=table.pk, user=player.user)
        max_players = 7 if table.game == Game.PILES else 11
        count = rng.randint(2, min(len(players), max_players))
        played.append(
            simulation_hand_play(table=table, players=rng.sample(list(players), count), rng=rng, created_by=created_by)
        )
    return played
