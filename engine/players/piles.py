"""Piles players: nine betting rounds (piles.txt 3) and the declaration (4.1-4.4).

The beginner reads its hand as it lies on the cards turned so far; the others simulate the
rest of the hand (estimate.piles_estimate) for each half, bet from their share of the pot as
the squares and the row turn, and declare what wins them the most of it.
"""

from __future__ import annotations

from random import Random

from ..actions import Action
from ..cards import card
from ..evaluate import STRAIGHT, HandValue, LowValue, piles_best_high, piles_best_low
from ..hand_view import HandView, PilesBoard
from ..rules import PilesRules, Rules
from .estimate import PilesEstimate, my_cards, piles_estimate, rivals
from .moves import Policy, aggressive, cautious, declaration, passive, require_turn
from .reads import PRIOR_CALL, TableReads

#: hands evaluated per decision by each simulating strength (each deal evaluates every hand in)
BUDGET = {"solid": 50, "strong": 200}
#: the fewest deals an estimate uses, however many rivals
MIN_SAMPLES = 10
#: bet for value with this many fair shares of the pot (a fair share: one over the hands still in)
VALUE_SHARE = 1.25
VALUE_FLOOR = 0.3
#: ... and against players who call every bet (any hand of theirs pays a bet)
CALLED_SHARE = 1.05
#: a pig only when it wins at least as often as two halves each more likely won than not (the rule of thumb
#: "both likely"): PIG_NEEDS squared
PIG_NEEDS = 0.5


def face_value(view: HandView) -> tuple[HandValue | None, LowValue | None]:
    """The viewer's best high and low on the cards turned so far (None: none yet)."""
    assert isinstance(view.board, PilesBoard)
    variant = isinstance(view.rules, PilesRules) and view.rules.low_variant
    sq1, sq2, row = (
        [card(c) for c in pile if c is not None] for pile in (view.board.square1, view.board.square2, view.board.row)
    )
    hole = my_cards(view)
    return piles_best_high(hole, sq1, sq2, row, variant), piles_best_low(hole, sq1, sq2, row, variant)


def _low_cards(view: HandView) -> int:
    return sum(1 for c in my_cards(view) if c.rank <= 8 or c.rank == 14)


def beginner(view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
    """Bets a straight or a seven-low, plays any pair or low, goes pig when both look good."""
    high, low = face_value(view)
    strong_high = high is not None and high.key >= STRAIGHT << 20
    good_low = low is not None and low.ranks[0] <= 7
    if view.phase == "declare":
        if low is not None and strong_high:
            return declaration(view, "pig")
        return declaration(view, "low" if low is not None else "high")
    if strong_high or good_low:
        return aggressive(view)
    hole_ranks = [c.rank for c in my_cards(view)]
    promising = high is not None or low is not None or len(set(hole_ranks)) < len(hole_ranks) or _low_cards(view) >= 3
    return passive(view) if promising else cautious(view)


def declare_choice(estimate: PilesEstimate) -> str:
    """High, low or pig: the most of the pot, a pig only when both halves are likely won as a pig must
    win them (outright, unless the house rule counts a tie: then ``pig_wins`` counts ties too)."""
    choice = "high"
    if estimate.declare_low > estimate.declare_high:
        choice = "low"
    best = max(estimate.declare_high, estimate.declare_low)
    if estimate.declare_pig > best and estimate.pig_wins >= PIG_NEEDS * PIG_NEEDS:
        choice = "pig"
    return choice


def worth_continuing(view: HandView, equity: float) -> bool:
    """Whether the expected share of the final pot pays for the call and about half the bets of
    the stages still to come (piles.txt 3.1 stage table: they rise towards the end)."""
    assert view.betting is not None and view.stage is not None
    to_call = view.betting.to_call or 0
    still_in = rivals(view) + 1
    later = sum(view.rules.stage_bets[view.stage :]) / 2 if isinstance(view.rules, PilesRules) else 0
    final_pot = view.pot + to_call + still_in * later
    return equity * final_pot >= to_call + later


def decide(view: HandView, budget: int, rng: Random, reads: TableReads | None = None) -> tuple[Action, PilesEstimate]:
    """The simulating players' choice and the estimate it rests on; ``budget``: hands evaluated
    (each deal evaluates every hand still in, so more rivals mean fewer deals); ``reads``: what the seat has
    seen of the others at this table, used only for the value bet (``betting_plan``; None: the fixed margin)."""
    require_turn(view)
    samples = max(MIN_SAMPLES, stage_budget(view, budget) // (rivals(view) + 1))
    # the estimate models the others the fixed way (no reads); the reads set only the value bet's margin
    estimate = piles_estimate(view, samples, rng)
    if view.phase == "declare":
        return declaration(view, declare_choice(estimate)), estimate
    plan = betting_plan(view, estimate.equity, reads)
    move = aggressive if plan == "value" else passive if plan == "continue" else cautious
    return move(view), estimate


def stage_budget(view: HandView, budget: int) -> int:
    """The hands to evaluate for this decision: the whole budget for the declaration and the
    round of the largest bet, less in proportion for the smaller bets of the early stages
    (piles.txt 3.1 stage table), where less is at stake and more cards are still face down."""
    if view.betting is None or not isinstance(view.rules, PilesRules):
        return budget
    return budget * view.betting.bet_size // max(view.rules.stage_bets)


def betting_plan(view: HandView, equity: float, reads: TableReads | None = None) -> str:
    """ "value" (bet or raise), "continue" (check or call) or "give up" (check or fold), from the
    expected share of the pot. In fixed limit every caller adds a bet of which this hand expects
    its share, so more than a fair share (with a margin for the estimate) is worth betting. The margin is
    for the better hands that call and the worse that fold: against players seen to call nearly every bet
    (``reads``) a bet is called by any hand, and a thinner one pays."""
    if equity >= value_equity(view, reads):
        return "value"
    return "continue" if worth_continuing(view, equity) else "give up"


def value_equity(view: HandView, reads: TableReads | None) -> float:
    """The share of the pot a value bet needs: VALUE_SHARE fair shares (and at least VALUE_FLOOR); down to
    CALLED_SHARE fair shares as the others still in are seen to call more often than players do on the whole
    (the prior of reads.py), since then any hand of theirs pays the bet."""
    fair = 1 / (rivals(view) + 1)
    needed = max(VALUE_SHARE * fair, VALUE_FLOOR)
    if reads is None:
        return needed
    rates = [reads.of(s.seat).call_rate for s in view.seats if s.seat != view.you and s.status == "active"]
    if not rates:
        return needed
    looser = max(0.0, (sum(rates) / len(rates) - PRIOR_CALL) / (1 - PRIOR_CALL))
    return needed - (needed - CALLED_SHARE * fair) * looser


def simulating(budget: int, learns: bool = False) -> Policy:
    """A player that decides from about ``budget`` hands evaluated; one that ``learns`` bets for value more
    thinly the more often the others still in have been seen to call at this table (the reads it is given)."""

    def policy(view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
        return decide(view, budget, rng, reads if learns else None)[0]

    return policy
