"""Why a hand ended the way it did, in words: one place that reads the engine's result (``engine.result``).

Each reason is a short sentence a member can check against the board and the shown hands:
uncontested, best high, best low, a pig that won both halves, a pig that failed (and, when no low
qualified, that this is why), no low qualified so the high takes all, nobody in so the pot carries,
and a loser who pays only the cap. Pure: plain data in, sentences out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accounts.money import money


def _who(seat: Any, names: Mapping[int, str]) -> str:
    return names.get(int(seat), f"Seat {seat}") if isinstance(seat, int) else str(seat)


def showdown_rows(result: Mapping[str, Any], names: Mapping[int, str]) -> list[dict[str, Any]]:
    """The hands shown at the end of a hand, each with its member's name (``who``, "Seat n" for a seat
    nobody holds now) and whether it won (``won``)."""
    winners = set(result.get("winners", []))
    return [{**h, "who": names.get(h["seat"], f"Seat {h['seat']}"), "won": h["seat"] in winners}
            for h in result.get("hands", [])]


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _paid(result: Mapping[str, Any], seats: Sequence[int]) -> int:
    wanted = set(seats)
    return sum(int(p["amount"]) for p in result.get("payouts", []) if p.get("seat") in wanted)


def outcome_reasons(result: Mapping[str, Any] | None, *, game: str, names: Mapping[int, str],
                    currency: str, rules: Mapping[str, Any] | None = None) -> list[str]:
    """The reasons of a finished hand's ``result``, one sentence each, in the order they happened."""
    if not result:
        return []
    if game == "piranha":
        return _piranha(result, names=names, currency=currency, rules=rules or {})
    return _piles(result, names=names, currency=currency)


def _piranha(result: Mapping[str, Any], *, names: Mapping[int, str], currency: str,
             rules: Mapping[str, Any]) -> list[str]:
    reason = result.get("reason")
    pot = int(result.get("pot", 0))
    out: list[str] = []
    if reason == "uncontested":
        who = _who(result["winners"][0], names)
        out.append(f"Only {who} stayed in: {who} takes the pot of {money(pot, currency)} uncontested, "
                   "and the game is over.")
    elif reason == "nobody_in_carry":
        out.append(f"Nobody stayed in, so the pot carries: {money(int(result.get('next_pot', 0)), currency)} "
                   "goes into a fresh deal.")
        if result.get("payouts"):
            out.append("The part over the pot limit went back to those dealt in.")
    elif reason == "nobody_in_split":
        out.append("Nobody stayed in: the game ends and the pot is split among those dealt in.")
    elif reason == "showdown":
        winners = list(result.get("winners", []))
        hand_names = {h["seat"]: h.get("full_name") or h.get("name") for h in result.get("hands", [])}
        who = _join([_who(s, names) for s in winners])
        best = hand_names.get(winners[0], "") if winners else ""
        if len(winners) > 1:
            out.append(f"{who} tie with the best high hand ({best}) and share the pot of {money(pot, currency)}.")
        elif winners:
            out.append(f"{who} has the best high hand ({best}) and takes the pot of {money(pot, currency)}.")
        cap = rules.get("match_cap")
        for payment in result.get("match_payments", []):
            loser = _who(payment["seat"], names)
            amount = int(payment["amount"])
            if amount >= pot:
                out.append(f"{loser} lost and matches the pot: {money(amount, currency)} into the next hand's pot.")
            elif cap is not None and amount == int(cap):
                out.append(f"{loser} lost and pays the cap of {money(amount, currency)} (the pot was "
                           f"{money(pot, currency)}) into the next hand's pot.")
            else:
                out.append(f"{loser} lost and pays {money(amount, currency)}: the losers' payments together "
                           "stop at the pot limit.")
    return out


def _piles(result: Mapping[str, Any], *, names: Mapping[int, str], currency: str) -> list[str]:
    reason = result.get("reason")
    pot = int(result.get("pot", 0))
    out: list[str] = []
    if reason == "uncontested":
        who = _who(result["winners"][0], names)
        return [f"Everyone else folded: {who} takes the pot of {money(pot, currency)} uncontested."]
    hands = {h["seat"]: h for h in result.get("hands", [])}
    declared = {s: h.get("declared") for s, h in hands.items()}
    high = list(result.get("high_winners", []))
    low = list(result.get("low_winners", []))
    failed = list(result.get("failed_pigs", []))
    any_low = any((h.get("low") or None) is not None for h in hands.values())
    for seat in failed:
        who = _who(seat, names)
        if not any_low:
            out.append(f"{who} declared pig, but no low qualified, so nobody wins the low half: "
                       f"the pig fails and {who} is out of the pot.")
        else:
            out.append(f"{who} declared pig but did not win both halves outright, so {who} is out of the pot.")
    pigs_won = [s for s in high if s in low and declared.get(s) == "pig"]
    for seat in pigs_won:
        out.append(f"{_who(seat, names)} declared pig and won both halves: {money(_paid(result, [seat]), currency)}.")
    high = [s for s in high if s not in pigs_won]
    low = [s for s in low if s not in pigs_won]

    def named(seats: Sequence[int], half: str) -> str:
        value = hands.get(seats[0], {}).get(half) or {}
        return f" ({value['name']})" if value.get("name") else ""

    if high:
        verb = "tie with" if len(high) > 1 else "has"
        out.append(f"{_join([_who(s, names) for s in high])} {verb} the best high{named(high, 'high')}: "
                   f"{money(_paid(result, high), currency)}.")
    if low:
        verb = "tie with" if len(low) > 1 else "has"
        out.append(f"{_join([_who(s, names) for s in low])} {verb} the best low{named(low, 'low')}: "
                   f"{money(_paid(result, low), currency)}.")
    if result.get("high_winners") and not result.get("low_winners"):
        low_claimants = [s for s, d in declared.items() if d in ("low", "pig") and s not in failed]
        out.append("No low qualified, so the high takes the whole pot." if low_claimants or failed
                   else "Nobody declared low, so the high takes the whole pot.")
    elif result.get("low_winners") and not result.get("high_winners"):
        out.append("Nobody claimed the high half, so the low takes the whole pot.")
    if reason == "carry" or (not result.get("winners") and result.get("next_pot")):
        out.append(f"Nobody won a half, so the pot carries: {money(int(result.get('next_pot', 0)), currency)} "
                   "goes into the next hand.")
    return out


def match_owed(view: Mapping[str, Any] | None, rules: Mapping[str, Any]) -> int | None:
    """Piranha, before the drop opens: what each loser will owe (the pot, or the agreed cap when lower;
    less only when the losers' payments together would pass the pot limit). None otherwise."""
    if not view or view.get("game") != "piranha" or view.get("phase") == "over":
        return None
    pot = int(view.get("pot") or 0)
    cap = rules.get("match_cap")
    return min(pot, int(cap)) if cap is not None else pot


_ACTS = frozenset({"bet", "check", "fold", "decided"})


def member_acted(view: Mapping[str, Any] | None) -> bool:
    """Whether the viewer has acted in this hand (a bet, check, fold or sealed decision of their own)."""
    if not view or view.get("you") is None:
        return False
    you = view["you"]
    return any(e.get("seat") == you and e.get("kind") in _ACTS for e in view.get("events", []))


def board_all_up(view: Mapping[str, Any] | None) -> bool:
    """Every shared card of the view is face up."""
    if not view:
        return False
    board = view.get("board")
    cards = board if isinstance(board, list) else [c for pile in (board or {}).values() for c in pile]
    return bool(cards) and all(cards)
