"""Refusals of the games app; every message is fit for a member's eyes (kernel/errors.py)."""

from __future__ import annotations

from kernel.errors import DomainError


class NotSeated(DomainError):
    def __init__(self, message: str = "You are not playing in this hand.") -> None:
        super().__init__(message)


class NotYourTurn(DomainError):
    def __init__(self, message: str = "It is not your turn.") -> None:
        super().__init__(message)


class StaleVersion(DomainError):
    """The action was made against an older state of the hand (a double click, or someone acted first)."""

    def __init__(self, *, current: int | None = None) -> None:
        super().__init__("The table moved on; here is the current state.")
        self.current = current


class IllegalMove(DomainError):
    """The engine refused the action; the message names the rule."""


class RulesFrozen(DomainError):
    pass


class SeatRefused(DomainError):
    pass


class BelowCreditLimit(SeatRefused):
    """The member owes more than the club's credit limit: pages offer the club's Settle up page with it."""


class TableRefused(DomainError):
    pass
