"""What a computer player has learnt of the others at its table, from what its own seat has seen.

A seat sees the public log of every hand it played (``HandView.events``): the drops opened together
(piranha.txt 3.1) and every bet, call, raise and fold. From them it counts, for each other seat, how often
it stayed in at the drop (a fold in the betting round is dropping out), how often it called (or raised)
rather than folded when it faced a bet, and in how many of the betting rounds it acted in it bet or raised. Nothing here reads a state or another seat's cards:
the counts are built from views alone, so a player fed them still sees only what its seat may see
(docs/design.md, "computer players see only their own view").

The rates start from a prior (how often players stay in, call and bet at these tables on the whole) and move
towards what was seen as the table plays, so a few hands do not swing them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..events import Bet, Check, DropOpen, Fold, Turn
from ..hand_view import HandView

#: the prior rates and how many observations they weigh
PRIOR_STAY = 0.4
PRIOR_CALL = 0.6
PRIOR_BET = 0.25
PRIOR_WEIGHT = 6.0


@dataclass(frozen=True, slots=True)
class SeatReads:
    """One other seat as seen: drops opened and how many were "in"; folds in a betting round; bets faced
    and how many called or raised (not folded); betting rounds it acted in and in how many it bet or
    raised."""

    drops: int = 0
    stayed: int = 0
    faced: int = 0
    called: int = 0
    rounds: int = 0
    bet: int = 0
    folded: int = 0

    @property
    def stay_rate(self) -> float:
        """How often it stays in at the drop, of the hands it went to the drop with or folded in the betting
        round (folding there is dropping out: Piranha's betting round), the prior weighed in."""
        return (self.stayed + PRIOR_STAY * PRIOR_WEIGHT) / (self.drops + self.folded + PRIOR_WEIGHT)

    @property
    def call_rate(self) -> float:
        """How often it calls or raises when it faces a bet, the prior weighed in."""
        return (self.called + PRIOR_CALL * PRIOR_WEIGHT) / (self.faced + PRIOR_WEIGHT)

    @property
    def bet_rate(self) -> float:
        """In how many of the betting rounds it acts in it bets or raises, the prior weighed in."""
        return (self.bet + PRIOR_BET * PRIOR_WEIGHT) / (self.rounds + PRIOR_WEIGHT)


@dataclass(frozen=True, slots=True)
class TableReads:
    """Each other seat's ``SeatReads`` (a seat never seen reads as the prior)."""

    seats: dict[int, SeatReads] = field(default_factory=dict)

    def of(self, seat: int) -> SeatReads:
        return self.seats.get(seat, SeatReads())

    def adding(self, view: HandView) -> TableReads:
        """These reads with the hand of ``view`` (the reading seat's own view of it) counted too."""
        seats = dict(self.seats)
        for seat, seen in _hand_reads(view).items():
            if seat == view.you:
                continue
            seats[seat] = _plus(seats.get(seat, SeatReads()), seen)
        return TableReads(seats)


_FIELDS = ("drops", "stayed", "faced", "called", "rounds", "bet", "folded")


def _plus(a: SeatReads, b: SeatReads) -> SeatReads:
    return SeatReads(*(getattr(a, k) + getattr(b, k) for k in _FIELDS))


def reads_from(views: Iterable[HandView]) -> TableReads:
    """The reads of the hands of ``views``: each one seat's own view of a hand at this table."""
    reads = TableReads()
    for view in views:
        reads = reads.adding(view)
    return reads


def _hand_reads(view: HandView) -> dict[int, SeatReads]:
    """One hand's public log, counted: each drop opened; each fold; each fold, call or raise made facing a
    bet (a bet or raise earlier in the same betting round)."""
    out: dict[int, SeatReads] = {}

    def add(seat: int, **more: int) -> None:
        out[seat] = _plus(out.get(seat, SeatReads()), SeatReads(**more))

    round_key: object = object()
    bet_open = False
    acted: set[int] = set()  # the seats that acted in this round, and of them those that bet or raised
    aggressed: set[int] = set()

    def close_round() -> None:
        for seat in acted:
            add(seat, rounds=1, bet=int(seat in aggressed))
        acted.clear()
        aggressed.clear()

    for event in view.events:
        if isinstance(event, DropOpen):
            for d in event.decisions:
                add(d.seat, drops=1, stayed=int(d.decision == "in"))
            continue
        if isinstance(event, Turn):
            bet_open = False
            continue
        if not isinstance(event, (Bet, Check, Fold)):
            continue
        if event.stage != round_key:
            close_round()
            round_key, bet_open = event.stage, False
        acted.add(event.seat)
        if isinstance(event, Check):
            continue
        if isinstance(event, Fold):
            add(event.seat, folded=1, faced=int(bet_open))
        elif event.action in ("call", "raise"):
            add(event.seat, faced=1, called=1)
            bet_open = True
        else:
            bet_open = True
        if isinstance(event, Bet) and event.action in ("bet", "raise"):
            aggressed.add(event.seat)
    close_round()
    return out
