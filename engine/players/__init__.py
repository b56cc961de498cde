"""Computer players: pure policies over what a seat may see.

A player is a function of the hand view of its seat (``engine.view(state, seat)``, a
``HandView``), the house rules and a ``random.Random``; it returns one of the view's legal
actions. It sees what a member at that seat sees, and nothing else: never the deck, never
another seat's hidden cards. Like the rest of the engine it reads no clock and no global random.

Strengths (``PLAYERS``): a beginner that plays its hand's face value by rules of thumb, a solid
player and a strong one that simulate the rest of the hand over the unseen cards (the strong one
with four times the samples, and reading the table: ``reads_from`` the seat's own views of the hands played.
In Piranha it models each opponent by how often it has been seen to stay in, call and bet, and deals it a hand
that fits its checks, bets and calls in this hand's betting round; in Piles it bets
for value more thinly the more often the others have been seen to call). ``RANDOM`` picks any legal action,
the yardstick. ``advise`` says what the strong player would do and why, in one sentence with the equity.

    action = STRONG.act(engine.view(state, seat), rules, random.Random())
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from ..actions import Action
from ..hand_view import HandView
from ..rules import Rules
from . import piles, piranha
from .advice import Advice, advise
from .moves import Policy, random_action
from .reads import TableReads, reads_from


@dataclass(frozen=True, slots=True)
class Player:
    """One computer player: its strength, its name and character (for the pages), and its
    policy in each game."""

    strength: str
    name: str
    character: str
    piranha: Policy
    piles: Policy

    def act(self, view: HandView, rules: Rules, rng: Random, reads: TableReads | None = None) -> Action:
        """One of ``view.legal_actions``; ``reads``: what this seat has seen of the others at this table
        (players/reads.py; only the strong player uses them). Raises IllegalAction when the view offers none."""
        policy = self.piranha if view.game == "piranha" else self.piles
        return policy(view, rules, rng, reads)


BEGINNER = Player(
    strength="beginner",
    name="Pip",
    character="Plays the cards as they lie: a pair of queens looks good, a straight looks great.",
    piranha=piranha.beginner,
    piles=piles.beginner,
)
SOLID = Player(
    strength="solid",
    name="Morgan",
    character="Counts the odds before every chip and sticks to them.",
    piranha=piranha.simulating(piranha.SAMPLES["solid"]),
    piles=piles.simulating(piles.BUDGET["solid"]),
)
STRONG = Player(
    strength="strong",
    name="Ada",
    character="Works out what every card still hidden could do, then plays the pot and the cap.",
    piranha=piranha.simulating(piranha.SAMPLES["strong"], learns=True),
    piles=piles.simulating(piles.BUDGET["strong"], learns=True),
)
RANDOM = Player(
    strength="random",
    name="Dice",
    character="Picks any legal action at random: a yardstick, not an opponent.",
    piranha=random_action,
    piles=random_action,
)

#: the three strengths, weakest first
PLAYERS: tuple[Player, ...] = (BEGINNER, SOLID, STRONG)


def player(strength: str) -> Player:
    """The player of that strength (beginner, solid, strong or random); raises KeyError."""
    found = {p.strength: p for p in (*PLAYERS, RANDOM)}
    return found[strength]


__all__ = [
    "BEGINNER",
    "PLAYERS",
    "RANDOM",
    "SOLID",
    "STRONG",
    "Advice",
    "Player",
    "Policy",
    "TableReads",
    "advise",
    "player",
    "reads_from",
]
