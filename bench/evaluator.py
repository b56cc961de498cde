"""Evaluator benchmark: player hands per second on the same random deals.

Run: .venv/bin/python bench/evaluator.py [--quick]

Columns: Piranha best five of nine (4 hole + 5 board, any mix); Piles best
high (legal hands only: 2 hole + 2 of one square + 1 row); Piles best high
plus both lows (eight-or-better and the five-or-lower variant).

Contenders, each given its inputs in its own native form, converted before
timing: our engine; pokerkit's hand API (StandardHighHand.from_game for
Piranha; for Piles the max of StandardHighHand over the 600 legal fives, and
EightOrBetterLowHand for the 8-or-better low); treys' five-card evaluator
over the legal combinations (126 for Piranha, 600 for Piles); and a naive
itertools baseline (a Counter-based five-card evaluator over the same
combinations). treys and pokerkit have no five-or-lower low, so that low is
the naive one for them (and pokerkit's high-plus-lows column also uses it).
The ratio printed is ours / theirs, from one run. Not a timed test.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pokerkit import EightOrBetterLowHand, StandardHighHand  # noqa: E402
from treys import Card as TreysCard  # noqa: E402
from treys import Evaluator  # noqa: E402

from engine import piles_best_high, piles_best_low, piranha_best  # noqa: E402
from engine.cards import FULL_DECK, card  # noqa: E402

SEED = 20260928
PIRANHA_PLAYERS = 6
PILES_PLAYERS = 3

# ---- the naive baseline --------------------------------------------------------------------

_RANK = {c: i for i, c in enumerate("23456789TJQKA", start=2)}


def naive_key5(five: Sequence[str]) -> tuple[int, ...]:
    ranks = sorted((_RANK[c[0]] for c in five), reverse=True)
    flush = len({c[1] for c in five}) == 1
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = [r for r, n in groups for _ in range(n)]
    straight = len(counts) == 5 and (ranks[0] - ranks[4] == 4 or ranks == [14, 5, 4, 3, 2])
    if straight and ranks == [14, 5, 4, 3, 2]:
        ordered = [5, 4, 3, 2, 1]
    shape = sorted(counts.values(), reverse=True)
    if straight and flush:
        cat = 8
    elif shape[0] == 4:
        cat = 7
    elif shape[:2] == [3, 2]:
        cat = 6
    elif flush:
        cat = 5
    elif straight:
        cat = 4
    elif shape[0] == 3:
        cat = 3
    elif shape[:2] == [2, 2]:
        cat = 2
    elif shape[0] == 2:
        cat = 1
    else:
        cat = 0
    return (cat, *ordered)


def legal_fives(hole: Sequence[Any], sq1: Sequence[Any], sq2: Sequence[Any], row: Sequence[Any]):
    for h in combinations(hole, 2):
        for sq in (sq1, sq2):
            for s in combinations(sq, 2):
                for r in row:
                    yield (*h, *s, r)


def naive_low(fives, variant: bool) -> list[int] | None:
    best = None
    for five in fives:
        ranks = sorted((1 if c[0] == "A" else _RANK[c[0]] for c in five), reverse=True)
        ok = ranks[0] <= 5 if variant else (ranks[0] <= 8 and len(set(ranks)) == 5)
        if ok and (best is None or ranks < best):
            best = ranks
    return best


# ---- the deals -----------------------------------------------------------------------------


def make_deals(count: int) -> tuple[list[tuple[list[str], list[str]]], list[tuple[list[str], ...]]]:
    rng = random.Random(SEED)  # noqa: S311 - a benchmark, not a deal
    piranha: list[tuple[list[str], list[str]]] = []
    while len(piranha) < count:
        d = rng.sample(FULL_DECK, 4 * PIRANHA_PLAYERS + 5)
        board = d[-5:]
        piranha += [(d[4 * k : 4 * k + 4], board) for k in range(PIRANHA_PLAYERS)]
    piles: list[tuple[list[str], ...]] = []
    while len(piles) < count:
        d = rng.sample(FULL_DECK, 5 * PILES_PLAYERS + 13)
        sq1, sq2, row = d[-13:-9], d[-9:-5], d[-5:]
        piles += [(d[5 * k : 5 * k + 5], sq1, sq2, row) for k in range(PILES_PLAYERS)]
    return piranha[:count], piles[:count]


def rate(fn: Callable[[Any], object], inputs: Sequence[Any], budget: float) -> float:
    """Player hands per second over as many inputs as fit in about ``budget`` seconds (at least 20)."""
    start = time.perf_counter()
    done = 0
    for item in inputs:
        fn(item)
        done += 1
        if done >= 20 and time.perf_counter() - start > budget:
            break
    return done / (time.perf_counter() - start)


def main() -> None:
    quick = "--quick" in sys.argv
    budget = 0.5 if quick else 2.0
    piranha_deals, piles_deals = make_deals(6_000 if quick else 30_000)

    # native inputs, converted before timing
    ours_pir = [([card(c) for c in h], [card(c) for c in b]) for h, b in piranha_deals]
    ours_pil = [tuple([card(c) for c in part] for part in deal) for deal in piles_deals]
    t_pir = [[TreysCard.new(c) for c in h + b] for h, b in piranha_deals]
    t_pil = [tuple([TreysCard.new(c) for c in part] for part in deal) for deal in piles_deals]
    pk_pir = [("".join(h), "".join(b)) for h, b in piranha_deals]
    five = Evaluator().hand_size_map[5]

    def ours_piles_all(d: Any) -> object:
        return (piles_best_high(*d), piles_best_low(*d), piles_best_low(*d, variant=True))

    def treys_piles_high(d: Any) -> int:
        return min(map(five, legal_fives(*d)))

    def pk_piles_high(d: Any) -> object:
        return max(StandardHighHand("".join(f)) for f in legal_fives(*d))

    def pk_piles_all(d: Any) -> object:
        high = pk_piles_high(d)
        lows = [EightOrBetterLowHand("".join(f)) for f in legal_fives(*d) if naive_low([f], False) is not None]
        return high, (max(lows) if lows else None), naive_low(legal_fives(*d), True)

    def naive_piles_all(d: Any) -> object:
        return (
            max(map(naive_key5, legal_fives(*d))),
            naive_low(legal_fives(*d), False),
            naive_low(legal_fives(*d), True),
        )

    rows = [
        (
            "ours",
            [
                rate(lambda d: piranha_best(*d), ours_pir, budget),
                rate(lambda d: piles_best_high(*d), ours_pil, budget),
                rate(ours_piles_all, ours_pil, budget),
            ],
        ),
        (
            "pokerkit",
            [
                rate(lambda d: StandardHighHand.from_game(*d), pk_pir, budget),
                rate(pk_piles_high, piles_deals, budget),
                rate(pk_piles_all, piles_deals, budget),
            ],
        ),
        (
            "treys",
            [
                rate(lambda d: min(map(five, combinations(d, 5))), t_pir, budget),
                rate(treys_piles_high, t_pil, budget),
                rate(
                    lambda d: (
                        treys_piles_high(d[1]),
                        naive_low(legal_fives(*d[0]), False),
                        naive_low(legal_fives(*d[0]), True),
                    ),
                    list(zip(piles_deals, t_pil, strict=True)),
                    budget,
                ),
            ],
        ),
        (
            "naive",
            [
                rate(lambda d: max(map(naive_key5, combinations(d[0] + d[1], 5))), piranha_deals, budget),
                rate(lambda d: max(map(naive_key5, legal_fives(*d))), piles_deals, budget),
                rate(naive_piles_all, piles_deals, budget),
            ],
        ),
    ]
    ours = rows[0][1]
    print(f"player hands per second (seed {SEED}; same deals for everyone)")
    print(f"{'':10}{'Piranha best of 9':>22}{'Piles high':>22}{'Piles high + 2 lows':>24}")
    for name, values in rows:
        cells = []
        for k, v in enumerate(values):
            ratio = "" if name == "ours" else f" (x{ours[k] / v:,.1f})"
            cells.append(f"{v:,.0f}{ratio}")
        print(f"{name:10}{cells[0]:>22}{cells[1]:>22}{cells[2]:>24}")
    print("(xN = ours / theirs)")


if __name__ == "__main__":
    main()
