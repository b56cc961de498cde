"""Why a hand ended the way it did, in words: one place that reads the engine's result (``engine.result``).

Each reason is a short sentence a member can check against the board and the shown hands:
uncontested, best high, best low, a pig that won both halves, a pig that failed (and, when no low
qualified, that this is why), no low qualified so the high takes all, no high qualified so the low
takes all, nobody in so the pot carries, and a loser who pays only the cap. Pure: the engine's
records in, sentences out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from accounts.money import money


def _who(seat: int, names: Mapping[int, str]) -> str:
    return names.get(seat, f"Seat {seat}")


@dataclass(frozen=True)
class ShownRow:
    """A hand shown at the end of a hand as the page lists it: whose (``who``, "Seat n" for a seat nobody
    holds now), whether it won, its hole cards and what it made (Piranha: ``name``, ``full_name`` and the
    five ``cards`` that make it; Piles: what it ``declared`` and its best ``high`` and ``low``)."""

    seat: int
    who: str
    won: bool
    hole: tuple[str, ...]
    name: str | None = None
    full_name: str | None = None
    declared: str | None = None
    high: engine.HighHand | None = None
    low: engine.LowHand | None = None
    cards: tuple[str, ...] = ()

    @property
    def hole_marks(self) -> list[tuple[str, str]]:
        """Each hole card with where it plays ("plays", "plays in the high", "... the high and the low";
        "": it does not), for the card tag's ``plays``."""
        if self.name is not None:
            return [(c, "plays" if c in self.cards else "") for c in self.hole]
        high = set(self.high.cards) if self.high else set()
        low = set(self.low.cards) if self.low else set()
        halves = {
            (True, True): "plays in the high and the low",
            (True, False): "plays in the high",
            (False, True): "plays in the low",
            (False, False): "",
        }
        return [(c, halves[c in high, c in low]) for c in self.hole]


def showdown_rows(result: engine.Outcome | None, names: Mapping[int, str]) -> list[ShownRow]:
    """The hands shown at the end of a hand, each with its member's name and whether it won."""
    if result is None:
        return []
    winners = set(result.winners)
    return [
        ShownRow(
            seat=h.seat,
            who=_who(h.seat, names),
            won=h.seat in winners,
            hole=h.hole,
            name=h.name,
            full_name=h.full_name,
            cards=h.cards,
        )
        if isinstance(h, engine.PiranhaShown)
        else ShownRow(
            seat=h.seat,
            who=_who(h.seat, names),
            won=h.seat in winners,
            hole=h.hole,
            declared=h.declared,
            high=h.high,
            low=h.low,
        )
        for h in result.hands
    ]


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _paid(result: engine.Outcome, seats: Sequence[int]) -> int:
    wanted = set(seats)
    return sum(p.amount for p in result.payouts if p.seat in wanted)


def outcome_reasons(
    result: engine.Outcome | None, *, names: Mapping[int, str], currency: str, rules: Mapping[str, Any] | None = None
) -> list[str]:
    """The reasons of a finished hand's ``result``, one sentence each, in the order they happened."""
    if result is None:
        return []
    if isinstance(result, engine.PiranhaOutcome):
        return _piranha(result, names=names, currency=currency, rules=rules or {})
    return _piles(result, names=names, currency=currency)


def _piranha(
    result: engine.PiranhaOutcome, *, names: Mapping[int, str], currency: str, rules: Mapping[str, Any]
) -> list[str]:
    reason = result.reason
    pot = result.pot
    out: list[str] = []
    if reason == "uncontested":
        who = _who(result.winners[0], names)
        out.append(
            f"Only {who} stayed in: {who} takes the pot of {money(pot, currency)} uncontested, and the game is over."
        )
    elif reason == "nobody_in_carry":
        out.append(f"Nobody stayed in, so the pot carries: {money(result.next_pot, currency)} goes into a fresh deal.")
        if result.payouts:
            out.append("The part over the pot limit went back to those dealt in.")
    elif reason == "nobody_in_split":
        out.append("Nobody stayed in: the game ends and the pot is split among those dealt in.")
    elif reason == "showdown":
        winners = list(result.winners)
        hand_names = {h.seat: h.full_name or h.name for h in result.hands}
        who = _join([_who(s, names) for s in winners])
        best = hand_names.get(winners[0], "") if winners else ""
        if len(winners) > 1:
            out.append(f"{who} tie with the best high hand ({best}) and share the pot of {money(pot, currency)}.")
        elif winners:
            out.append(f"{who} has the best high hand ({best}) and takes the pot of {money(pot, currency)}.")
        cap = rules.get("match_cap")
        for payment in result.match_payments:
            loser = _who(payment.seat, names)
            amount = payment.amount
            if amount >= pot:
                out.append(f"{loser} lost and matches the pot: {money(amount, currency)} into the next hand's pot.")
            elif cap is not None and amount == int(cap):
                out.append(
                    f"{loser} lost and pays the cap of {money(amount, currency)} (the pot was "
                    f"{money(pot, currency)}) into the next hand's pot."
                )
            else:
                out.append(
                    f"{loser} lost and pays {money(amount, currency)}: the losers' payments together "
                    "stop at the pot limit."
                )
    return out


def _piles(result: engine.PilesOutcome, *, names: Mapping[int, str], currency: str) -> list[str]:
    reason = result.reason
    pot = result.pot
    out: list[str] = []
    if reason == "uncontested":
        who = _who(result.winners[0], names)
        return [f"Everyone else folded: {who} takes the pot of {money(pot, currency)} uncontested."]
    hands = {h.seat: h for h in result.hands}
    declared = {s: h.declared for s, h in hands.items()}
    high = list(result.high_winners)
    low = list(result.low_winners)
    failed = list(result.failed_pigs)
    any_low = any(h.low is not None for h in hands.values())
    for seat in failed:
        who = _who(seat, names)
        if not any_low:
            out.append(
                f"{who} declared pig, but no low qualified, so nobody wins the low half: "
                f"the pig fails and {who} is out of the pot."
            )
        else:
            out.append(f"{who} declared pig but did not win both halves outright, so {who} is out of the pot.")
    pigs_won = [s for s in high if s in low and declared.get(s) == "pig"]
    for seat in pigs_won:
        out.append(f"{_who(seat, names)} declared pig and won both halves: {money(_paid(result, [seat]), currency)}.")
    high = [s for s in high if s not in pigs_won]
    low = [s for s in low if s not in pigs_won]

    def named(seats: Sequence[int], half: str) -> str:
        shown = hands.get(seats[0])
        value = (shown.high if half == "high" else shown.low) if shown is not None else None
        return f" ({value.name})" if value is not None and value.name else ""

    if high:
        verb = "tie with" if len(high) > 1 else "has"
        out.append(
            f"{_join([_who(s, names) for s in high])} {verb} the best high{named(high, 'high')}: "
            f"{money(_paid(result, high), currency)}."
        )
    if low:
        verb = "tie with" if len(low) > 1 else "has"
        out.append(
            f"{_join([_who(s, names) for s in low])} {verb} the best low{named(low, 'low')}: "
            f"{money(_paid(result, low), currency)}."
        )
    if result.high_winners and not result.low_winners:
        low_claimants = [s for s, d in declared.items() if d in ("low", "pig") and s not in failed]
        out.append(
            "No low qualified, so the high takes the whole pot."
            if low_claimants or failed
            else "Nobody declared low, so the high takes the whole pot."
        )
    elif result.low_winners and not result.high_winners:
        out.append(_low_takes_all(declared, failed, names))
    if reason == "carry" or (not result.winners and result.next_pot):
        claimants = _high_claimants(declared, failed)
        if claimants and not result.high_winners:
            out.append(f"{_no_high_qualified(claimants, names)}.")
        out.append(
            f"Nobody won a half, so the pot carries: {money(result.next_pot, currency)} goes into the next hand."
        )
    return out


def _low_takes_all(declared: Mapping[int, str | None], failed: Sequence[int], names: Mapping[int, str]) -> str:
    """Why the low took the whole pot: a high was claimed but none qualified (the low variant's full
    house or better, piles.txt 5.1: the claimants named), only a failed pig claimed it, or nobody did."""
    claimants = _high_claimants(declared, failed)
    if claimants:
        return f"{_no_high_qualified(claimants, names)}, so the low takes the whole pot."
    if failed:
        return "With the pig out, nobody else claimed the high half, so the low takes the whole pot."
    return "Nobody declared high, so the low takes the whole pot."


def _high_claimants(declared: Mapping[int, str | None], failed: Sequence[int]) -> list[int]:
    """The seats that claimed the high half and were not put out as failed pigs."""
    return sorted(s for s, d in declared.items() if d in ("high", "pig") and s not in failed)


def _no_high_qualified(claimants: Sequence[int], names: Mapping[int, str]) -> str:
    """Why nobody won the high half although it was claimed: in the low variant a high must be a full house
    or better (piles.txt 5.1), and no claimant had one."""
    who = _join([_who(s, names) for s in claimants])
    needs = "which a high needs in the low variant"
    if len(claimants) == 1:
        return f"{who} declared high but has no full house or better, {needs}"
    if len(claimants) == 2:
        return f"{who} declared high, but neither has a full house or better, {needs}"
    return f"{who} declared high, but none of them has a full house or better, {needs}"


def match_owed(view: engine.HandView | None, rules: Mapping[str, Any]) -> int | None:
    """Piranha, before the drop opens: what each loser will owe (the pot, or the agreed cap when lower;
    less only when the losers' payments together would pass the pot limit). None otherwise."""
    if view is None or view.game != "piranha" or view.phase == "over":
        return None
    pot = view.pot
    cap = rules.get("match_cap")
    return min(pot, int(cap)) if cap is not None else pot


_ACTS = (engine.Bet, engine.Check, engine.Fold, engine.Decided)


def member_acted(view: engine.HandView | None) -> bool:
    """Whether the viewer has acted in this hand (a bet, check, fold or sealed decision of their own)."""
    if view is None or view.you is None:
        return False
    you = view.you
    return any(isinstance(e, _ACTS) and e.seat == you for e in view.events)


def board_all_up(view: engine.HandView | None) -> bool:
    """Every shared card of the view is face up."""
    if view is None:
        return False
    cards = view.board_cards
    return bool(cards) and all(cards)
