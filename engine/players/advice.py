"""What the strong player would do, and why, in one sentence with the equity (for the coach)."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from ..actions import Action
from ..hand_view import HandView
from ..outcome import HighHand
from ..rules import Rules
from . import piles, piranha
from .estimate import PilesEstimate, PiranhaEstimate, rivals

VERBS = {
    "check": "Check",
    "bet": "Bet",
    "call": "Call",
    "raise": "Raise",
    "fold": "Fold",
    "in": "Stay in",
    "out": "Drop",
}


@dataclass(frozen=True, slots=True)
class Advice:
    """The strong player's choice for the decision in front of a seat.

    equity: Piranha, the share of showdowns the hand wins against the hands likely to stay in;
    Piles, the expected share of the pot with the best declaration. high, low: Piles only, the
    chance of winning each half (None in Piranha). sentence: the choice and why, for a member.
    """

    action: Action
    equity: float
    high: float | None
    low: float | None
    sentence: str


def advise(view: HandView, rules: Rules, rng: Random) -> Advice:
    """The strong player's action for ``view`` and why; raises IllegalAction when the view offers
    its seat no action."""
    if view.game == "piranha":
        action, estimate = piranha.decide(view, piranha.SAMPLES["strong"], rng)
        return Advice(action, estimate.win, None, None, _piranha_sentence(view, action, estimate))
    action, found = piles.decide(view, piles.BUDGET["strong"], rng)
    return Advice(action, found.equity, found.high, found.low, _piles_sentence(view, action, found))


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _amount(cents: float) -> str:
    return f"{abs(cents) / 100:,.2f}"


def _piranha_sentence(view: HandView, action: Action, estimate: PiranhaEstimate) -> str:
    hand = view.my_hand.name if isinstance(view.my_hand, HighHand) else "hand"
    verb = VERBS.get(action.type, action.type)
    odds = f"your {hand} wins about {_percent(estimate.win)} of showdowns against the hands likely to stay in"
    if estimate.stay_value > 0:
        return f"{verb}: {odds}, so staying in is worth about {_amount(estimate.stay_value)} more than dropping."
    return f"{verb}: {odds}, so staying in would cost about {_amount(estimate.stay_value)} on average."


def _piles_sentence(view: HandView, action: Action, estimate: PilesEstimate) -> str:
    halves = (
        f"you win the high half about {_percent(estimate.high)} of the time and the low half "
        f"about {_percent(estimate.low)}"
    )
    if action.type == "declare":
        choice = action.choice or "high"
        why = " (a pig must win both)" if choice == "pig" else ""
        return f"Declare {choice}: {halves}, so {choice} takes about {_percent(estimate.equity)} of the pot{why}."
    verb = VERBS.get(action.type, action.type)
    share = f"about {_percent(estimate.equity)} of the pot with the best declaration"
    reason = {
        "value": f"more than a fair share of {_percent(1 / (rivals(view) + 1))}",
        "continue": "enough to pay for the bets still to come",
        "give up": "not enough to pay for the bets still to come",
    }[piles.betting_plan(view, estimate.equity)]
    return f"{verb}: {halves}, {share}: {reason}."
