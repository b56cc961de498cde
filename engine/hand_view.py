"""What one seat (or a spectator) may see of a hand, as typed records, and its JSON form.

``engine.view(state, seat)`` returns a ``HandView``; ``view_to_json`` prints it, the one place the
JSON view sent to sockets, the API and a member's data export is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action, action_to_dict
from .events import Event, event_to_json
from .outcome import HighHand, HighLow, Outcome, result_to_json
from .plain import to_plain
from .rules import PilesRules, PiranhaRules


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it.

    status: "active", "folded" (Piranha after the drop: "in" / "out"). last_action: the seat's last
    action this round or None. decision: while the sealed decision is open, "waiting" or "decided"
    for others and the viewer's own choice for themselves; every choice once the hand is over;
    else None. cards: the viewer's own hole cards, or a hand shown at the showdown, else None.
    """

    seat: int
    status: str
    paid: int
    round_bet: int
    last_action: str | None
    decision: str | None
    cards: tuple[str, ...] | None
    card_count: int


@dataclass(frozen=True, slots=True)
class BettingView:
    """The betting round under way; ``to_call``: what the viewer owes now (None for spectators)."""

    bet_size: int
    current: int
    raises: int
    max_raises: int
    to_call: int | None


@dataclass(frozen=True, slots=True)
class PilesBoard:
    """The three piles of Piles (piles.txt 2.2); a card not yet turned is None."""

    square1: tuple[str | None, ...]
    square2: tuple[str | None, ...]
    row: tuple[str | None, ...]


#: Piranha's board: five cards, None while face down
PiranhaBoard = tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class HandView:
    """What ``you`` (None: a spectator) may see of a hand.

    stage: the last Piles stage turned (None in Piranha). my_cards, my_hand: the viewer's hole
    cards and best hand so far with the cards seen (Piranha: a ``HighHand``; Piles: a ``HighLow``).
    to_act: the seats awaited; legal_actions: the viewer's. events: the public log (no event holds
    a hidden card). result: the outcome once the hand is over.
    """

    game: str
    hand_number: int
    button: int
    you: int | None
    phase: str
    stage: int | None
    pot: int
    carry_pot: int
    board: PiranhaBoard | PilesBoard
    seats: tuple[SeatView, ...]
    my_cards: tuple[str, ...] | None
    my_hand: HighHand | HighLow | None
    to_act: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    betting: BettingView | None
    events: tuple[Event, ...]
    result: Outcome | None
    rules: PiranhaRules | PilesRules

    def seat_view(self, seat: int) -> SeatView | None:
        """The row of ``seat``, or None when it is not dealt in."""
        return next((s for s in self.seats if s.seat == seat), None)

    @property
    def board_cards(self) -> tuple[str | None, ...]:
        """Every shared card, in board order (Piles: square 1, square 2, the row)."""
        if isinstance(self.board, PilesBoard):
            return self.board.square1 + self.board.square2 + self.board.row
        return self.board


def view_to_json(view: HandView) -> dict[str, Any]:
    """The JSON form of a view: game, hand_number, button, you, phase, (Piles: stage), pot, carry_pot,
    board (Piranha: a list of 5, None face down; Piles: {"square1", "square2", "row"}), seats,
    my_cards, my_hand, to_act, legal_actions (action objects), betting, events, result, rules."""
    out: dict[str, Any] = {
        "game": view.game,
        "hand_number": view.hand_number,
        "button": view.button,
        "you": view.you,
        "phase": view.phase,
    }
    if view.stage is not None:
        out["stage"] = view.stage
    out.update(
        {
            "pot": view.pot,
            "carry_pot": view.carry_pot,
            "board": to_plain(view.board),
            "seats": to_plain(view.seats),
            "my_cards": to_plain(view.my_cards),
            "my_hand": to_plain(view.my_hand),
            "to_act": list(view.to_act),
            "legal_actions": [action_to_dict(a) for a in view.legal_actions],
            "betting": to_plain(view.betting),
            "events": [event_to_json(e) for e in view.events],
            "result": result_to_json(view.result) if view.result is not None else None,
            "rules": view.rules.to_dict(),
        }
    )
    return out
