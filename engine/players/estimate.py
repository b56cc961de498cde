"""Monte Carlo estimates over the cards a seat cannot see, with the engine's evaluator.

A seat knows its own hole cards and the shared cards turned; every other card (the others'
hands, the cards face down, the undealt deck) is alike to it. Each sample deals those unseen
cards at random from a ``random.Random`` the caller passes in, and plays the hand out with
``evaluate.py``. Nothing here reads a state: only what a ``HandView`` shows.

The others are modelled simply. In Piranha, with no reads of the table, an opponent stays in with
two pair or better on the three up cards (about two hands in five), and without it now and then,
more often as the pot grows past the cap; with reads (players/reads.py: how often each opponent
stayed in, called and bet at this table, as this seat saw it) each opponent stays in with its best hands
in the share it has been seen to stay in, and its hand is dealt from those its actions in this hand's
betting round leave it: a bet or raise its best hands, a check none of those, a call those it continues
with (``hand_ranges``). In Piles, which takes no reads, an opponent declares low with a
qualifying low of seven or better and a high below a flush, else high.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import FULL_DECK, Card, card
from ..common import match_within_limit
from ..evaluate import FLUSH, TWO_PAIR, HandValue, LowValue, best_any_key, piles_best_high, piles_best_low
from ..events import Bet, Check
from ..hand_view import HandView, PilesBoard
from ..rules import PilesRules, PiranhaRules
from .reads import TableReads

ALL_CARDS: tuple[Card, ...] = tuple(card(c) for c in FULL_DECK)

#: an opponent is taken to stay in with two pair or better on its seven cards before the drop
STAYS_IN_FROM = TWO_PAIR << 20


def looser_in(pot: int, cap: int | None) -> float:
    """The chance an opponent without two pair stays in all the same: some do in any pot, and more
    as the pot grows past what a loser pays (a big pot is cheap to contest)."""
    times = pot / cap if cap else 1.0
    return min(0.7, max(0.15, 0.15 + 0.2 * (times - 1)))  # 0.15 up to the cap, 0.55 at three times it


def unseen(known: Sequence[Card]) -> list[Card]:
    """The cards a seat that knows ``known`` cannot see, in deck order."""
    seen = set(known)
    return [c for c in ALL_CARDS if c not in seen]


def rivals(view: HandView) -> int:
    """How many other seats are still in the hand (active: not folded, not out)."""
    return sum(1 for s in view.seats if s.seat != view.you and s.status == "active")


def my_cards(view: HandView) -> list[Card]:
    """The viewer's hole cards; a view of a seat not dealt in has none."""
    return [card(c) for c in view.my_cards or ()]


# ---- Piranha ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PiranhaEstimate:
    """What staying in is worth, from ``samples`` deals of the unseen cards.

    win: the share of the showdowns this hand wins (a tie counts its share) against the hands that
    stay in; alone: the chance that no other seat stays in (the pot is then won uncontested);
    stay_value: the expected cents staying in gains over dropping (which costs nothing more), with
    a fair share of what goes into the next pot counted back; stay_error: the half-width of its 95%
    interval; showdowns: the deals that went to a showdown (what ``win`` rests on).
    """

    samples: int
    win: float
    alone: float
    stay_value: float
    stay_error: float = 0.0
    showdowns: int = 0


#: opponents' hands dealt to rank the hands an opponent may hold, weakest to best (with the up cards)
RANGE_SAMPLES = 800
#: the narrowest share of hands an opponent's actions are taken to leave it
NARROWEST = 0.03


@dataclass(frozen=True, slots=True)
class Range:
    """Where an opponent's hand lies among the hands it may hold, ranked by their best five with the up
    cards (0 the weakest, 1 the best): between ``low`` and ``high``, as its actions in this hand's betting
    round place it; it stays in at the drop with a hand from ``stays`` up."""

    low: float
    high: float
    stays: float


def hand_ranges(view: HandView, reads: TableReads) -> list[Range]:
    """For each other active seat (in seat order), its ``Range``. Each seat is taken to play its best hands:
    it bets or raises with its best in the share of rounds it has been seen to bet in (so a check says its
    hand is below those), continues facing a bet with its best in the share seen to call, and stays in with
    its best in the share seen to stay in (``reads``)."""
    did: dict[int, set[str]] = {}
    for e in view.events:
        if isinstance(e, Bet):
            did.setdefault(e.seat, set()).add(e.action)
        elif isinstance(e, Check):
            did.setdefault(e.seat, set()).add("check")
    out = []
    for s in view.seats:
        if s.seat == view.you or s.status != "active":
            continue
        seen, acts = reads.of(s.seat), did.get(s.seat, set())
        low, high = 0.0, 1.0
        if acts & {"bet", "raise"}:
            low = 1 - seen.bet_rate
        elif "check" in acts:
            high = 1 - seen.bet_rate
        if "call" in acts:
            low = max(low, 1 - seen.call_rate)
        low = max(0.0, min(low, high - NARROWEST))
        out.append(Range(low, high, 1 - seen.stay_rate))
    return out


def piranha_estimate(
    view: HandView, samples: int, rng: random.Random, reads: TableReads | None = None
) -> PiranhaEstimate:
    """Stay in or drop (piranha.txt 3, 4): the winner takes the pot; every loser pays the pot up to
    the agreed cap (4.3, ``common.match_within_limit``); one player alone in takes it (3.3). ``reads``:
    what this seat has seen of the others at this table (None: the fixed model); with them each opponent's
    hand is dealt from the hands its actions in this hand leave it (``hand_ranges``)."""
    hole = my_cards(view)
    up = [card(c) for c in view.board_cards if c is not None]
    opponents = rivals(view)
    cap = view.rules.match_cap if isinstance(view.rules, PiranhaRules) else None
    pool = unseen(hole + up)
    down = 5 - len(up)
    dealer = _RangeDealer(view, reads, pool, up, rng) if reads is not None else None
    # what a seat pays, or leaves in the pot by dropping when nobody stays in, goes into the next
    # pot, of which it may expect its share back
    comeback = 1 / (opponents + 1)
    loose = looser_in(view.pot, cap)
    values: list[float] = []
    won = 0.0
    showdowns = 0
    alone = 0
    for _ in range(samples):
        if dealer is None:
            dealt = rng.sample(pool, down + 4 * opponents)
            board = up + dealt[:down]
            hands = [dealt[k : k + 4] for k in range(down, len(dealt), 4)]
            ins = [h for h in hands if best_any_key(h + up)[0] >= STAYS_IN_FROM or rng.random() < loose]
        else:
            board, ins = dealer.deal(down)
        if not ins:
            alone += 1
            values.append(view.pot * (1 - comeback))
            continue
        showdowns += 1
        mine = best_any_key(hole + board)[0]
        keys = [best_any_key(h + board)[0] for h in ins]
        best = max(keys)
        if mine < best:
            values.append(-match_within_limit(view.pot, cap, len(ins) + 1 - keys.count(best)) * (1 - comeback))
            continue
        winners = 1 + keys.count(mine)
        share = 1.0 / winners
        won += share
        values.append(view.pot * share)
    mean, error = mean_and_error(values)
    return PiranhaEstimate(
        samples=samples,
        win=won / showdowns if showdowns else 1.0,
        alone=alone / samples,
        stay_value=mean,
        stay_error=error,
        showdowns=showdowns,
    )


class _RangeDealer:
    """Deals the unseen cards with each opponent's hand drawn from its ``Range``: RANGE_SAMPLES hands ranked
    once per decision; an opponent whose range is narrowed takes one of the ranked hands in it (one that
    shares no card with those dealt already), the others are dealt from the rest of the deck."""

    def __init__(
        self, view: HandView, reads: TableReads, pool: Sequence[Card], up: Sequence[Card], rng: random.Random
    ) -> None:
        self.pool, self.up, self.rng = pool, list(up), rng
        ranked = sorted(
            ((best_any_key(h + self.up)[0], h) for h in (rng.sample(pool, 4) for _ in range(RANGE_SAMPLES))),
            key=lambda kh: kh[0],
        )
        n = len(ranked)
        self.seats: list[tuple[list[tuple[int, list[Card]]] | None, int]] = []
        for r in hand_ranges(view, reads):
            stays = -1 if r.stays <= 0 else ranked[min(n - 1, int(r.stays * n))][0]
            whole = r.low <= 0 and r.high >= 1
            within = None if whole else ranked[int(r.low * n) : max(int(r.low * n) + 1, int(r.high * n))]
            self.seats.append((within, stays))

    def deal(self, down: int) -> tuple[list[Card], list[list[Card]]]:
        """One deal: the whole board and the opponents' hands that stay in."""
        used: set[Card] = set()
        picked: list[tuple[int, list[Card]] | None] = []
        for within, _ in self.seats:
            hand = None
            if within is not None:
                for _ in range(20):
                    key, cards = self.rng.choice(within)
                    if used.isdisjoint(cards):
                        hand = (key, cards)
                        used.update(cards)
                        break
            picked.append(hand)
        free = sum(1 for h in picked if h is None)
        rest = [c for c in self.pool if c not in used] if used else self.pool
        dealt = self.rng.sample(rest, down + 4 * free)
        board = self.up + dealt[:down]
        fresh = iter(dealt[k : k + 4] for k in range(down, len(dealt), 4))
        ins = []
        for hand, (_, stays) in zip(picked, self.seats, strict=True):
            if hand is None:
                cards = next(fresh)
                hand = (best_any_key(cards + self.up)[0], cards)
            if hand[0] >= stays:
                ins.append(hand[1])
        return board, ins


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, float("inf")
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * (variance / n) ** 0.5


# ---- Piles -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PilesEstimate:
    """Each half and each declaration, from ``samples`` deals of the unseen cards.

    high / low: the chance this hand wins the high half (the low half) against the others that
    would claim it, a tie counting its share (0 when no low of its can qualify); declare_high,
    declare_low, declare_pig: the expected share of the pot each declaration wins against the
    others' modelled declarations (piles.txt 4.2-4.4; a pig must win both halves, 4.3).
    high_outright / low_outright: the chance of winning that half alone, no tie; pig_wins: the chance
    a pig wins, both halves outright (docs/design.md; with the house rule that a tie counts, both
    won or tied). declare_error: the half-width of the 95% interval of how much the best
    declaration beats the next best by (paired over the same deals).
    """

    samples: int
    high: float
    low: float
    declare_high: float
    declare_low: float
    declare_pig: float
    high_outright: float = 0.0
    low_outright: float = 0.0
    pig_wins: float = 0.0
    declare_error: float = 0.0

    @property
    def equity(self) -> float:
        """The expected share of the pot with the best declaration."""
        return max(self.declare_high, self.declare_low, self.declare_pig)


def _beats(mine: HandValue | LowValue | None, theirs: Sequence[HandValue | LowValue | None]) -> float:
    """Share of a half ``mine`` wins against ``theirs`` (None: no qualifying hand): 1 outright,
    1/k tied with k-1 others, 0 when beaten or when ``mine`` does not qualify."""
    if mine is None:
        return 0.0
    tied = 1
    for other in theirs:
        if other is None:
            continue
        if other > mine:  # type: ignore[operator]
            return 0.0
        if other == mine:
            tied += 1
    return 1.0 / tied


def _declares_low(high: HandValue | None, low: LowValue | None) -> bool:
    """The model of an opponent's declaration: low with a low of seven or better and no flush."""
    if low is None:
        return False
    return high is None or (low.ranks[0] <= 7 and high.key < FLUSH << 20)


def _board_with(board: PilesBoard, dealt: Sequence[Card]) -> tuple[list[Card], list[Card], list[Card]]:
    """The three piles with their face-down places filled from ``dealt``, in order."""
    fill = iter(dealt)
    return (
        [card(c) if c is not None else next(fill) for c in board.square1],
        [card(c) if c is not None else next(fill) for c in board.square2],
        [card(c) if c is not None else next(fill) for c in board.row],
    )


def piles_estimate(view: HandView, samples: int, rng: random.Random) -> PilesEstimate:
    """Play the hand out ``samples`` times over the unseen cards and the others' hands."""
    assert isinstance(view.board, PilesBoard)
    hole = my_cards(view)
    seen = [card(c) for c in view.board_cards if c is not None]
    pool = unseen(hole + seen)
    down = sum(1 for c in view.board_cards if c is None)
    opponents = rivals(view)
    rules = view.rules
    variant = isinstance(rules, PilesRules) and rules.low_variant
    ties_count = isinstance(rules, PilesRules) and rules.pig_tie_counts
    sums = [0.0] * 5
    outright = [0, 0, 0]
    declared: list[tuple[float, float, float]] = []
    for _ in range(samples):
        dealt = rng.sample(pool, down + 5 * opponents)
        sq1, sq2, row = _board_with(view.board, dealt[:down])
        my_high = piles_best_high(hole, sq1, sq2, row, variant)
        my_low = piles_best_low(hole, sq1, sq2, row, variant)
        high_side: list[HandValue | LowValue | None] = []
        low_side: list[HandValue | LowValue | None] = []
        for k in range(down, len(dealt), 5):
            hand = dealt[k : k + 5]
            high = piles_best_high(hand, sq1, sq2, row, variant)
            low = piles_best_low(hand, sq1, sq2, row, variant)
            if _declares_low(high, low):
                low_side.append(low)
            else:
                high_side.append(high)
        other_low = any(v is not None for v in low_side)
        other_high = any(v is not None for v in high_side)
        high_half = _beats(my_high, high_side)
        low_half = _beats(my_low, low_side)
        sums[0] += high_half
        sums[1] += low_half
        # a half with no qualifying claimant goes to the other half (docs/design.md)
        each = (
            high_half * (0.5 if other_low else 1.0),
            low_half * (0.5 if other_high else 1.0),
            _pig_share(high_half, low_half, ties_count),
        )
        declared.append(each)
        for k, value in enumerate(each):
            sums[2 + k] += value
        outright[0] += high_half == 1.0
        outright[1] += low_half == 1.0
        outright[2] += (high_half > 0 and low_half > 0) if ties_count else (high_half == 1.0 and low_half == 1.0)
    means = [s / samples for s in sums]
    order = sorted(range(3), key=lambda k: means[2 + k], reverse=True)
    _, error = mean_and_error([d[order[0]] - d[order[1]] for d in declared])
    return PilesEstimate(
        samples,
        means[0],
        means[1],
        means[2],
        means[3],
        means[4],
        high_outright=outright[0] / samples,
        low_outright=outright[1] / samples,
        pig_wins=outright[2] / samples,
        declare_error=error,
    )


def _pig_share(high_half: float, low_half: float, ties_count: bool) -> float:
    """A pig wins both halves outright or nothing (piles.txt 4.3); a tie counts with the option."""
    if ties_count:
        return (high_half + low_half) / 2 if high_half and low_half else 0.0
    return 1.0 if high_half == 1.0 and low_half == 1.0 else 0.0
