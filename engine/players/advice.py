"""What the strong player would do, and why, in one sentence with the equity (for the coach).

The coach says the same thing twice: it deals the unseen cards from a source seeded by the position (what
the member's own view shows: their cards, the board, the pot, the seats' public state, whose turn), so a
reload of the same position gives the same advice, and it deals many more times than a computer player
does, so the advice rests on an estimate good to a few per cent. Where two choices are closer than the
estimate's error it says so rather than pretend. Chances are said as a whole percentage only where the
deals support one, else as a range; money in the club's currency (``money``, given by the caller).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from ..actions import Action
from ..hand_view import HandView, view_to_json
from ..outcome import HighHand
from ..rules import PilesRules, Rules
from . import piles, piranha
from .estimate import PilesEstimate, PiranhaEstimate, piles_estimate, rivals
from .moves import aggressive, cautious, declaration, passive, require_turn

VERBS = {
    "check": "Check",
    "bet": "Bet",
    "call": "Call",
    "raise": "Raise",
    "fold": "Fold",
    "in": "Stay in",
    "out": "Drop",
}

#: the coach's deals of the unseen cards per question (a computer player uses a fraction of these)
COACH_SAMPLES = {"piranha": 3000, "piles": 600}
#: a chance is said as one whole percentage when its 95% interval is this narrow (either side), else as a range
EXACT_WITHIN = 0.03


@dataclass(frozen=True, slots=True)
class Advice:
    """The strong player's choice for the decision in front of a seat.

    equity: Piranha, the share of showdowns the hand wins against the hands likely to stay in;
    Piles, the expected share of the pot with the best declaration. high, low: Piles only, the
    chance of winning each half outright (None in Piranha). close: the best choice beats the next
    by less than the estimate's error. sentence: the choice and why, for a member.
    """

    action: Action
    equity: float
    high: float | None
    low: float | None
    sentence: str
    close: bool = False


def position_seed(view: HandView) -> int:
    """A seed from the position in front of the viewer: their own view without its log (the log says how
    the position came about, not what it is). Only what the viewer sees goes in, so the seed, and the
    advice, tell nothing more."""
    data = view_to_json(view)
    data.pop("events", None)
    data.pop("result", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _plain_money(cents: int) -> str:
    return f"{cents / 100:,.2f}"


def advise(
    view: HandView, rules: Rules, rng: Random | None = None, *, money: Callable[[int], str] = _plain_money
) -> Advice:
    """The strong player's action for ``view`` and why; ``rng``: the deals' source (None: seeded by the
    position, ``position_seed``); ``money``: cents in the club's currency. Raises IllegalAction when the
    view offers its seat no action."""
    source = rng if rng is not None else Random(position_seed(view))
    if view.game == "piranha":
        action, estimate = piranha.decide(view, COACH_SAMPLES["piranha"], source)
        close = abs(estimate.stay_value) <= estimate.stay_error
        sentence = _piranha_sentence(view, action, estimate, close, money)
        return Advice(action, estimate.win, None, None, sentence, close)
    action, found = _piles_decide(view, source)
    close = view.phase == "declare" and found.declare_error >= _gap(found)
    sentence = _piles_sentence(view, action, found, close)
    return Advice(action, found.equity, found.high_outright, found.low_outright, sentence, close)


def _piles_decide(view: HandView, rng: Random) -> tuple[Action, PilesEstimate]:
    """The strong player's choice from the coach's deals (the player's rules, a larger estimate)."""
    require_turn(view)
    estimate = piles_estimate(view, COACH_SAMPLES["piles"], rng)
    if view.phase == "declare":
        return declaration(view, piles.declare_choice(estimate)), estimate
    plan = piles.betting_plan(view, estimate.equity)
    move = aggressive if plan == "value" else passive if plan == "continue" else cautious
    return move(view), estimate


def _gap(estimate: PilesEstimate) -> float:
    values = sorted((estimate.declare_high, estimate.declare_low, estimate.declare_pig), reverse=True)
    return values[0] - values[1]


def share_words(share: float, deals: int) -> str:
    """A chance from ``deals`` deals: "about 58%" when the deals pin it to a few per cent, else the range
    its 95% interval spans, in fives ("between 45% and 70%")."""
    if deals <= 0:
        return "unknown"
    half = 1.96 * math.sqrt(max(share * (1 - share), 0.25 / deals) / deals)
    if half <= EXACT_WITHIN:
        return f"about {round(share * 100)}%"
    low = max(0, math.floor((share - half) * 20) * 5)
    high = min(100, math.ceil((share + half) * 20) * 5)
    return f"between {low}% and {high}%"


def _piranha_sentence(
    view: HandView, action: Action, estimate: PiranhaEstimate, close: bool, money: Callable[[int], str]
) -> str:
    hand = view.my_hand.name if isinstance(view.my_hand, HighHand) else "hand"
    verb = VERBS.get(action.type, action.type)
    odds = (
        f"your {hand} wins {share_words(estimate.win, estimate.showdowns)} of showdowns against the hands "
        "likely to stay in"
    )
    amount = money(round(abs(estimate.stay_value)))
    if close:
        return f"{verb}, a close call: {odds}, and staying in is worth about as much as dropping."
    if estimate.stay_value > 0:
        return f"{verb}: {odds}, so staying in is worth about {amount} more than dropping."
    return f"{verb}: {odds}, so staying in would cost about {amount} on average."


def _piles_sentence(view: HandView, action: Action, estimate: PilesEstimate, close: bool) -> str:
    n = estimate.samples
    halves = (
        f"you win the high half outright {share_words(estimate.high_outright, n)} of the time and the low half "
        f"{share_words(estimate.low_outright, n)}"
    )
    if action.type == "declare":
        choice = action.choice or "high"
        ties = isinstance(view.rules, PilesRules) and view.rules.pig_tie_counts
        must = "win or tie both halves" if ties else "win both halves outright"
        pig = f"; a pig, which must {must}, wins {share_words(estimate.pig_wins, n)}"
        call = ", a close call" if close else ""
        return f"Declare {choice}{call}: {halves}{pig}; so {choice} takes {share_words(estimate.equity, n)} of the pot."
    verb = VERBS.get(action.type, action.type)
    share = f"{share_words(estimate.equity, n)} of the pot with the best declaration"
    fair = 1 / (rivals(view) + 1)
    reason = {
        "value": f"more than a fair share of {round(fair * 100)}%",
        "continue": "enough to pay for the bets still to come",
        "give up": "not enough to pay for the bets still to come",
    }[piles.betting_plan(view, estimate.equity)]
    return f"{verb}: {halves}, {share}: {reason}."
