"""Piles as a state machine (piles.txt, docs/design.md "Piles").

piles.txt numbers only 2.2(a)-(c) and 5.1(a); the engine and its tests cite
its paragraphs in reading order: 1.1 deck and players, 1.2 high-low split,
1.3 high ranking and ace-to-five low, 2.1 forced bets and five hole cards,
2.2 the three piles, 2.3 the legal hand (2 hole + 2 of one square + 1 row),
3.1 the nine stages (stage table), 3.2 a betting round after each stage,
3.3 the table sets its stakes, 4.1 the simultaneous declaration, 4.2 the
halves, 4.3 pig, 4.4 the low qualifier, the worked example, 5.1 the
variation, the FAQ and the final authority.

Phases: "betting" (nine rounds, one after each stage) -> "declare" -> "over".

Deal (piles.txt 2.1, 2.2): five hole cards each, dealt one at a time
clockwise from the seat after the button, from the top of the deck; then
pile 1 (square 1, four cards), pile 2 (square 2, four cards) and pile 3 (the
row, five cards), all face down.

Forced bets (piles.txt 2.1, docs/design.md): an ante from every player, or blinds.
With blinds the small blind is the first seat after the button and the big
blind the next (heads-up: the other player posts the small blind and the
button the big one). Blinds are live bets of the first betting round (the
one after stage 1); the big blind counts as its opening bet, the first to act
is the seat after the big blind, and the big blind may raise when it is
called round to it. Every other round starts with the first active seat
clockwise after the button.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from . import betting as bet
from . import play
from .actions import Action
from .cards import Card, card
from .common import carry_within_limit, clockwise_from_button, first_after_button, split
from .errors import IllegalAction
from .evaluate import HandValue, LowValue, piles_best_high, piles_best_low
from .events import Ante, Award, Blind, Carry, Deal, DeclareOpen, Event, Showdown, Turn
from .hand_view import HandView, PilesBoard
from .outcome import HighHand, HighLow, LowHand, Payout, PilesOutcome, PilesShown
from .rules import PilesRules

GAME = "Piles"
VARIANT = play.Variant(
    name=GAME,
    game="piles",
    sealed="declare",
    opened=DeclareOpen,
    hole_cards=5,
    sealed_actions=(
        Action("declare", choice="high"),
        Action("declare", choice="low"),
        Action("declare", choice="pig"),
        Action("fold"),
    ),
)

# piles.txt 3.1 stage table: (pile, first position, count) turned at stages 1..9
STAGES: tuple[tuple[str, int, int], ...] = (
    ("square1", 0, 2),
    ("square2", 0, 2),
    ("square1", 2, 2),
    ("square2", 2, 2),
    ("row", 0, 1),
    ("row", 1, 1),
    ("row", 2, 1),
    ("row", 3, 1),
    ("row", 4, 1),
)


@dataclass(frozen=True, slots=True)
class PilesState:
    """One hand of Piles. Per-seat tuples are indexed like ``seats`` (clockwise).

    stage: the last stage turned (1..9). status: "active" or "folded".
    decisions: the sealed declaration, "" while waiting, else high / low / pig / fold.
    paid: chips each seat put into the pot this hand.
    """

    rules: PilesRules
    seats: tuple[int, ...]
    button: int
    deck: tuple[str, ...]
    hand_number: int
    carry_pot: int
    hole: tuple[tuple[str, ...], ...]
    square1: tuple[str, ...]
    square2: tuple[str, ...]
    row: tuple[str, ...]
    stage: int
    phase: str
    pot: int
    paid: tuple[int, ...]
    status: tuple[str, ...]
    decisions: tuple[str, ...]
    last_action: tuple[str, ...]
    betting: bet.Betting | None
    events: tuple[Event, ...]
    outcome: PilesOutcome | None
    game: str = "piles"


def turned(state: PilesState, stage: int | None = None) -> dict[str, int]:
    """How many cards of each pile are face up after ``stage`` (default: the current stage)."""
    upto = state.stage if stage is None else stage
    up = {"square1": 0, "square2": 0, "row": 0}
    for pile, first, count in STAGES[:upto]:
        up[pile] = max(up[pile], first + count)
    return up


def _pile(state: PilesState, name: str) -> tuple[str, ...]:
    return {"square1": state.square1, "square2": state.square2, "row": state.row}[name]


def _turn_event(state: PilesState, stage: int) -> Turn:
    pile, first, count = STAGES[stage - 1]
    cards = _pile(state, pile)[first : first + count]
    return Turn(cards=cards, where=pile, positions=tuple(range(first, first + count)), stage=stage)


def new_hand(
    rules: PilesRules,
    *,
    seats: Sequence[int],
    button: int,
    deck: Sequence[str],
    carry_pot: int = 0,
    hand_number: int = 1,
) -> tuple[PilesState, list[Event]]:
    """Deal, post the forced bets, turn stage 1 and open its betting round."""
    seat_t, cards = play.check_new_hand(rules, VARIANT, seats, button, deck, carry_pot, hand_number)
    n = len(seat_t)
    order = clockwise_from_button(seat_t, button)
    hole = play.deal_hole(VARIANT, cards, order)  # piles.txt 2.1: five cards face down to each player
    rest = cards[5 * n :]
    events: list[Event] = [
        Deal(
            game="piles",
            hand_number=hand_number,
            button=button,
            seats=seat_t,
            hole_cards=5,
            square1=4,
            square2=4,
            row=5,
        )
    ]
    paid = [0] * n
    contrib = [0] * n
    first = first_after_button(seat_t, button)
    if rules.forced == "ante":
        if rules.ante:
            for i in order:
                paid[i] = rules.ante
                events.append(Ante(seat_t[i], rules.ante))
    else:
        small, big = order[0], order[1 % n]
        for i, amount, which in ((small, rules.small_blind, "small"), (big, rules.big_blind, "big")):
            if amount:
                paid[i] += amount
                contrib[i] += amount
                events.append(Blind(seat_t[i], amount, which))
        first = (big + 1) % n  # the first round starts after the big blind
    state = PilesState(
        rules=rules,
        seats=seat_t,
        button=button,
        deck=cards,
        hand_number=hand_number,
        carry_pot=carry_pot,
        hole=hole,
        square1=rest[0:4],
        square2=rest[4:8],
        row=rest[8:13],
        stage=1,
        phase="betting",
        pot=carry_pot + sum(paid),
        paid=tuple(paid),
        status=("active",) * n,
        decisions=("",) * n,
        last_action=("",) * n,
        betting=None,
        events=(),
        outcome=None,
    )
    events.append(_turn_event(state, 1))  # piles.txt 3.1 stage 1: two cards of pile 1
    b = bet.open_round([True] * n, first, rules.stage_bets[0], rules.max_raises, contrib)
    state = replace(state, betting=b, events=tuple(events))
    return state, events


def to_act(state: PilesState) -> tuple[int, ...]:
    return play.to_act(state, VARIANT)


def legal_actions(state: PilesState, seat: int) -> list[Action]:
    return play.legal_actions(state, VARIANT, seat)


def timeout_action(state: PilesState, seat: int) -> Action:
    """docs/design.md: check if free, else fold; a declaration defaults to fold (option: high)."""
    sealed = Action("declare", choice="high") if state.rules.declare_timeout == "high" else Action("fold")
    return play.timeout_action(state, VARIANT, seat, sealed)


def apply(state: PilesState, seat: int, action: Action) -> tuple[PilesState, list[Event]]:
    i = play.acting_index(state, seat, "You have folded")
    if state.phase == "betting":
        return _apply_betting(state, i, action)
    return _apply_declare(state, i, action)


def _apply_betting(state: PilesState, i: int, action: Action) -> tuple[PilesState, list[Event]]:
    assert state.betting is not None
    if state.betting.actor != i:
        raise IllegalAction("It is not your turn")
    if action.type == "declare":
        raise IllegalAction("Piles: you declare after the ninth betting round")
    if action.type in ("in", "out"):
        raise IllegalAction("Piles has no drop: check, bet, call, raise or fold")
    new, events, active, b = play.bet_step(state, VARIANT, i, action, stage=state.stage)
    if sum(active) == 1:
        # docs/design.md: if all but one fold, the last player takes the pot without declaring
        j = active.index(True)
        if new.pot:  # no chip event moves zero cents
            events.append(Award(new.seats[j], new.pot, "pot"))
        outcome = PilesOutcome(
            pot=new.pot,
            reason="uncontested",
            winners=(new.seats[j],),
            payouts=(Payout(new.seats[j], new.pot),) if new.pot else (),
            high_winners=(),
            low_winners=(),
            failed_pigs=(),
            hands=(),
            next_pot=0,
            game_over=False,
        )
        new = replace(new, phase="over", betting=None, outcome=outcome)
        return play.logged(new, events)
    if b.actor == -1:
        if new.stage < 9:
            # piles.txt 3.1: the next stage is turned, then its betting round
            stage = new.stage + 1
            new = replace(new, stage=stage)
            events.append(_turn_event(new, stage))
            nb = bet.open_round(
                active, first_after_button(new.seats, new.button), new.rules.stage_bets[stage - 1], new.rules.max_raises
            )
            new = replace(new, betting=nb, last_action=tuple("" if a else "folded" for a in active))
        else:
            new = replace(new, phase="declare", betting=None)  # piles.txt 4.1
    return play.logged(new, events)


def _apply_declare(state: PilesState, i: int, action: Action) -> tuple[PilesState, list[Event]]:
    if state.decisions[i]:
        raise IllegalAction("You have already declared: all hands are opened together")
    if action.type == "fold":
        choice = "fold"
    elif action.type == "declare" and action.choice in ("high", "low", "pig"):
        choice = action.choice
    else:
        raise IllegalAction("Piles: declare high, low or pig, or fold")
    # piles.txt 4.1: all hands are opened together
    new, events, opened = play.seal(state, VARIANT, i, choice)
    if not opened:
        return new, events
    status = list(new.status)
    for j in opened:
        if new.decisions[j] == "fold":
            status[j] = "folded"
    new = replace(new, status=tuple(status))
    return _showdown(new, events)


def _values(state: PilesState, j: int) -> tuple[HandValue | None, LowValue | None]:
    hole = [card(c) for c in state.hole[j]]
    sq1: list[Card] = [card(c) for c in state.square1]
    sq2: list[Card] = [card(c) for c in state.square2]
    row: list[Card] = [card(c) for c in state.row]
    variant = state.rules.low_variant
    return (piles_best_high(hole, sq1, sq2, row, variant), piles_best_low(hole, sq1, sq2, row, variant))


def _high_low(high: HandValue | None, low: LowValue | None) -> HighLow:
    """A hand's best high and low as shown: name (high: full name too) and cards, or None."""
    return HighLow(
        high=None
        if high is None
        else HighHand(name=high.name, full_name=high.full_name, cards=tuple(c.code for c in high.cards)),
        low=None if low is None else LowHand(name=low.name, cards=tuple(c.code for c in low.cards)),
    )


def _best(values: Mapping[int, HandValue | LowValue | None], claimants: Sequence[int]) -> list[int]:
    """Claimants holding the best qualifying value (empty when none qualifies)."""
    qualified = [j for j in claimants if values[j] is not None]
    if not qualified:
        return []
    top = max(values[j] for j in qualified)  # type: ignore[type-var]
    return [j for j in qualified if values[j] == top]


def _wins_half(
    values: Mapping[int, HandValue | LowValue | None], j: int, rivals: Sequence[int], ties_count: bool
) -> bool:
    mine = values[j]
    if mine is None:
        return False
    for k in rivals:
        theirs = values[k]
        if k == j or theirs is None:
            continue
        if theirs > mine or (theirs == mine and not ties_count):  # type: ignore[operator]
            return False
    return True


def _showdown(state: PilesState, events: list[Event]) -> tuple[PilesState, list[Event]]:
    order = clockwise_from_button(state.seats, state.button)
    seats = state.seats
    declared = {j: state.decisions[j] for j in order if state.status[j] == "active"}
    highs: dict[int, HandValue | LowValue | None] = {}
    lows: dict[int, HandValue | LowValue | None] = {}
    hands: list[PilesShown] = []
    for j in declared:
        high, low = _values(state, j)
        highs[j], lows[j] = high, low
        shown = _high_low(high, low)
        hands.append(
            PilesShown(seat=seats[j], hole=state.hole[j], declared=declared[j], high=shown.high, low=shown.low)
        )
    if hands:
        events.append(Showdown(tuple(hands)))
    high_side = [j for j in declared if declared[j] in ("high", "pig")]
    low_side = [j for j in declared if declared[j] in ("low", "pig")]
    ties = state.rules.pig_tie_counts
    # piles.txt 4.3: a pig must win both halves; docs/design.md: outright unless pig ties count,
    # and a failed pig wins nothing while the halves are resolved without them
    failed = [
        j
        for j in declared
        if declared[j] == "pig" and not (_wins_half(highs, j, high_side, ties) and _wins_half(lows, j, low_side, ties))
    ]
    high_side = [j for j in high_side if j not in failed]
    low_side = [j for j in low_side if j not in failed]
    high_winners = _best(highs, high_side)  # piles.txt 4.2
    low_winners = _best(lows, low_side)  # piles.txt 4.2, 4.4: only a qualifying low
    pot = state.pot
    awards: list[tuple[int, int, str]] = []
    if high_winners and low_winners:
        low_half = pot // 2
        high_half = pot - low_half  # odd cent of the halves to high (docs/design.md is silent: casino custom)
        awards += [(j, a, "high") for j, a in split(high_half, high_winners, order).items()]
        awards += [(j, a, "low") for j, a in split(low_half, low_winners, order).items()]
    elif high_winners or low_winners:
        # docs/design.md: a half with no qualifying claimant goes to the other half
        half = "high" if high_winners else "low"
        awards += [(j, a, half) for j, a in split(pot, high_winners or low_winners, order).items()]
    next_pot = 0
    for j, amount, half in awards:
        value = highs[j] if half == "high" else lows[j]
        assert value is not None
        if amount:  # no chip event moves zero cents
            events.append(Award(seats[j], amount, half, hand=value.name))
    over: dict[int, int] = {}
    if not awards:
        # docs/design.md: if neither half has a claimant, the pot carries, up to the pot limit; what is
        # over it goes back to those who declared (docs/hands-and-data.md "Pot limit")
        next_pot, over = carry_within_limit(pot, list(declared) or list(range(len(seats))), order)
        for j in order:
            if over.get(j):
                events.append(Award(seats[j], over[j], "over_limit"))
        events.append(Carry(next_pot))
    payouts: dict[int, int] = dict(over)
    for j, amount, _half in awards:
        payouts[j] = payouts.get(j, 0) + amount
    awarded = {j for j, _amount, _half in awards}
    outcome = PilesOutcome(
        pot=pot,
        reason="showdown" if awards else "carry",
        winners=tuple(seats[j] for j in order if j in awarded),
        payouts=tuple(Payout(seats[j], payouts[j]) for j in order if payouts.get(j)),
        high_winners=tuple(seats[j] for j in high_winners),
        low_winners=tuple(seats[j] for j in low_winners),
        failed_pigs=tuple(seats[j] for j in failed),
        hands=tuple(hands),
        next_pot=next_pot,
        game_over=False,
    )
    new = replace(state, phase="over", outcome=outcome, events=state.events + tuple(events))
    return new, events


def result(state: PilesState) -> PilesOutcome | None:
    """When over: pot, winners, payouts, high/low winners, failed pigs, hands shown, next_pot."""
    return state.outcome


def view(state: PilesState, seat: int | None) -> HandView:
    """What ``seat`` may see (None: spectators). See engine.view."""
    up = turned(state)
    piles = {
        name: tuple(c if k < up[name] else None for k, c in enumerate(_pile(state, name)))
        for name in ("square1", "square2", "row")
    }
    board = PilesBoard(square1=piles["square1"], square2=piles["square2"], row=piles["row"])

    def my_hand(me: int) -> HighLow:
        return _best_so_far(state.hole[me], piles["square1"], piles["square2"], piles["row"], state.rules.low_variant)

    return play.view(state, VARIANT, seat, board=board, my_hand=my_hand, stage=state.stage)


@functools.lru_cache(maxsize=4096)
def _best_so_far(
    hole: tuple[str, ...],
    square1: tuple[str | None, ...],
    square2: tuple[str | None, ...],
    row: tuple[str | None, ...],
    variant: bool,
) -> HighLow:
    """A player's best high and low from their hole cards and the turned cards of each pile (None: face
    down). Kept: every seated member's view asks for it on every version, and it changes only when a
    card is turned."""
    hole_cards = [card(c) for c in hole]
    sq1, sq2, in_row = ([card(c) for c in pile if c is not None] for pile in (square1, square2, row))
    return _high_low(
        piles_best_high(hole_cards, sq1, sq2, in_row, variant), piles_best_low(hole_cards, sq1, sq2, in_row, variant)
    )
