"""Piranha players: in or out at the drop (piranha.txt 3), and the optional betting round (3.4).

The beginner reads its seven cards as they lie; the others simulate the rest of the hand
(estimate.piranha_estimate) and stay in when staying in is worth more than dropping, given the
pot, the number still in and the cap on what a loser pays (piranha.txt 4.3).
"""

from __future__ import annotations

from random import Random

from ..actions import Action
from ..cards import card
from ..evaluate import PAIR, TRIPS, TWO_PAIR, best_any_key
from ..hand_view import HandView
from ..rules import Rules
from .estimate import PiranhaEstimate, my_cards, piranha_estimate
from .moves import Policy, aggressive, cautious, first_legal, passive, require_turn
from .reads import TableReads

#: deals of the unseen cards each simulating strength uses per decision
SAMPLES = {"solid": 150, "strong": 600}
#: a showdown share this good makes the hand worth building the pot for in the betting round
VALUE_BET_WIN = 0.6


def face_value(view: HandView) -> int:
    """The key of the viewer's best five of its hole cards and the board's up cards."""
    return best_any_key(my_cards(view) + [card(c) for c in view.board_cards if c is not None])[0]


def beginner(view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
    """In with two pair or better, or a pair of queens or better; bets three of a kind."""
    key = face_value(view)
    category, top = key >> 20, (key >> 16) & 15
    good = category >= TWO_PAIR or (category == PAIR and top >= 12)
    if view.phase == "drop":
        return first_legal(view, "in" if good else "out")
    if category >= TRIPS:
        return aggressive(view)
    return passive(view) if good else cautious(view)


def decide(
    view: HandView, samples: int, rng: Random, reads: TableReads | None = None
) -> tuple[Action, PiranhaEstimate]:
    """The simulating players' choice and the estimate it rests on; ``reads``: what the seat has seen of
    the others at this table (None: the fixed model of them). Raises IllegalAction when the view offers
    its seat no action."""
    require_turn(view)
    estimate = piranha_estimate(view, samples, rng, reads)
    staying_pays = estimate.stay_value > 0
    if view.phase == "drop":
        return first_legal(view, "in" if staying_pays else "out"), estimate
    if reads is not None and view.betting is not None and view.betting.to_call:
        # a call is lost unless the hand goes on to win: it must pay for itself as well
        winning = estimate.alone + (1 - estimate.alone) * estimate.win
        staying_pays = estimate.stay_value > view.betting.to_call * (1 - winning)
    # the betting round: a bigger pot is worth more to a hand that expects to win it, and costs
    # more to one that would drop anyway (folding here is dropping out)
    if staying_pays and estimate.win >= VALUE_BET_WIN:
        return aggressive(view), estimate
    return (passive(view) if staying_pays else cautious(view)), estimate


def simulating(samples: int, learns: bool = False) -> Policy:
    """A player that decides from ``samples`` deals of the unseen cards; one that ``learns`` models the
    others by what it has seen of them at this table (the reads it is given)."""

    def policy(view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
        return decide(view, samples, rng, reads if learns else None)[0]

    return policy
