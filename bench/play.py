"""How the bench's bots play: a choice among the actions the screen offers, weighted by the hand's strength
as the screen words it, so that they bet, raise, call, check, fold, drop and declare in a mix, not always
the same button.

Strength tiers (bench/screens.py ``Strength``: the engine evaluator's category of the best high hand):
weak up to one pair, medium two pair or three of a kind, strong a straight or better; not known yet
(Piles before a legal high can be made) counts as medium. A player leaves the hand (fold, or out at
Piranha's drop) only when ``may_leave``: the bench keeps two players in every hand, because a Piranha game
ends when one player alone stays in (piranha.txt 3.3) and a finished game would take its table out of the
load.
"""

from __future__ import annotations

import random

from bench.screens import Strength, Turn

WEAK, MEDIUM, STRONG = "weak", "medium", "strong"
LEAVING = ("fold", "out")
# Relative weights of each kind of button by tier (a kind not offered is not chosen).
WEIGHTS: dict[str, dict[str, float]] = {
    WEAK: {"fold": 4, "check": 6, "call": 2, "bet": 0.5, "raise": 0.2, "in": 1, "out": 2},
    MEDIUM: {"fold": 0.5, "check": 3, "call": 5, "bet": 2, "raise": 1, "in": 4, "out": 1},
    STRONG: {"fold": 0, "check": 1, "call": 3, "bet": 4, "raise": 3, "in": 1, "out": 0},
}


def tier(strength: Strength) -> str:
    if strength.high is None:
        return MEDIUM
    return WEAK if strength.high <= 1 else MEDIUM if strength.high <= 3 else STRONG


def declare_weight(choice: str, strength: Strength) -> float:
    """Piles' declaration (piles.txt 4): high with a high hand, low with a low, pig (both ways) rarely and
    only with both; fold with neither."""
    high = strength.high if strength.high is not None else 0
    low = bool(strength.low)
    return {
        "high": 3.0 if high >= 2 else 1.0,
        "low": 3.0 if low else 0.0,
        "pig": 1.0 if low and high >= 4 else 0.0,
    }.get(choice, 0.0)


def weight(value: str, strength: Strength, offers: tuple[str, ...]) -> float:
    kind, _, rest = value.partition(":")
    if kind == "declare":
        return declare_weight(rest, strength)
    if kind == "fold" and "check" in offers:  # nobody folds when checking is free
        return 0.0
    if kind == "fold" and any(v.startswith("declare:") for v in offers):
        return 0.0 if strength.high or strength.low else 1.0
    return WEIGHTS[tier(strength)].get(kind, 0.0)


def choose(turn: Turn, rng: random.Random, *, may_leave: bool = True) -> str | None:
    """One of the turn's offers, drawn with the weights above; None when nothing is offered."""
    offers = turn.offers
    allowed = [v for v in offers if may_leave or v.partition(":")[0] not in LEAVING] or list(offers)
    if not allowed:
        return None
    weights = [weight(v, turn.strength, offers) for v in allowed]
    if not any(weights):
        return allowed[0]
    return rng.choices(allowed, weights=weights)[0]


def leaves(value: str) -> bool:
    """Whether the action takes its player out of the hand."""
    return value.partition(":")[0] in LEAVING
