"""Piranha as a state machine (piranha.txt, DESIGN.md "Piranha").

Phases: "betting" (only with the house rule betting_round) -> "drop" -> "over".

Deal (piranha.txt 2.2): four hole cards each, dealt one at a time clockwise
from the seat after the button, from the top of the deck; then the five
board cards; the first three are turned face up at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import betting as bet
from .actions import Action
from .cards import card, check_deck
from .common import check_seats, clockwise_from_button, first_after_button, seat_index, split
from .errors import EngineError, IllegalAction
from .evaluate import HandValue, piranha_best
from .events import Event, event
from .rules import PiranhaRules

GAME = "Piranha"


@dataclass(frozen=True, slots=True)
class PiranhaState:
    """One hand of Piranha. Per-seat tuples are indexed like ``seats`` (clockwise).

    status: "active" (dealt in, not out yet), "folded" (folded in the betting
    round, which is dropping out), then after the drop is opened "in" or "out".
    decisions: the sealed drop, "" while waiting, else "in" / "out".
    paid: chips each seat put into the pot this hand (antes, bets, match payments).
    outcome: the result once the hand is over (see ``result``).
    """

    rules: PiranhaRules
    seats: tuple[int, ...]
    button: int
    deck: tuple[str, ...]
    hand_number: int
    carry_pot: int
    hole: tuple[tuple[str, ...], ...]
    board: tuple[str, ...]
    board_up: int
    phase: str
    pot: int
    paid: tuple[int, ...]
    status: tuple[str, ...]
    decisions: tuple[str, ...]
    last_action: tuple[str, ...]
    betting: bet.Betting | None
    events: tuple[Event, ...]
    outcome: Mapping[str, Any] | None
    game: str = "piranha"


def new_hand(rules: PiranhaRules, *, seats: Sequence[int], button: int, deck: Sequence[str],
             carry_pot: int = 0, hand_number: int = 1) -> tuple[PiranhaState, list[Event]]:
    """Deal, ante and turn the three face-up board cards; return the state and those events."""
    errors = rules.validate()
    if errors:
        raise EngineError("; ".join(errors))
    seat_t = check_seats(seats, button, rules.min_players, rules.max_players, GAME)
    cards = check_deck(deck)
    if not isinstance(carry_pot, int) or carry_pot < 0 or not isinstance(hand_number, int) or hand_number < 1:
        raise EngineError("The carried pot must be zero or more and the hand number at least 1")
    n = len(seat_t)
    order = clockwise_from_button(seat_t, button)
    hole: list[list[str]] = [[] for _ in range(n)]
    for k in range(4 * n):  # piranha.txt 2.2: four cards face down to each player
        hole[order[k % n]].append(cards[k])
    board = cards[4 * n: 4 * n + 5]  # piranha.txt 2.2: then five community cards
    events = [event("deal", game="piranha", hand_number=hand_number, button=button,
                    seats=list(seat_t), hole_cards=4, board_cards=5)]
    paid = [0] * n
    # piranha.txt 2.1: each player antes; DESIGN.md option: first hand of a game only
    if rules.ante and (rules.ante_each_hand or hand_number == 1):
        for i in order:
            paid[i] = rules.ante
            events.append(event("ante", seat_t[i], rules.ante))
    events.append(event("turn", cards=list(board[:3]), where="board", positions=[0, 1, 2]))  # 2.2: three up
    status = ("active",) * n
    betting = None
    phase = "drop"
    if rules.betting_round:  # piranha.txt 3.4, DESIGN.md: one fixed-limit round before the drop
        phase = "betting"
        betting = bet.open_round([True] * n, first_after_button(seat_t, button), rules.bet_size,
                                 rules.max_raises)
    state = PiranhaState(
        rules=rules, seats=seat_t, button=button, deck=cards, hand_number=hand_number,
        carry_pot=carry_pot, hole=tuple(tuple(h) for h in hole), board=board, board_up=3,
        phase=phase, pot=carry_pot + sum(paid), paid=tuple(paid), status=status,
        decisions=("",) * n, last_action=("",) * n, betting=betting, events=tuple(events),
        outcome=None)
    return state, events


def to_act(state: PiranhaState) -> tuple[int, ...]:
    if state.phase == "betting" and state.betting is not None and state.betting.actor >= 0:
        return (state.seats[state.betting.actor],)
    if state.phase == "drop":
        return tuple(s for s, st, d in zip(state.seats, state.status, state.decisions, strict=True)
                     if st == "active" and not d)
    return ()


def legal_actions(state: PiranhaState, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    i = state.seats.index(seat)
    if state.phase == "betting" and state.betting is not None:
        return bet.legal(state.betting, i)
    return [Action("in"), Action("out")]


def timeout_action(state: PiranhaState, seat: int) -> Action:
    """DESIGN.md: check if free, else fold; a sealed drop defaults to out."""
    actions = legal_actions(state, seat)
    if not actions:
        raise IllegalAction("It is not your turn")
    if state.phase == "drop":
        return Action("out")
    return Action("check") if Action("check") in actions else Action("fold")


def apply(state: PiranhaState, seat: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    if state.phase == "over":
        raise IllegalAction("The hand is over")
    i = seat_index(state.seats, seat)
    if state.status[i] == "folded":
        raise IllegalAction("You have folded: folding in the betting round is dropping out")
    if state.phase == "betting":
        return _apply_betting(state, i, action)
    return _apply_drop(state, i, action)


def _apply_betting(state: PiranhaState, i: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    assert state.betting is not None
    if state.betting.actor != i:
        raise IllegalAction("It is not your turn")
    if action.type in ("in", "out", "declare"):
        raise IllegalAction("Piranha: the drop comes after the betting round")
    seat = state.seats[i]
    status = list(state.status)
    if action.type == "fold":
        status[i] = "folded"  # DESIGN.md: folding in the betting round is dropping out
    active = [s == "active" for s in status]
    b, pay = bet.act(state.betting, i, action, active, GAME)
    events: list[Event] = []
    if action.type == "fold":
        events.append(event("fold", seat))
    elif action.type == "check":
        events.append(event("check", seat))
    else:
        events.append(event("bet", seat, pay, action=action.type, to=b.current))
    paid = list(state.paid)
    paid[i] += pay
    last = list(state.last_action)
    last[i] = action.type
    new = replace(state, status=tuple(status), paid=tuple(paid), pot=state.pot + pay,
                  last_action=tuple(last), betting=b)
    if sum(active) == 1:
        # All but one folded: the last player is the only one in (piranha.txt 3.3).
        return _finish(new, events, [active.index(True)])
    if b.actor == -1:
        new = replace(new, phase="drop", betting=None)
    return replace(new, events=new.events + tuple(events)), events


def _apply_drop(state: PiranhaState, i: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    seat = state.seats[i]
    if state.decisions[i]:
        raise IllegalAction("You have already decided: the hands are opened together")
    if action.type not in ("in", "out"):
        raise IllegalAction("Piranha: at the drop you are either in or out")
    decisions = list(state.decisions)
    decisions[i] = action.type
    last = list(state.last_action)
    last[i] = "decided"
    new = replace(state, decisions=tuple(decisions), last_action=tuple(last))
    events = [event("decided", seat)]
    waiting = [j for j, st in enumerate(new.status) if st == "active" and not new.decisions[j]]
    if waiting:
        return replace(new, events=new.events + tuple(events)), events
    # piranha.txt 3.1: all players open their hands at the same time
    opened = [j for j, st in enumerate(new.status) if st == "active"]
    events.append(event("drop_open", decisions=[{"seat": new.seats[j], "decision": new.decisions[j]}
                                                for j in opened]))
    status = list(new.status)
    for j in opened:
        status[j] = new.decisions[j]
    new = replace(new, status=tuple(status), last_action=tuple(
        new.decisions[j] if j in opened else a for j, a in enumerate(new.last_action)))
    ins = [j for j in opened if new.decisions[j] == "in"]
    return _finish(new, events, ins)


def _finish(state: PiranhaState, events: list[Event], ins: list[int]) -> tuple[PiranhaState, list[Event]]:
    """Settle the hand once the players in are known."""
    order = clockwise_from_button(state.seats, state.button)
    seats = state.seats
    pot = state.pot
    paid = list(state.paid)
    outcome: dict[str, Any] = {"pot": pot, "winners": [], "payouts": [], "match_payments": [],
                               "hands": [], "next_pot": 0, "game_over": False}
    board_up = state.board_up
    if not ins:
        if state.rules.nobody_in == "split":
            # DESIGN.md option: the game ends and the pot is split among those dealt in
            shares = split(pot, list(range(len(seats))), order)
            outcome.update(reason="nobody_in_split", game_over=True,
                           winners=[seats[j] for j in order])
            for j in order:
                if shares[j]:
                    events.append(event("award", seats[j], shares[j], share="split"))
            outcome["payouts"] = [{"seat": seats[j], "amount": shares[j]} for j in order if shares[j]]
        else:
            # DESIGN.md: nobody in, the pot carries to a fresh deal (piranha.txt 3.4)
            events.append(event("carry", None, pot))
            outcome.update(reason="nobody_in_carry", next_pot=pot)
    elif len(ins) == 1:
        # piranha.txt 3.3: the one player in wins uncontested, and the game ends
        j = ins[0]
        events.append(event("award", seats[j], pot, share="pot"))
        outcome.update(reason="uncontested", game_over=True, winners=[seats[j]],
                       payouts=[{"seat": seats[j], "amount": pot}])
    else:
        # piranha.txt 4.1: the dealer turns up the last two community cards
        board_up = 5
        events.append(event("turn", cards=list(state.board[3:]), where="board", positions=[3, 4]))
        board = [card(c) for c in state.board]
        values: dict[int, HandValue] = {j: piranha_best([card(c) for c in state.hole[j]], board) for j in ins}
        hands = [{"seat": seats[j], "hole": list(state.hole[j]), "name": values[j].name,
                  "full_name": values[j].full_name, "cards": [c.code for c in values[j].cards]}
                 for j in order if j in values]
        events.append(event("showdown", hands=hands))
        best = max(values.values())
        winners = [j for j in order if j in values and values[j] == best]  # piranha.txt 4.2
        shares = split(pot, winners, order)
        for j in winners:
            events.append(event("award", seats[j], shares[j], share="pot", hand=values[j].name))
        cap = state.rules.match_cap
        each = pot if cap is None else min(pot, cap)  # piranha.txt 4.3: up to any agreed maximum
        payments = []
        for j in order:
            if j in values and j not in winners and each:
                paid[j] += each
                events.append(event("match_payment", seats[j], each))
                payments.append({"seat": seats[j], "amount": each})
        outcome.update(reason="showdown", winners=[seats[j] for j in winners], hands=hands,
                       payouts=[{"seat": seats[j], "amount": shares[j]} for j in winners],
                       match_payments=payments, next_pot=sum(p["amount"] for p in payments))
    new = replace(state, phase="over", betting=None, board_up=board_up, paid=tuple(paid),
                  events=state.events + tuple(events), outcome=outcome)
    return new, events


def result(state: PiranhaState) -> dict[str, Any] | None:
    """When over: pot, winners, payouts, match_payments, hands shown, next_pot, game_over, reason."""
    if state.outcome is None:
        return None
    return {"game": "piranha", **_copy(state.outcome)}


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value


def view(state: PiranhaState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (None: spectators). See games.engine.view for the shape."""
    me = state.seats.index(seat) if seat in state.seats else None
    shown: dict[int, list[str]] = {}
    if state.outcome is not None:
        shown = {h["seat"]: list(h["hole"]) for h in state.outcome.get("hands", [])}
    opened = state.phase == "over"
    seats_out = []
    for j, s in enumerate(state.seats):
        if state.status[j] == "active" and state.phase == "drop":
            if j == me:
                decision: str | None = state.decisions[j] or "waiting"
            else:
                decision = "decided" if state.decisions[j] else "waiting"
        elif opened and state.decisions[j]:
            decision = state.decisions[j]
        else:
            decision = None
        round_bet = state.betting.contrib[j] if state.betting is not None else 0
        seats_out.append({
            "seat": s, "status": state.status[j], "paid": state.paid[j], "round_bet": round_bet,
            "last_action": state.last_action[j] or None, "decision": decision,
            "cards": list(state.hole[j]) if j == me else shown.get(s), "card_count": 4,
        })
    board: list[str | None] = [c if k < state.board_up else None for k, c in enumerate(state.board)]
    my_cards = list(state.hole[me]) if me is not None else None
    my_hand = None
    if me is not None:
        value = piranha_best([card(c) for c in state.hole[me]], [card(c) for c in state.board[:state.board_up]])
        my_hand = {"name": value.name, "full_name": value.full_name, "cards": [c.code for c in value.cards]}
    betting_out = None
    if state.betting is not None and state.phase == "betting":
        b = state.betting
        betting_out = {"bet_size": b.bet_size, "current": b.current, "raises": b.raises,
                       "max_raises": b.max_raises,
                       "to_call": (b.current - b.contrib[me]) if me is not None else None}
    return {
        "game": "piranha", "hand_number": state.hand_number, "button": state.button, "you": seat,
        "phase": state.phase, "pot": state.pot, "carry_pot": state.carry_pot,
        "board": board, "seats": seats_out, "my_cards": my_cards, "my_hand": my_hand,
        "to_act": list(to_act(state)),
        "legal_actions": [a.to_dict() for a in legal_actions(state, seat)] if seat is not None else [],
        "betting": betting_out, "events": [e.to_dict() for e in state.events],
        "result": result(state), "rules": state.rules.to_dict(),
    }
