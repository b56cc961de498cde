"""The rules engine: a pure library (no Django, no I/O, no clock, no global random).

Public API (others code against these names):

cards       Card, parse_cards, format_cards, shuffled_deck, deck_commitment,
            new_salt, verify_commitment (the whole-deck commitment of older hands)
commitment  merkle_root, cut_order, deck_dealt, is_cut_value, the signed cut (cut_message,
            rsa_signature_holds, cut_of_signature, device_fingerprint), deal_layout, openings, Opening, verify_opening, opened_positions, check_salts, leaf_hex
            (one salted leaf per deck position; the encoding is in verify.py)
evaluation  HandValue, LowValue, piranha_best, piles_best_high, piles_best_low
rules       PiranhaRules, PilesRules (to_dict/from_dict/validate), rules_from_dict
play        new_hand, legal_actions, apply, to_act, is_sealed, sealed_actions, timeout_action, view, is_over,
            result, replay, state_to_json, state_from_json
actions     Action, ActionKind, action_to_dict, action_from_dict
events      Event (one record per kind: Deal, Ante, Blind, Turn, Check, Fold, Bet, Decided,
            DropOpen, DeclareOpen, Showdown, Award, MatchPayment, Carry), event_to_json,
            event_from_json, PAY_KINDS
plain       the one JSON reader and printer of the records (state_to_json, state_from_json use it)
hand_view   HandView (SeatView, BettingView, PilesBoard), view_to_json
outcome     Outcome (PiranhaOutcome, PilesOutcome: Payout, PiranhaShown, PilesShown, HighHand,
            LowHand, HighLow, Decision), result_to_json
errors      EngineError, IllegalAction, CardError

Every play function dispatches on ``state.game`` ("piranha" or "piles") to
the module of that variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import piles as _piles
from . import piranha as _piranha
from .actions import Action, ActionKind, action_from_dict, action_to_dict
from .cards import (
    Card,
    deck_commitment,
    format_cards,
    new_salt,
    parse_cards,
    shuffled_deck,
    verify_commitment,
)
from .commitment import (
    SCHEME_CUT,
    SCHEME_CUT_V2,
    SCHEME_DECK,
    SCHEME_MERKLE,
    SCHEMES_CUT,
    Opening,
    check_salts,
    cut_message,
    cut_of_signature,
    cut_order,
    deal_layout,
    deck_dealt,
    device_fingerprint,
    is_cut_value,
    is_device_modulus,
    leaf_hex,
    merkle_root,
    openings,
    rsa_signature_holds,
    short_fingerprint,
    verify_opening,
)
from .commitment import positions_shown as _positions_shown
from .errors import CardError, EngineError, IllegalAction
from .evaluate import HandValue, LowValue, piles_best_high, piles_best_low, piranha_best
from .events import (
    PAY_KINDS,
    Ante,
    Award,
    Bet,
    Blind,
    Carry,
    Check,
    Deal,
    Decided,
    DeclareOpen,
    DropOpen,
    Event,
    Fold,
    MatchPayment,
    Showdown,
    Turn,
    event_from_json,
    event_to_json,
)
from .hand_view import BettingView, HandView, PilesBoard, SeatView, view_to_json
from .outcome import (
    Decision,
    HighHand,
    HighLow,
    LowHand,
    Outcome,
    Payout,
    PilesOutcome,
    PilesShown,
    PiranhaOutcome,
    PiranhaShown,
    ShownHand,
    result_to_json,
)
from .piles import PilesState
from .piranha import PiranhaState
from .plain import from_plain, to_plain
from .rules import PilesRules, PiranhaRules, Rules, rules_from_dict

State = PiranhaState | PilesState


def _module(state: State) -> Any:
    if isinstance(state, PiranhaState):
        return _piranha
    if isinstance(state, PilesState):
        return _piles
    raise EngineError("Not a hand state")


def new_hand(
    rules: Rules, *, seats: Sequence[int], button: int, deck: Sequence[str], carry_pot: int = 0, hand_number: int = 1
) -> tuple[State, list[Event]]:
    """Deal a hand and post the forced bets; return the state and the events so far.

    ``seats``: seat numbers dealt in, clockwise; ``button``: the dealer's seat;
    ``deck``: 52 card codes in deal order (from ``shuffled_deck``);
    ``carry_pot``: chips already in the table pot from the previous hand;
    ``hand_number``: 1 for a game's first hand. Raises EngineError on bad input.
    """
    if isinstance(rules, PiranhaRules):
        return _piranha.new_hand(
            rules, seats=seats, button=button, deck=deck, carry_pot=carry_pot, hand_number=hand_number
        )
    if isinstance(rules, PilesRules):
        return _piles.new_hand(
            rules, seats=seats, button=button, deck=deck, carry_pot=carry_pot, hand_number=hand_number
        )
    raise EngineError("Unknown rules")


def legal_actions(state: State, seat: int) -> list[Action]:
    """The actions ``seat`` may take now; empty when it is not that seat's decision."""
    actions: list[Action] = _module(state).legal_actions(state, seat)
    return actions


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """Apply one action of ``seat``; return the new state and the new events.

    Raises IllegalAction (an EngineError) whose message names the rule broken.
    """
    if not isinstance(action, Action):
        raise IllegalAction("Not an action")
    out: tuple[State, list[Event]] = _module(state).apply(state, seat, action)
    return out


def to_act(state: State) -> tuple[int, ...]:
    """Seats whose decision is awaited now (one in a betting round, every undecided seat
    in a sealed drop or declaration); empty when the hand is over."""
    seats: tuple[int, ...] = _module(state).to_act(state)
    return seats


def is_sealed(state: State) -> bool:
    """Whether the hand is in its sealed decision (Piranha's drop, Piles' declaration), which every
    undecided seat makes at once."""
    return bool(state.phase == _module(state).VARIANT.sealed)


def sealed_actions(state: State) -> tuple[Action, ...]:
    """The choices of the hand's sealed decision (whatever the phase now)."""
    choices: tuple[Action, ...] = _module(state).VARIANT.sealed_actions
    return choices


def timeout_action(state: State, seat: int) -> Action:
    """The default action when ``seat``'s clock runs out (docs/design.md): check if free, else fold;
    a Piranha drop -> out; a Piles declaration -> fold (rules.declare_timeout "high" -> high).
    Raises IllegalAction when no decision of that seat is awaited."""
    action: Action = _module(state).timeout_action(state, seat)
    return action


def view(state: State, seat: int | None) -> HandView:
    """What ``seat`` may see; ``None`` is the public (spectator) view.

    game, hand_number, button, you, phase, stage (Piles; None in Piranha), pot, carry_pot,
    board (Piranha: 5 cards, None = face down; Piles: a ``PilesBoard``), seats (a ``SeatView``
    each: status, paid, round_bet, last_action, decision ("waiting"/"decided" for others while
    sealed; own choice; all choices once opened), cards (own, or shown at showdown, else None),
    card_count), my_cards, my_hand (best hand so far with the cards seen), to_act, legal_actions,
    betting (a ``BettingView`` or None), events (the public log: no event holds a hidden card),
    result (see ``result``) and rules. ``view_to_json`` prints it.
    """
    seen: HandView = _module(state).view(state, seat)
    return seen


def opened_positions(state: State, seat: int | None = None) -> tuple[int, ...]:
    """The deck positions whose openings ``seat`` may have (None: everyone who may see the hand).

    Exactly the cards ``view(state, seat)`` shows: the board turned and the hands shown at a
    showdown, plus the seat's own hole cards. A dropped or folded hand is never among them.
    """
    seen = view(state, seat)
    return _positions_shown(state.deck, [*seen.board_cards, *(c for s in seen.seats for c in s.cards or ())])


def is_over(state: State) -> bool:
    return state.phase == "over"


def result(state: State) -> Outcome | None:
    """None until over; then the outcome: pot, reason, winners, payouts (``Payout``s), hands
    (shown), next_pot, game_over and ``game``. Piranha adds match_payments; Piles adds
    high_winners, low_winners, failed_pigs. ``result_to_json`` prints it."""
    outcome: Outcome | None = _module(state).result(state)
    return outcome


def state_to_json(state: State) -> dict[str, Any]:
    """The state as JSON-ready plain data (dicts, lists, strs, ints, bools, None)."""
    data: dict[str, Any] = to_plain(state)
    return data


def state_from_json(data: Mapping[str, Any]) -> State:
    """The inverse of ``state_to_json``; raises EngineError on malformed data."""
    game = data.get("game") if isinstance(data, Mapping) else None
    if game == "piranha":
        state: State = from_plain(PiranhaState, data)
    elif game == "piles":
        state = from_plain(PilesState, data)
    else:
        raise EngineError("State must name its game: piranha or piles")
    return state


def replay(
    rules: Rules,
    *,
    seats: Sequence[int],
    button: int,
    deck: Sequence[str],
    carry_pot: int = 0,
    hand_number: int = 1,
    log: Sequence[tuple[int, Action]] = (),
) -> State:
    """Rebuild a hand from its deal and action log (timeouts included as the actions
    applied); equals the stored state. Raises IllegalAction if the log does not fit."""
    state, _ = new_hand(rules, seats=seats, button=button, deck=deck, carry_pot=carry_pot, hand_number=hand_number)
    for seat, action in log:
        state, _ = apply(state, seat, action)
    return state


__all__ = [
    "PAY_KINDS",
    "Ante",
    "Award",
    "Bet",
    "BettingView",
    "Blind",
    "Carry",
    "Check",
    "Deal",
    "Decided",
    "Decision",
    "DeclareOpen",
    "DropOpen",
    "Fold",
    "HandView",
    "HighHand",
    "HighLow",
    "LowHand",
    "MatchPayment",
    "Outcome",
    "Payout",
    "PilesBoard",
    "PilesOutcome",
    "PilesShown",
    "PiranhaOutcome",
    "PiranhaShown",
    "SeatView",
    "Showdown",
    "ShownHand",
    "Turn",
    "event_from_json",
    "event_to_json",
    "result_to_json",
    "view_to_json",
    "SCHEME_CUT",
    "SCHEME_CUT_V2",
    "SCHEME_DECK",
    "SCHEME_MERKLE",
    "SCHEMES_CUT",
    "cut_message",
    "cut_of_signature",
    "cut_order",
    "deal_layout",
    "deck_dealt",
    "device_fingerprint",
    "is_cut_value",
    "is_device_modulus",
    "rsa_signature_holds",
    "short_fingerprint",
    "Action",
    "ActionKind",
    "Card",
    "CardError",
    "EngineError",
    "Event",
    "HandValue",
    "IllegalAction",
    "LowValue",
    "Opening",
    "PilesRules",
    "PilesState",
    "PiranhaState",
    "PiranhaRules",
    "Rules",
    "State",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "deck_commitment",
    "format_cards",
    "is_over",
    "is_sealed",
    "sealed_actions",
    "legal_actions",
    "new_hand",
    "new_salt",
    "parse_cards",
    "piles_best_high",
    "piles_best_low",
    "piranha_best",
    "replay",
    "result",
    "rules_from_dict",
    "shuffled_deck",
    "state_from_json",
    "state_to_json",
    "timeout_action",
    "to_act",
    "verify_commitment",
    "view",
    "check_salts",
    "leaf_hex",
    "merkle_root",
    "openings",
    "opened_positions",
    "verify_opening",
]
