"""A finished hand step by step, as one member saw it live (the hand replay).

While a hand is played, ``hand_so_far`` gives the same steps up to now (the deal and each action), as the
viewer may see them now, for the table's "hand so far".

The stored deal and action log are played again through the engine; each step is the engine's own
view of that moment for the viewer's seat (``engine.view(state, seat)``; None for everyone who was
not dealt in), so a step holds exactly what the viewer's table showed then: their own hole cards, the
board as turned, sealed decisions as "decided" until they were opened, shown hands from the showdown.
Steps: the deal, one per logged action, then the showdown and the payouts (``len(log) + 2``).

After the hand, the proof rules (games/services/proof.py) open more only by an organiser's ruling:
its players and the organisers then see every hole card, and the replay shows them on the last step
only, marked as opened by the ruling. Nothing else is added: a folded or dropped hand stays hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import engine
from accounts.models import User
from accounts.money import money
from games.models import Hand
from games.presentation.presenters import TIMEOUT_MARK, action_label, piles_board
from games.presentation.reasons import ShownRow, showdown_rows
from games.presentation.words import event_words
from games.selectors.cuts import hand_cut_summary
from games.selectors.hands import (
    hand_actions,
    hand_card_seat,
    hand_closed_positions,
    hand_deck_dealt,
    hand_player_names,
)
from games.selectors.proof import hand_cuts_named, hand_dispute_opened

DEAL, ACTION, RESULT = "deal", "action", "result"


class ReplayMismatch(Exception):
    """The stored log does not play back to the stored hand (a damaged record)."""


@dataclass(frozen=True)
class ReplayStep:
    index: int
    kind: str  # DEAL, ACTION or RESULT
    title: str
    lines: list[dict[str, Any]]  # {"text", "timeout"}: what happened at this step, in words
    view: engine.HandView  # the engine's view for the viewer's seat at this step (cards as they were seen)
    seat_rows: list[dict[str, Any]]
    ruled: bool = False  # hole cards opened after the hand by an organiser's ruling are shown
    shown: list[ShownRow] = field(default_factory=list)  # the last step: the hands shown, what plays marked


@dataclass(frozen=True)
class _Logged:
    """One logged action played again: whose, what, whether the clock took it, and its events."""

    seat: int
    action: engine.Action
    is_timeout: bool
    events: tuple[engine.Event, ...]


def _state_steps(hand: Hand) -> list[tuple[engine.State, _Logged | None]]:
    """The state after the deal and after each logged action (with that action's record)."""
    stored = engine.state_from_json(hand.state)
    state, _ = engine.new_hand(
        stored.rules,
        seats=stored.seats,
        button=stored.button,
        deck=hand_deck_dealt(hand=hand),
        carry_pot=stored.carry_pot,
        hand_number=stored.hand_number,
    )
    out: list[tuple[engine.State, _Logged | None]] = [(state, None)]
    for row in hand_actions(hand=hand):
        try:
            action = engine.action_from_dict(row.action)
            state, events = engine.apply(state, row.seat, action)
        except engine.EngineError as exc:
            raise ReplayMismatch(f"hand {hand.pk}: action {row.sequence} does not apply: {exc}") from exc
        out.append((state, _Logged(row.seat, action, row.is_timeout, tuple(events))))
    if engine.state_to_json(state) != hand.state:
        raise ReplayMismatch(f"hand {hand.pk}: the log does not play back to the stored hand")
    return out


def _lines(
    events: Sequence[engine.Event], row: _Logged | None, *, seat: int | None, names: dict[int, str], currency: str
) -> list[dict[str, Any]]:
    """The step's events in words. A sealed decision is told with its choice only to the seat that made
    it (the others saw "decided" until the opening, which has its own line); a timeout is marked, except
    on a sealed decision told to others, where the mark would give the house rules' default away."""
    out = []
    for k, e in enumerate(events):
        own = row is not None and row.seat == seat
        if isinstance(e, engine.Decided) and own and row is not None:
            text = f"Your sealed decision: {action_label(row.action, currency)}."
        else:
            text = event_words(e, names=names, currency=currency)
        sealed_other = isinstance(e, engine.Decided) and not own
        timeout = bool(row is not None and row.is_timeout and k == 0 and not sealed_other)
        out.append({"text": f"{text} {TIMEOUT_MARK}" if timeout else text, "timeout": timeout})
    return out


def _seat_rows(view: engine.HandView, names: dict[int, str], *, over: bool) -> list[dict[str, Any]]:
    to_act = set(view.to_act) if not over else set()
    return [
        {
            "number": v.seat,
            "name": names.get(v.seat, f"Seat {v.seat}"),
            "seat": None,
            "view": v,
            "is_me": view.you == v.seat,
            "is_button": view.button == v.seat,
            "to_act": v.seat in to_act,
            "away": False,
            "sitting_out": False,
            "left": False,
            "ruled": False,
        }
        for v in view.seats
    ]


def _picture(view: engine.HandView, *, result: bool) -> engine.HandView:
    """What a step's table picture draws of a view: no legal actions, no betting menu, no log; the
    result only on the last step (the payouts have their own step)."""
    return replace(view, legal_actions=(), betting=None, events=(), result=view.result if result else None)


def _cut_lines(hand: Hand) -> list[dict[str, Any]]:
    """What the deal of a hand dealt from a deck committed ahead rests on: whose cuts, or that none reached it."""
    if hand.scheme not in engine.SCHEMES_CUT:
        return []
    named = hand_cuts_named(hand=hand)
    cutters = list(dict.fromkeys(c.get("member") or c.get("by") for c in named))
    text = hand_cut_summary(hand=hand)["words"]
    if cutters:
        text += f" The sealed deck was cut by {', '.join(str(c) for c in cutters)} before the deal."
    return [{"text": text, "timeout": False}]


def hand_replay(*, hand: Hand, user: User, is_organiser: bool, currency: str) -> list[ReplayStep]:
    """Every step of the finished ``hand`` as ``user`` saw it (the caller checked they may see the hand)."""
    seat = hand_card_seat(hand=hand, user=user)
    names = hand_player_names(hand=hand)
    states = _state_steps(hand)
    steps = _play_steps(hand, states, seat=seat, names=names, currency=currency)
    steps.append(_final_step(hand, states, seat=seat, names=names, is_organiser=is_organiser, currency=currency))
    return steps


def _play_steps(
    hand: Hand,
    states: list[tuple[engine.State, _Logged | None]],
    *,
    seat: int | None,
    names: dict[int, str],
    currency: str,
) -> list[ReplayStep]:
    """The deal and one step per logged action, each as ``seat`` saw it (None: the public view)."""
    steps: list[ReplayStep] = []
    for index, (state, row) in enumerate(states):
        view = _picture(engine.view(state, seat), result=False)
        if row is None:
            deal = [engine.event_from_json(e) for e in hand.deal_events or []]
            lines = [*_cut_lines(hand), *_lines(deal, None, seat=seat, names=names, currency=currency)]
            steps.append(ReplayStep(index, DEAL, "The deal", lines, view, _seat_rows(view, names, over=False)))
            continue
        who = "You" if row.seat == seat else names.get(row.seat, f"Seat {row.seat}")
        lines = _lines(row.events, row, seat=seat, names=names, currency=currency)
        steps.append(
            ReplayStep(
                index,
                ACTION,
                f"{who}: action {index} of {len(states) - 1}",
                lines,
                view,
                _seat_rows(view, names, over=False),
            )
        )
    return steps


def _final_step(
    hand: Hand,
    states: list[tuple[engine.State, _Logged | None]],
    *,
    seat: int | None,
    names: dict[int, str],
    is_organiser: bool,
    currency: str,
) -> ReplayStep:
    """The showdown and payouts, with what an organiser's ruling opened to this viewer."""
    final = _picture(engine.view(states[-1][0], seat), result=True)
    rows = _seat_rows(final, names, over=True)
    ruled = _ruling_opens(hand=hand, seat=seat, is_organiser=is_organiser)
    if ruled:
        state = states[-1][0]
        for r in rows:
            if not r["view"].cards:
                j = state.seats.index(r["number"])
                r["view"] = replace(r["view"], cards=state.hole[j])
                r["ruled"] = True
    result = final.result
    lines = [
        {"text": f"{names.get(p.seat, p.seat)} takes {money(p.amount, currency)}.", "timeout": False}
        for p in (result.payouts if result else ())
    ]
    if result is not None and result.next_pot:
        lines.append({"text": f"{money(result.next_pot, currency)} goes into the next pot.", "timeout": False})
    return ReplayStep(
        len(states), RESULT, "Showdown and payouts", lines, final, rows, ruled=ruled, shown=showdown_rows(result, names)
    )


def hand_so_far(*, hand: Hand, user: User, currency: str) -> list[ReplayStep]:
    """The steps of ``hand`` while it is played, as ``user`` may see them now (the caller checked they may
    watch the table): the deal and each action up to now, each the engine's view for the viewer's own seat
    (None for a spectator), so no hidden card and no sealed choice but one's own; no showdown step, since
    nothing has been shown yet."""
    seat = hand_card_seat(hand=hand, user=user)
    states = _state_steps(hand)
    return _play_steps(hand, states, seat=seat, names=hand_player_names(hand=hand), currency=currency)


def _ruling_opens(*, hand: Hand, seat: int | None, is_organiser: bool) -> bool:
    """Whether an organiser's ruling opened the hand to this viewer (its players and the organisers)."""
    if hand_closed_positions(hand=hand) or (seat is None and not is_organiser):
        return False  # a hand read from a club export holds no closed card to open
    return hand_dispute_opened(hand=hand)


def step_context(step: ReplayStep) -> dict[str, Any]:
    """The context the step's partial (templates/games/_replay_step.html) draws from."""
    return {"step": step, "view": step.view, "seat_rows": step.seat_rows, "piles_board": piles_board(step.view)}
