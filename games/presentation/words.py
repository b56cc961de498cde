"""Plain words for members: money, durations, rule sets, cards and the events of a hand.

Pure functions over plain data and the engine's records (events, seat views, actions), so pages,
history and sockets say the same thing the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import engine
from accounts.money import money
from engine.cards import Card
from engine.reach import piles_high_made, piles_reach
from engine.rules import POT_LIMIT
from games.models import AdvanceAction
from games.selectors.advance import ADVANCE_WORDS, AdvanceChoice

_UNITS = ((7 * 24 * 3600, "week"), (24 * 3600, "day"), (3600, "hour"), (60, "minute"), (1, "second"))


def duration(seconds: int) -> str:
    """'24 hours' -> well, '1 day'; '90 seconds' -> '1 minute 30 seconds'."""
    if seconds <= 0:
        return "0 seconds"
    parts: list[str] = []
    rest = seconds
    for size, name in _UNITS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {name}{'' if count == 1 else 's'}")
    return " ".join(parts[:2]) if len(parts) <= 2 else " ".join(parts)


def card_label(code: str) -> str:
    """'7c' -> 'seven of clubs'."""
    return Card.parse(code).label


def card_pretty(code: str) -> str:
    """'7c' -> '7♣'."""
    return Card.parse(code).pretty


def cards_words(codes: Sequence[str]) -> str:
    return ", ".join(card_label(c) for c in codes)


def sentence(text: str) -> str:
    """``text`` as a sentence that ends with its full stop, so the next can follow it: a member's reason
    ('End of the night') gets one; one that ends a sentence already ('Closed early!', '(see chat.)')
    is left as written."""
    text = (text or "").strip()
    if not text or text.rstrip("\"')”’").endswith((".", "!", "?", "…")):
        return text
    return text + "."


# ---- rule sets --------------------------------------------------------------------------------


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def rules_in_words(rules: Mapping[str, Any], *, max_seats: int, spectators_allowed: bool, currency: str) -> list[str]:
    """The agreement as sentences, e.g. 'Each player antes $0.25 every hand.'."""

    def m(cents: int) -> str:
        return money(cents, currency)

    game = rules.get("game")
    if game == "piranha":
        out = _piranha_in_words(rules, max_seats, m)
        timeout = "a sealed in-or-out decision counts as out"
    elif game == "piles":
        out = _piles_in_words(rules, max_seats, m)
        declare = "counts as high" if rules.get("declare_timeout") == "high" else "folds"
        timeout = f"a declaration that runs out of time {declare}"
    else:
        return ["These rules name no game."]
    return out + _table_in_words(rules, timeout=timeout, spectators_allowed=spectators_allowed)


def _piranha_in_words(rules: Mapping[str, Any], max_seats: int, m: Callable[[int], str]) -> list[str]:
    """Piranha's deal, ante, betting, pot and ends."""
    out = [
        f"Piranha for 2 to {max_seats} players: four hole cards each and a board of five, "
        "three face up and two face down."
    ]
    ante = int(rules.get("ante", 0))
    if ante:
        when = "every hand" if rules.get("ante_each_hand", True) else "on the first hand of a game only"
        out.append(f"Each player antes {m(ante)} {when}.")
    else:
        out.append("There is no ante.")
    if rules.get("betting_round"):
        out.append(
            f"After the deal there is one betting round with fixed bets of {m(int(rules['bet_size']))} "
            f"and at most {int(rules['max_raises'])} raises; folding there is dropping out."
        )
    else:
        out.append(
            "There is no betting round: after the deal everyone decides in or out, sealed, "
            "and the decisions open together."
        )
    out.append(_piranha_pot_in_words(rules, max_seats, ante, m))
    carry_part = (
        ""
        if rules.get("nobody_in") == "split"
        else "; when nobody stays in, the part of the pot over it is shared among those dealt in"
    )
    out.append(
        f"Pot limit: no pot carries more than {m(POT_LIMIT)} into a hand. When the losers' payments "
        f"would pass it they share it equally instead{carry_part}."
    )
    if rules.get("nobody_in") == "split":
        out.append("If nobody stays in, the game ends and the pot is split among those dealt in.")
    else:
        out.append("If nobody stays in, the pot carries to a fresh deal.")
    out.append("If one player alone stays in, they take the pot and the game is over.")
    return out


def _piranha_pot_in_words(rules: Mapping[str, Any], max_seats: int, ante: int, m: Callable[[int], str]) -> str:
    """What the losers pay into the next hand's pot, and how fast the pot can grow."""
    cap = rules.get("match_cap")
    losers = max(max_seats - 1, 1)
    if cap is not None:
        return (
            f"Losers pay the pot, at most {m(int(cap))} each, into the next hand's pot: with "
            f"{max_seats} players at most {m(min(losers * int(cap), POT_LIMIT))}."
        )
    growth = (
        f"Each loser pays the whole pot into the next hand's pot, with no cap: with {max_seats} "
        f"players the pot can grow {losers}-fold a hand"
    )
    if ante:
        start = max_seats * ante
        growth += (
            f", from {m(start)} of antes to {m(min(start * losers, POT_LIMIT))} after one showdown "
            f"and {m(min(start * losers**2, POT_LIMIT))} after two"
        )
    return f"{growth}, up to the pot limit of {m(POT_LIMIT)}."


def _piles_in_words(rules: Mapping[str, Any], max_seats: int, m: Callable[[int], str]) -> list[str]:
    """Piles' deal, forced bets, betting, lows, carries, splits and pigs."""
    out = [
        f"Piles for 2 to {max_seats} players: five hole cards each; two squares of four "
        "and a row of five shared cards, turned in nine stages."
    ]
    if rules.get("forced") == "blinds":
        out.append(
            f"Blinds: {m(int(rules['small_blind']))} small and {m(int(rules['big_blind']))} big, "
            "posted by the two players after the button."
        )
    elif int(rules.get("ante", 0)):
        out.append(f"Each player antes {m(int(rules['ante']))} every hand.")
    else:
        out.append("There is no ante.")
    bets = [m(int(b)) for b in rules.get("stage_bets", [])]
    out.append(
        f"Nine betting rounds, one after each stage, with fixed bets of {_join(bets)}; "
        f"at most {int(rules.get('max_raises', 3))} raises a round."
    )
    if rules.get("low_variant"):
        out.append(
            "Low variant: repeated ranks may be used in a low, every low card must be five or "
            "lower (best A-A-A-A-2), and a high must be a full house or better."
        )
    else:
        out.append("Low hands are ace-to-five, eight or better, with five different ranks.")
    out.append(
        f"If no half has a qualifying claimant the pot carries to the next hand, up to the pot limit "
        f"of {m(POT_LIMIT)}; the part over it is shared among those who declared."
    )
    # docs/design.md: the odd cent between the halves goes to high; ties split, odd cents clockwise from the dealer
    out.append(
        "When high and low split the pot, an odd cent goes to the high half; players who tie "
        "share a half equally, any odd cent to the first of them clockwise from the dealer."
    )
    if rules.get("pig_tie_counts"):
        out.append("A pig must win both halves; a tie for a half counts as winning it.")
    else:
        out.append("A pig must win both halves outright, or wins nothing.")
    return out


def _table_in_words(rules: Mapping[str, Any], *, timeout: str, spectators_allowed: bool) -> list[str]:
    """What every table says after its game: the turn clock (and what a timeout does), the cut, who watches."""
    seconds = int(rules.get("turn_seconds", 86400))
    out = [
        f"Each turn has a clock of {duration(seconds)}; when it runs out the player checks if that is "
        f"free and otherwise folds, and {timeout}."
    ]
    if rules.get("cut_required"):
        out.append(
            "Each deal waits until a seated player's browser has cut it, one turn clock at most; "
            "after that it is dealt without a cut."
        )
    out.append(
        "Club members who are not seated may watch the table."
        if spectators_allowed
        else "Only seated players may see the table."
    )
    return out


# ---- the events of a hand ---------------------------------------------------------------------

_PILE_WORDS = {"board": "the board", "square1": "square 1", "square2": "square 2", "row": "the row"}


def event_words(event: engine.Event, *, names: Mapping[int, str], currency: str) -> str:
    """One line of the hand log. Events never hold a card the viewer may not see (engine contract)."""

    def who(seat: int) -> str:
        return names.get(seat, f"Seat {seat}")

    def m(amount: int) -> str:
        return money(amount, currency)

    match event:
        case engine.Ante(seat=seat, amount=amount):
            return f"{who(seat)} antes {m(amount)}."
        case engine.Check(seat=seat):
            return f"{who(seat)} checks."
        case engine.Fold(seat=seat):
            return f"{who(seat)} folds."
        case engine.Decided(seat=seat):
            return f"{who(seat)} has decided."
        case engine.MatchPayment(seat=seat, amount=amount):
            return f"{who(seat)} matches the pot: {m(amount)} into the next hand's pot."
        case engine.Carry(amount=amount):
            return f"{m(amount)} carries to the next hand."
        case engine.Deal():
            return f"Hand {event.hand_number} dealt: {event.hole_cards} cards each."
        case engine.Blind(seat=seat, amount=amount):
            return f"{who(seat)} posts the {event.blind} blind of {m(amount)}."
        case engine.Turn():
            where = _PILE_WORDS.get(event.where, event.where)
            stage = f"Stage {event.stage}: the" if event.stage else "The"
            return f"{stage} dealer turns {cards_words(event.cards)} on {where}."
        case engine.Bet(seat=seat, amount=amount):
            if event.action == "raise":
                # One wording for a raise, on the buttons and in the log: what the round's bet is raised to.
                return f"{who(seat)} raises to {m(event.to)}."
            verb = {"bet": "bets", "call": "calls", "raise": "raises"}.get(event.action, "puts in")
            return f"{who(seat)} {verb} {m(amount)}."
        case engine.DropOpen(decisions=decisions):
            parts = [f"{names.get(d.seat, d.seat)} {d.decision}" for d in decisions]
            return "The hands open: " + ", ".join(parts) + "."
        case engine.DeclareOpen(decisions=decisions):
            parts = [f"{names.get(d.seat, d.seat)} {d.decision}" for d in decisions]
            return "Declarations open: " + ", ".join(parts) + "."
        case engine.Showdown(hands=hands):
            parts = []
            for h in hands:
                name = names.get(h.seat, str(h.seat))
                if isinstance(h, engine.PiranhaShown):
                    parts.append(f"{name} shows {cards_words(h.hole)}: {h.name}")
                else:
                    parts.append(
                        f"{name} declared {h.declared} and shows {cards_words(h.hole)}: "
                        f"high {h.high.name if h.high else 'none'}, low {h.low.name if h.low else 'none'}"
                    )
            return "Showdown. " + "; ".join(parts) + "."
        case engine.Award(seat=seat, amount=amount):
            hand = f" with {event.hand}" if event.hand else ""
            what = {
                "high": "the high half",
                "low": "the low half",
                "split": "a share of the pot",
                "over_limit": "a share of what is over the pot limit",
            }.get(event.share, "the pot")
            return f"{who(seat)} wins {m(amount)} ({what}){hand}."
    raise AssertionError(f"an event with no words: {event!r}")  # pragma: no cover - every kind is told


# ---- the table ----------------------------------------------------------------------------------

_STATUS_WORDS = {"active": "playing", "folded": "folded"}
_SAME = {"fold": "folded"}  # a fold is what made the seat "folded"


def seat_state_words(seat_view: engine.SeatView | None, *, is_me: bool = False) -> str:
    """A seat's state in the hand, each fact said once: 'playing · bet', 'in', 'decided', 'folded'."""
    if seat_view is None:
        return ""
    decision = seat_view.decision
    if is_me and seat_view.status == "active" and decision not in (None, "", "waiting", "decided"):
        return f"you chose {decision}"  # their own sealed decision, before the others see it
    parts: list[str] = []
    last = seat_view.last_action
    for word in (
        _STATUS_WORDS.get(seat_view.status, seat_view.status),
        _SAME.get(last, last) if last is not None else None,
        decision,
    ):
        if word and str(word) not in parts:
            parts.append(str(word))
    if len(parts) > 1 and parts[0] == "playing":
        parts = parts[1:]  # "playing · bet" says no more than "bet"
    return " · ".join(parts)


def raise_to_label(action: engine.Action, *, current: int | None, currency: str) -> str | None:
    """'Raise to $0.75' for a raise when the round's bet now is known; None for any other action."""
    if action.type != "raise" or current is None or action.amount is None:
        return None
    return f"Raise to {money(current + action.amount, currency)}"


# ---- the hand helper ----------------------------------------------------------------------------


def piles_helper_words(view: engine.HandView) -> tuple[str, str]:
    """What the hand helper says of the viewer's best legal high and low in Piles, each true at every stage:
    the hand when one qualifies; "none yet" only while a card still face down could give one; else that
    none is possible, and in the low variant (piles.txt 5.1) a high that is made but below the full house
    it needs is named as not qualifying. Empty strings for a view with no Piles hand of its own."""
    if view.game != "piles" or not isinstance(view.my_hand, engine.HighLow) or not view.my_cards:
        return "", ""
    assert isinstance(view.board, engine.PilesBoard)
    high, low = view.my_hand.high, view.my_hand.low
    return _helper_words(
        tuple(view.my_cards),
        view.board,
        bool(getattr(view.rules, "low_variant", False)),
        high.name if high is not None else None,
        low.name if low is not None else None,
    )


# A seat's words change only when a card turns, but its every private frame asks: each asked once (the search of
# what may still come is the dearest part of a Piles frame).
@functools.lru_cache(maxsize=4096)
def _helper_words(
    cards: tuple[str, ...], board: engine.PilesBoard, variant: bool, high: str | None, low: str | None
) -> tuple[str, str]:
    """``piles_helper_words`` of a seat holding ``cards`` on ``board`` whose best high and low are ``high`` and
    ``low`` (their names; None: none qualifies)."""
    reach = piles_reach(cards, board, variant) if high is None or low is None else None
    if high is not None:
        high_words = high
    elif reach is not None and reach.high:
        high_words = "none yet"
    else:
        made = piles_high_made(cards, board)
        high_words = (
            f"none that qualifies (your best is {made}; the low variant needs a full house or better)"
            if made
            else "no high possible"
        )
    low_words = low if low is not None else "none yet" if reach is not None and reach.low else "no low possible"
    return high_words, low_words


def advance_words(row: AdvanceAction, currency: str = "USD") -> str:
    """The owner's words for their stored advance action (games/services/advance.py)."""
    if row.choice == AdvanceChoice.CALL:
        return f"Call {money(row.owed, currency)}"
    return ADVANCE_WORDS.get(row.choice, row.choice)
