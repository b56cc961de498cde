"""One fixed-limit betting round, shared by Piles' nine rounds and Piranha's optional round.

Fixed limit (piles.txt 3.1-3.3, piranha.txt 3.4 / docs/design.md): every bet and raise
is exactly the round's bet size; at most ``max_raises`` raises follow the
opening bet (a big blind counts as the opening bet). There are no stacks, no
all-ins and no side pots (docs/design.md: balances may go negative), so every
player still in has put in the same amount when the round ends.

Seats are addressed by their index in the hand's clockwise ``seats`` tuple.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .actions import Action
from .errors import IllegalAction


def cents(amount: int) -> str:
    return "1 cent" if amount == 1 else f"{amount} cents"


@dataclass(frozen=True, slots=True)
class Betting:
    """The state of the current round.

    current: the highest amount any seat has put in this round.
    contrib: what each seat has put in this round.
    pending: seats that must still act before the round can close.
    actor: index of the seat to act (-1 when the round is closed).
    """

    bet_size: int
    max_raises: int
    current: int
    raises: int
    contrib: tuple[int, ...]
    pending: tuple[bool, ...]
    actor: int


def next_index(flags: Sequence[bool], after: int) -> int:
    """First index after ``after`` (cyclic, ``after`` itself last) whose flag is set, or -1."""
    n = len(flags)
    for step in range(1, n + 1):
        i = (after + step) % n
        if flags[i]:
            return i
    return -1


def open_round(
    active: Sequence[bool], first: int, bet_size: int, max_raises: int, contrib: Sequence[int] | None = None
) -> Betting:
    """A new round in which every active seat must act, starting at the first active seat from ``first``."""
    paid = tuple(contrib) if contrib is not None else (0,) * len(active)
    pending = tuple(active)
    return Betting(bet_size, max_raises, max(paid), 0, paid, pending, next_index(pending, (first - 1) % len(active)))


def legal(b: Betting, i: int) -> list[Action]:
    """The betting actions seat index ``i`` may take when it is its turn."""
    if b.actor != i:
        return []
    owed = b.current - b.contrib[i]
    out: list[Action] = []
    if owed == 0:
        out.append(Action("check"))
        if b.current == 0:
            out.append(Action("bet", amount=b.bet_size))
        elif b.raises < b.max_raises:
            out.append(Action("raise", amount=b.bet_size))
    else:
        out.append(Action("call", amount=owed))
        if b.raises < b.max_raises:
            out.append(Action("raise", amount=b.bet_size))
    out.append(Action("fold"))
    return out


def act(b: Betting, i: int, action: Action, active: Sequence[bool], game: str) -> tuple[Betting, int]:
    """Apply a betting action of seat index ``i``; return the new round and the chips it puts in.

    ``active``: seats still in the hand AFTER this action (a folder already
    cleared). Raises IllegalAction naming the fixed-limit rule broken.
    """
    if b.actor != i:
        raise IllegalAction("It is not your turn")
    owed = b.current - b.contrib[i]
    kind = action.type
    pay = 0
    current, raises = b.current, b.raises
    reopen = False
    if kind == "check":
        if owed:
            raise IllegalAction(f"You cannot check: it costs {cents(owed)} to call")
    elif kind == "call":
        if not owed:
            raise IllegalAction("There is no bet to call: check or bet")
        if action.amount is not None and action.amount != owed:
            raise IllegalAction(f"Fixed limit: it costs {cents(owed)} to call")
        pay = owed
    elif kind in ("bet", "raise"):
        if kind == "bet" and current:
            raise IllegalAction("There is already a bet: call, raise or fold")
        if kind == "raise" and not current:
            raise IllegalAction("There is no bet to raise: check or bet")
        if action.amount is not None and action.amount != b.bet_size:
            raise IllegalAction(f"Fixed limit: the bet this round is {cents(b.bet_size)}")
        if kind == "raise":
            if raises >= b.max_raises:
                raise IllegalAction(f"{game}: at most {b.max_raises} raises a round")
            raises += 1
        current += b.bet_size
        pay = current - b.contrib[i]
        reopen = True
    elif kind != "fold":
        raise IllegalAction(f"You cannot {kind} during a betting round: check, bet, call, raise or fold")
    contrib = list(b.contrib)
    contrib[i] += pay
    if reopen:
        pending = [a and j != i for j, a in enumerate(active)]
    else:
        pending = [p and a and j != i for j, (p, a) in enumerate(zip(b.pending, active, strict=True))]
    new = replace(b, current=current, raises=raises, contrib=tuple(contrib), pending=tuple(pending))
    if sum(active) <= 1:
        return replace(new, actor=-1), pay
    return replace(new, actor=next_index(new.pending, i)), pay
