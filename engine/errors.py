"""Errors raised by the rules engine; every message is fit for a member's eyes."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises."""


class IllegalAction(EngineError):
    """An action the rules do not allow now; the message names the rule broken."""


class CardError(EngineError, ValueError):
    """A card or a list of cards could not be read, or repeats a card."""
