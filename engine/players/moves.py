"""Picking one of the actions a view offers."""

from __future__ import annotations

from random import Random
from typing import Protocol

from ..actions import Action
from ..errors import IllegalAction
from ..hand_view import HandView
from ..rules import Rules
from .reads import TableReads


class Policy(Protocol):
    """A computer player: what it may see of the hand, the house rules, a source of randomness and what
    its seat has seen of the others at this table (None: nothing kept) in, one of the view's legal
    actions out."""

    def __call__(self, view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action: ...


def require_turn(view: HandView) -> None:
    """Raises IllegalAction when the view offers its seat no action."""
    if not view.legal_actions:
        raise IllegalAction("It is not your turn")


def first_legal(view: HandView, *kinds: str) -> Action:
    """The first of the view's legal actions whose type comes first in ``kinds``; else the last
    legal action (a fold, when betting). Raises IllegalAction when the view offers none."""
    require_turn(view)
    for kind in kinds:
        for action in view.legal_actions:
            if action.type == kind:
                return action
    return view.legal_actions[-1]


def aggressive(view: HandView) -> Action:
    """Bet or raise when allowed, else call or check."""
    return first_legal(view, "raise", "bet", "call", "check")


def passive(view: HandView) -> Action:
    """Call or check."""
    return first_legal(view, "check", "call")


def cautious(view: HandView) -> Action:
    """Check when it is free, else fold."""
    return first_legal(view, "check", "fold")


def declaration(view: HandView, choice: str) -> Action:
    """The sealed Piles declaration ``choice`` (high, low or pig) among the view's actions."""
    for action in view.legal_actions:
        if action.type == "declare" and action.choice == choice:
            return action
    raise IllegalAction("Piles: you declare after the ninth betting round")


def random_action(view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
    """Any legal action, each as likely: the yardstick the players are measured against."""
    require_turn(view)
    return rng.choice(view.legal_actions)
