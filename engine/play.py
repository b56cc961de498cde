"""What the two state machines (piranha.py, piles.py) do alike.

Both hands are dealt the same way, bet in the same fixed-limit rounds
(betting.py), end in one sealed decision that all seats make at once and that
is opened together (piranha.txt 3.1 the drop, piles.txt 4.1 the declaration),
and show the same per-seat view. A ``Variant`` names what differs in those
shared steps; each variant module keeps its own rules (what is dealt, when the
hand ends, who is paid).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, TypeVar

from . import betting as bet
from .actions import Action
from .cards import check_deck
from .common import check_seats, seat_index
from .errors import EngineError, IllegalAction
from .events import Bet, Check, Decided, DeclareOpen, DropOpen, Event, Fold
from .hand_view import BettingView, HandView, PilesBoard, PiranhaBoard, SeatView
from .outcome import Decision, HighHand, HighLow, Outcome
from .rules import PilesRules, PiranhaRules


@dataclass(frozen=True, slots=True)
class Variant:
    """What differs between the games in the steps they share.

    name: for messages ("Piranha"); game: the state's ``game`` ("piranha");
    sealed: the phase of the sealed decision ("drop" / "declare") and the
    actions it offers; opened: the event logged when the decisions are opened;
    hole_cards: how many each seat is dealt.
    """

    name: str
    game: str
    sealed: str
    sealed_actions: tuple[Action, ...]
    opened: type[DropOpen] | type[DeclareOpen]
    hole_cards: int


class HandState(Protocol):
    """The fields PiranhaState and PilesState share (per-seat tuples indexed like ``seats``)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def rules(self) -> PiranhaRules | PilesRules: ...
    @property
    def seats(self) -> tuple[int, ...]: ...
    @property
    def button(self) -> int: ...
    @property
    def hand_number(self) -> int: ...
    @property
    def carry_pot(self) -> int: ...
    @property
    def hole(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def phase(self) -> str: ...
    @property
    def pot(self) -> int: ...
    @property
    def paid(self) -> tuple[int, ...]: ...
    @property
    def status(self) -> tuple[str, ...]: ...
    @property
    def decisions(self) -> tuple[str, ...]: ...
    @property
    def last_action(self) -> tuple[str, ...]: ...
    @property
    def betting(self) -> bet.Betting | None: ...
    @property
    def events(self) -> tuple[Event, ...]: ...
    @property
    def outcome(self) -> Outcome | None: ...


S = TypeVar("S", bound=HandState)


# ---- the deal -----------------------------------------------------------------------------


def check_new_hand(
    rules: PiranhaRules | PilesRules,
    v: Variant,
    seats: Sequence[int],
    button: int,
    deck: Sequence[str],
    carry_pot: int,
    hand_number: int,
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The seats and the deck of a new hand, checked; raises EngineError on bad input."""
    errors = rules.validate()
    if errors:
        raise EngineError("; ".join(errors))
    seat_t = check_seats(seats, button, rules.min_players, rules.max_players, v.name)
    cards = check_deck(deck)
    if not isinstance(carry_pot, int) or carry_pot < 0 or not isinstance(hand_number, int) or hand_number < 1:
        raise EngineError("The carried pot must be zero or more and the hand number at least 1")
    return seat_t, cards


def deal_hole(v: Variant, cards: Sequence[str], order: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    """Hole cards by seat index: dealt face down one at a time in ``order`` from the top of the deck
    (piranha.txt 2.2, piles.txt 2.1)."""
    n = len(order)
    hole: list[list[str]] = [[] for _ in range(n)]
    for k in range(v.hole_cards * n):
        hole[order[k % n]].append(cards[k])
    return tuple(tuple(h) for h in hole)


# ---- whose decision, and which -------------------------------------------------------------


def to_act(state: HandState, v: Variant) -> tuple[int, ...]:
    """The betting round's actor, or every active seat still undecided in the sealed decision."""
    if state.phase == "betting" and state.betting is not None and state.betting.actor >= 0:
        return (state.seats[state.betting.actor],)
    if state.phase == v.sealed:
        return tuple(
            s for s, st, d in zip(state.seats, state.status, state.decisions, strict=True) if st == "active" and not d
        )
    return ()


def legal_actions(state: HandState, v: Variant, seat: int) -> list[Action]:
    if seat not in to_act(state, v):
        return []
    i = state.seats.index(seat)
    if state.phase == "betting" and state.betting is not None:
        return bet.legal(state.betting, i)
    return list(v.sealed_actions)


def timeout_action(state: HandState, v: Variant, seat: int, sealed_default: Action) -> Action:
    """docs/design.md: check if free, else fold; the sealed decision takes ``sealed_default``.
    Raises IllegalAction when no decision of ``seat`` is awaited."""
    actions = legal_actions(state, v, seat)
    if not actions:
        raise IllegalAction("It is not your turn")
    if state.phase == v.sealed:
        return sealed_default
    return Action("check") if Action("check") in actions else Action("fold")


def acting_index(state: HandState, seat: int, folded: str) -> int:
    """The index of ``seat`` about to act; raises IllegalAction when the hand is over, the seat is
    not dealt in, or it has folded (``folded`` says why)."""
    if state.phase == "over":
        raise IllegalAction("The hand is over")
    i = seat_index(state.seats, seat)
    if state.status[i] == "folded":
        raise IllegalAction(folded)
    return i


# ---- steps ----------------------------------------------------------------------------------


def logged(state: S, events: list[Event]) -> tuple[S, list[Event]]:
    """``state`` with ``events`` appended to its log, and those events."""
    return replace(state, events=state.events + tuple(events)), events


def bet_step(
    state: S, v: Variant, i: int, action: Action, stage: int | None = None
) -> tuple[S, list[Event], list[bool], bet.Betting]:
    """Apply the betting action of seat index ``i``, whose turn it is (the caller checked).

    Returns the state with the chips and the last action recorded (its log not yet
    extended), the new events (with the Piles ``stage``), which seats are still active and
    the round after the action. Raises IllegalAction (betting.act) for a bad bet.
    """
    assert state.betting is not None
    seat = state.seats[i]
    status = list(state.status)
    if action.type == "fold":
        status[i] = "folded"
    active = [s == "active" for s in status]
    b, pay = bet.act(state.betting, i, action, active, v.name)
    events: list[Event] = []
    if action.type == "fold":
        events.append(Fold(seat, stage))
    elif action.type == "check":
        events.append(Check(seat, stage))
    else:
        events.append(Bet(seat, pay, action.type, b.current, stage))
    paid = list(state.paid)
    paid[i] += pay
    last = list(state.last_action)
    last[i] = action.type
    new = replace(
        state, status=tuple(status), paid=tuple(paid), pot=state.pot + pay, last_action=tuple(last), betting=b
    )
    return new, events, active, b


def seal(state: S, v: Variant, i: int, choice: str) -> tuple[S, list[Event], list[int]]:
    """Record the sealed ``choice`` of seat index ``i`` (the caller checked it may make it).

    While another active seat is undecided, returns the state with the ``decided`` event
    logged and no seat opened. When the last one decides, all are opened together: returns
    the state with each opened seat's decision as its last action (the log not yet
    extended), the events (with the ``v.opened`` event) and the opened seat indexes.
    """
    decisions = list(state.decisions)
    decisions[i] = choice
    last = list(state.last_action)
    last[i] = "decided"
    new = replace(state, decisions=tuple(decisions), last_action=tuple(last))
    events: list[Event] = [Decided(state.seats[i])]
    if any(st == "active" and not d for st, d in zip(new.status, new.decisions, strict=True)):
        new, events = logged(new, events)
        return new, events, []
    opened = [j for j, st in enumerate(new.status) if st == "active"]
    decisions_opened = tuple(Decision(new.seats[j], new.decisions[j]) for j in opened)
    events.append(v.opened(decisions_opened))
    new = replace(new, last_action=tuple(new.decisions[j] if j in opened else a for j, a in enumerate(new.last_action)))
    return new, events, opened


# ---- what is shown --------------------------------------------------------------------------


def view(
    state: HandState,
    v: Variant,
    seat: int | None,
    *,
    board: PiranhaBoard | PilesBoard,
    my_hand: Callable[[int], HighHand | HighLow],
    stage: int | None = None,
) -> HandView:
    """What ``seat`` may see (None: spectators); see engine.view.

    ``board``: the board as this variant shows it; ``my_hand(me)``: the best hand so far
    of seat index ``me``; ``stage``: the Piles stage.
    """
    me = state.seats.index(seat) if seat in state.seats else None
    shown: dict[int, tuple[str, ...]] = {}
    if state.outcome is not None:
        shown = {h.seat: h.hole for h in state.outcome.hands}
    seats_out = []
    for j, s in enumerate(state.seats):
        if state.phase == v.sealed and state.status[j] == "active":
            if j == me:
                decision: str | None = state.decisions[j] or "waiting"
            else:
                decision = "decided" if state.decisions[j] else "waiting"
        elif state.phase == "over" and state.decisions[j]:
            decision = state.decisions[j]
        else:
            decision = None
        round_bet = state.betting.contrib[j] if state.betting is not None else 0
        seats_out.append(
            SeatView(
                seat=s,
                status=state.status[j],
                paid=state.paid[j],
                round_bet=round_bet,
                last_action=state.last_action[j] or None,
                decision=decision,
                cards=state.hole[j] if j == me else shown.get(s),
                card_count=v.hole_cards,
            )
        )
    betting_out = None
    if state.betting is not None and state.phase == "betting":
        b = state.betting
        betting_out = BettingView(
            bet_size=b.bet_size,
            current=b.current,
            raises=b.raises,
            max_raises=b.max_raises,
            to_call=(b.current - b.contrib[me]) if me is not None else None,
        )
    return HandView(
        game=v.game,
        hand_number=state.hand_number,
        button=state.button,
        you=seat,
        phase=state.phase,
        stage=stage,
        pot=state.pot,
        carry_pot=state.carry_pot,
        board=board,
        seats=tuple(seats_out),
        my_cards=state.hole[me] if me is not None else None,
        my_hand=my_hand(me) if me is not None else None,
        to_act=to_act(state, v),
        legal_actions=tuple(legal_actions(state, v, seat)) if seat is not None else (),
        betting=betting_out,
        events=state.events,
        result=state.outcome,
        rules=state.rules,
    )
