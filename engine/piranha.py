"""Piranha as a state machine (piranha.txt, docs/design.md "Piranha").

Phases: "betting" (only with the house rule betting_round) -> "drop" -> "over".

Deal (piranha.txt 2.2): four hole cards each, dealt one at a time clockwise
from the seat after the button, from the top of the deck; then the five
board cards; the first three are turned face up at once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from . import betting as bet
from . import play
from .actions import Action
from .cards import card
from .common import carry_within_limit, clockwise_from_button, first_after_button, match_within_limit, split
from .errors import IllegalAction
from .evaluate import HandValue, piranha_best
from .events import Ante, Award, Carry, Deal, DropOpen, Event, MatchPayment, Showdown, Turn
from .hand_view import HandView
from .outcome import HighHand, Payout, PiranhaOutcome, PiranhaShown
from .rules import PiranhaRules

GAME = "Piranha"
VARIANT = play.Variant(
    name=GAME,
    game="piranha",
    sealed="drop",
    sealed_actions=(Action("in"), Action("out")),
    opened=DropOpen,
    hole_cards=4,
)


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
    outcome: PiranhaOutcome | None
    game: str = "piranha"


def new_hand(
    rules: PiranhaRules,
    *,
    seats: Sequence[int],
    button: int,
    deck: Sequence[str],
    carry_pot: int = 0,
    hand_number: int = 1,
) -> tuple[PiranhaState, list[Event]]:
    """Deal, ante and turn the three face-up board cards; return the state and those events."""
    seat_t, cards = play.check_new_hand(rules, VARIANT, seats, button, deck, carry_pot, hand_number)
    n = len(seat_t)
    order = clockwise_from_button(seat_t, button)
    hole = play.deal_hole(VARIANT, cards, order)  # piranha.txt 2.2: four cards face down to each player
    board = cards[4 * n : 4 * n + 5]  # piranha.txt 2.2: then five community cards
    events: list[Event] = [
        Deal(game="piranha", hand_number=hand_number, button=button, seats=seat_t, hole_cards=4, board_cards=5)
    ]
    paid = [0] * n
    # piranha.txt 2.1: each player antes; docs/design.md option: first hand of a game only
    if rules.ante and (rules.ante_each_hand or hand_number == 1):
        for i in order:
            paid[i] = rules.ante
            events.append(Ante(seat_t[i], rules.ante))
    events.append(Turn(cards=board[:3], where="board", positions=(0, 1, 2)))  # 2.2: three up
    status = ("active",) * n
    betting = None
    phase = "drop"
    if rules.betting_round:  # piranha.txt 3.4, docs/design.md: one fixed-limit round before the drop
        phase = "betting"
        betting = bet.open_round([True] * n, first_after_button(seat_t, button), rules.bet_size, rules.max_raises)
    state = PiranhaState(
        rules=rules,
        seats=seat_t,
        button=button,
        deck=cards,
        hand_number=hand_number,
        carry_pot=carry_pot,
        hole=hole,
        board=board,
        board_up=3,
        phase=phase,
        pot=carry_pot + sum(paid),
        paid=tuple(paid),
        status=status,
        decisions=("",) * n,
        last_action=("",) * n,
        betting=betting,
        events=tuple(events),
        outcome=None,
    )
    return state, events


def to_act(state: PiranhaState) -> tuple[int, ...]:
    return play.to_act(state, VARIANT)


def legal_actions(state: PiranhaState, seat: int) -> list[Action]:
    return play.legal_actions(state, VARIANT, seat)


def timeout_action(state: PiranhaState, seat: int) -> Action:
    """docs/design.md: check if free, else fold; a sealed drop defaults to out."""
    return play.timeout_action(state, VARIANT, seat, Action("out"))


def apply(state: PiranhaState, seat: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    i = play.acting_index(state, seat, "You have folded: folding in the betting round is dropping out")
    if state.phase == "betting":
        return _apply_betting(state, i, action)
    return _apply_drop(state, i, action)


def _apply_betting(state: PiranhaState, i: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    assert state.betting is not None
    if state.betting.actor != i:
        raise IllegalAction("It is not your turn")
    if action.type in ("in", "out", "declare"):
        raise IllegalAction("Piranha: the drop comes after the betting round")
    # docs/design.md: folding in the betting round is dropping out
    new, events, active, b = play.bet_step(state, VARIANT, i, action)
    if sum(active) == 1:
        # All but one folded: the last player is the only one in (piranha.txt 3.3).
        return _finish(new, events, [active.index(True)])
    if b.actor == -1:
        new = replace(new, phase="drop", betting=None)
    return play.logged(new, events)


def _apply_drop(state: PiranhaState, i: int, action: Action) -> tuple[PiranhaState, list[Event]]:
    if state.decisions[i]:
        raise IllegalAction("You have already decided: the hands are opened together")
    if action.type not in ("in", "out"):
        raise IllegalAction("Piranha: at the drop you are either in or out")
    # piranha.txt 3.1: all players open their hands at the same time
    new, events, opened = play.seal(state, VARIANT, i, action.type)
    if not opened:
        return new, events
    status = list(new.status)
    for j in opened:
        status[j] = new.decisions[j]
    new = replace(new, status=tuple(status))
    ins = [j for j in opened if new.decisions[j] == "in"]
    return _finish(new, events, ins)


def _finish(state: PiranhaState, events: list[Event], ins: list[int]) -> tuple[PiranhaState, list[Event]]:
    """Settle the hand once the players in are known."""
    order = clockwise_from_button(state.seats, state.button)
    paid = list(state.paid)
    board_up = state.board_up
    if not ins:
        outcome = _nobody_in(state, events, order)
    elif len(ins) == 1:
        outcome = _uncontested(state, events, ins[0])
    else:
        board_up = 5  # piranha.txt 4.1: the showdown turns up the last two community cards
        outcome = _showdown(state, events, ins, order, paid)
    new = replace(
        state,
        phase="over",
        betting=None,
        board_up=board_up,
        paid=tuple(paid),
        events=state.events + tuple(events),
        outcome=outcome,
    )
    return new, events


def _nobody_in(state: PiranhaState, events: list[Event], order: list[int]) -> PiranhaOutcome:
    """Nobody stayed in: the pot is split and the game ends, or it carries to a fresh deal (the rules' choice)."""
    seats, pot = state.seats, state.pot
    if state.rules.nobody_in == "split":
        # docs/design.md option: the game ends and the pot is split among those dealt in
        shares = split(pot, list(range(len(seats))), order)
        for j in order:
            if shares[j]:
                events.append(Award(seats[j], shares[j], "split"))
        return _outcome(
            pot,
            reason="nobody_in_split",
            game_over=True,
            winners=[seats[j] for j in order],
            payouts=[Payout(seats[j], shares[j]) for j in order if shares[j]],
        )
    # docs/design.md: nobody in, the pot carries to a fresh deal (piranha.txt 3.4), up to the
    # pot limit; what is over it goes back to those dealt in (docs/hands-and-data.md "Pot limit")
    carried, over = carry_within_limit(pot, list(range(len(seats))), order)
    for j in order:
        if over.get(j):
            events.append(Award(seats[j], over[j], "over_limit"))
    events.append(Carry(carried))
    return _outcome(
        pot,
        reason="nobody_in_carry",
        next_pot=carried,
        payouts=[Payout(seats[j], over[j]) for j in order if over.get(j)],
    )


def _uncontested(state: PiranhaState, events: list[Event], j: int) -> PiranhaOutcome:
    """piranha.txt 3.3: the one player in (index ``j``) wins uncontested, and the game ends."""
    seat, pot = state.seats[j], state.pot
    if pot:  # no chip event moves zero cents
        events.append(Award(seat, pot, "pot"))
    return _outcome(
        pot, reason="uncontested", game_over=True, winners=[seat], payouts=[Payout(seat, pot)] if pot else []
    )


def _showdown(
    state: PiranhaState, events: list[Event], ins: list[int], order: list[int], paid: list[int]
) -> PiranhaOutcome:
    """Two or more in: the last two community cards turn up, the best hand wins the pot, and each loser
    matches it into the next hand's pot (added to ``paid``)."""
    seats, pot = state.seats, state.pot
    # piranha.txt 4.1: the dealer turns up the last two community cards
    events.append(Turn(cards=state.board[3:], where="board", positions=(3, 4)))
    board = [card(c) for c in state.board]
    values: dict[int, HandValue] = {j: piranha_best([card(c) for c in state.hole[j]], board) for j in ins}
    hands = [
        PiranhaShown(
            seat=seats[j],
            hole=state.hole[j],
            name=values[j].name,
            full_name=values[j].full_name,
            cards=tuple(c.code for c in values[j].cards),
        )
        for j in order
        if j in values
    ]
    events.append(Showdown(tuple(hands)))
    best = max(values.values())
    winners = [j for j in order if j in values and values[j] == best]  # piranha.txt 4.2
    shares = split(pot, winners, order)
    for j in winners:
        if shares[j]:  # no chip event moves zero cents
            events.append(Award(seats[j], shares[j], "pot", hand=values[j].name))
    losers = [j for j in order if j in values and j not in winners]
    # piranha.txt 4.3: up to any agreed maximum, and within the pot limit (docs/hands-and-data.md "Pot limit")
    each = match_within_limit(pot, state.rules.match_cap, len(losers))
    payments = []
    for j in order:
        if j in values and j not in winners and each:
            paid[j] += each
            events.append(MatchPayment(seats[j], each))
            payments.append(Payout(seats[j], each))
    return _outcome(
        pot,
        reason="showdown",
        winners=[seats[j] for j in winners],
        hands=hands,
        payouts=[Payout(seats[j], shares[j]) for j in winners if shares[j]],
        match_payments=payments,
        next_pot=sum(p.amount for p in payments),
    )


def _outcome(
    pot: int,
    *,
    reason: str,
    winners: Sequence[int] = (),
    payouts: Sequence[Payout] = (),
    match_payments: Sequence[Payout] = (),
    hands: Sequence[PiranhaShown] = (),
    next_pot: int = 0,
    game_over: bool = False,
) -> PiranhaOutcome:
    return PiranhaOutcome(
        pot=pot,
        winners=tuple(winners),
        payouts=tuple(payouts),
        match_payments=tuple(match_payments),
        hands=tuple(hands),
        next_pot=next_pot,
        game_over=game_over,
        reason=reason,
    )


def result(state: PiranhaState) -> PiranhaOutcome | None:
    """When over: pot, winners, payouts, match_payments, hands shown, next_pot, game_over, reason."""
    return state.outcome


def view(state: PiranhaState, seat: int | None) -> HandView:
    """What ``seat`` may see (None: spectators). See engine.view."""
    board = tuple(c if k < state.board_up else None for k, c in enumerate(state.board))

    def my_hand(me: int) -> HighHand:
        return _best_so_far(state.hole[me], state.board[: state.board_up])

    return play.view(state, VARIANT, seat, board=board, my_hand=my_hand)


@functools.lru_cache(maxsize=4096)
def _best_so_far(hole: tuple[str, ...], board_up: tuple[str, ...]) -> HighHand:
    """A player's best hand from their hole cards and the board's turned cards. Kept: every seated
    member's view asks for it on every version, and it changes only when a card is turned."""
    value = piranha_best([card(c) for c in hole], [card(c) for c in board_up])
    return HighHand(name=value.name, full_name=value.full_name, cards=tuple(c.code for c in value.cards))
