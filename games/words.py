"""Plain words for members: money, durations, rule sets, cards and the events of a hand.

Pure functions over plain data (the engine's dicts), so pages, history and
(later) sockets say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accounts.money import money
from games.engine.cards import Card
from games.engine.rules import POT_LIMIT

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


# ---- rule sets --------------------------------------------------------------------------------

def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def rules_in_words(rules: Mapping[str, Any], *, max_seats: int, spectators_allowed: bool,
                   currency: str) -> list[str]:
    """The agreement as sentences, e.g. 'Each player antes $0.25 every hand.'."""
    def m(cents: int) -> str:
        return money(cents, currency)

    out: list[str] = []
    game = rules.get("game")
    if game == "piranha":
        out.append(f"Piranha for 2 to {max_seats} players: four hole cards each and a board of five, "
                   "three face up and two face down.")
        ante = int(rules.get("ante", 0))
        if ante:
            when = "every hand" if rules.get("ante_each_hand", True) else "on the first hand of a game only"
            out.append(f"Each player antes {m(ante)} {when}.")
        else:
            out.append("There is no ante.")
        if rules.get("betting_round"):
            out.append(f"After the deal there is one betting round with fixed bets of {m(int(rules['bet_size']))} "
                       f"and at most {int(rules['max_raises'])} raises; folding there is dropping out.")
        else:
            out.append("There is no betting round: after the deal everyone decides in or out, sealed, "
                       "and the decisions open together.")
        cap = rules.get("match_cap")
        losers = max(max_seats - 1, 1)
        if cap is None:
            growth = (f"Each loser pays the whole pot into the next hand's pot, with no cap: with {max_seats} "
                      f"players the pot can grow {losers}-fold a hand")
            if ante:
                start = max_seats * ante
                growth += (f", from {m(start)} of antes to {m(min(start * losers, POT_LIMIT))} after one showdown "
                           f"and {m(min(start * losers ** 2, POT_LIMIT))} after two")
            out.append(f"{growth}, up to the pot limit of {m(POT_LIMIT)}.")
        else:
            out.append(f"Losers pay the pot, at most {m(int(cap))} each, into the next hand's pot: with "
                       f"{max_seats} players at most {m(min(losers * int(cap), POT_LIMIT))}.")
        carry_part = ("" if rules.get("nobody_in") == "split" else
                      "; when nobody stays in, the part of the pot over it is shared among those dealt in")
        out.append(f"Pot limit: no pot carries more than {m(POT_LIMIT)} into a hand. When the losers' payments "
                   f"would pass it they share it equally instead{carry_part}.")
        if rules.get("nobody_in") == "split":
            out.append("If nobody stays in, the game ends and the pot is split among those dealt in.")
        else:
            out.append("If nobody stays in, the pot carries to a fresh deal.")
        out.append("If one player alone stays in, they take the pot and the game is over.")
        timeout = "a sealed in-or-out decision counts as out"
    elif game == "piles":
        out.append(f"Piles for 2 to {max_seats} players: five hole cards each; two squares of four "
                   "and a row of five shared cards, turned in nine stages.")
        if rules.get("forced") == "blinds":
            out.append(f"Blinds: {m(int(rules['small_blind']))} small and {m(int(rules['big_blind']))} big, "
                       "posted by the two players after the button.")
        elif int(rules.get("ante", 0)):
            out.append(f"Each player antes {m(int(rules['ante']))} every hand.")
        else:
            out.append("There is no ante.")
        bets = [m(int(b)) for b in rules.get("stage_bets", [])]
        out.append(f"Nine betting rounds, one after each stage, with fixed bets of {_join(bets)}; "
                   f"at most {int(rules.get('max_raises', 3))} raises a round.")
        if rules.get("low_variant"):
            out.append("Low variant: repeated ranks may be used in a low, every low card must be five or "
                       "lower (best A-A-A-A-2), and a high must be a full house or better.")
        else:
            out.append("Low hands are ace-to-five, eight or better, with five different ranks.")
        out.append(f"If no half has a qualifying claimant the pot carries to the next hand, up to the pot limit "
                   f"of {m(POT_LIMIT)}; the part over it is shared among those who declared.")
        if rules.get("pig_tie_counts"):
            out.append("A pig must win both halves; a tie for a half counts as winning it.")
        else:
            out.append("A pig must win both halves outright, or wins nothing.")
        declare = "counts as high" if rules.get("declare_timeout") == "high" else "folds"
        timeout = f"a declaration that runs out of time {declare}"
    else:
        return ["These rules name no game."]
    seconds = int(rules.get("turn_seconds", 86400))
    out.append(f"Each turn has a clock of {duration(seconds)}; when it runs out the player checks if that is "
               f"free and otherwise folds, and {timeout}.")
    out.append("Club members who are not seated may watch the table." if spectators_allowed
               else "Only seated players may see the table.")
    return out


# ---- the events of a hand ---------------------------------------------------------------------

_PILE_WORDS = {"board": "the board", "square1": "square 1", "square2": "square 2", "row": "the row"}

# Events told in one fixed sentence: {who} is the seat's name, {m} the amount.
_EVENT_SENTENCES = {
    "ante": "{who} antes {m}.",
    "check": "{who} checks.",
    "fold": "{who} folds.",
    "decided": "{who} has decided.",
    "match_payment": "{who} matches the pot: {m} into the next hand's pot.",
    "carry": "{m} carries to the next hand.",
}


def event_words(event: Mapping[str, Any], *, names: Mapping[int, str], currency: str) -> str:
    """One line of the hand log. Events never hold a card the viewer may not see (engine contract)."""
    kind = event.get("kind")
    seat = event.get("seat")
    who = names.get(seat, f"Seat {seat}") if isinstance(seat, int) else ""
    amount = event.get("amount")
    m = money(int(amount), currency) if isinstance(amount, int) else ""
    sentence = _EVENT_SENTENCES.get(kind) if isinstance(kind, str) else None
    if sentence is not None:
        return sentence.format(who=who, m=m)
    if kind == "deal":
        return f"Hand {event.get('hand_number', '')} dealt: {event.get('hole_cards', '')} cards each."
    if kind == "blind":
        return f"{who} posts the {event.get('blind', '')} blind of {m}."
    if kind == "turn":
        cards = [str(c) for c in event.get("cards", [])]
        where = _PILE_WORDS.get(str(event.get("where")), str(event.get("where")))
        stage = f"Stage {event['stage']}: the" if event.get("stage") else "The"
        return f"{stage} dealer turns {cards_words(cards)} on {where}."
    if kind == "bet":
        if event.get("action") == "raise" and isinstance(event.get("to"), int):
            # One wording for a raise, on the buttons and in the log: what the round's bet is raised to.
            return f"{who} raises to {money(int(event['to']), currency)}."
        verb = {"bet": "bets", "call": "calls", "raise": "raises"}.get(str(event.get("action")), "puts in")
        return f"{who} {verb} {m}."
    if kind == "drop_open":
        parts = [f"{names.get(d['seat'], d['seat'])} {d['decision']}" for d in event.get("decisions", [])]
        return "The hands open: " + ", ".join(parts) + "."
    if kind == "declare_open":
        parts = [f"{names.get(d['seat'], d['seat'])} {d.get('choice') or d.get('decision')}"
                 for d in event.get("decisions", [])]
        return "Declarations open: " + ", ".join(parts) + "."
    if kind == "showdown":
        parts = []
        for h in event.get("hands", []):
            name = names.get(h["seat"], str(h["seat"]))
            if "name" in h:
                parts.append(f"{name} shows {cards_words(h['hole'])}: {h['name']}")
            else:
                hi = h.get("high") or {}
                lo = h.get("low") or {}
                parts.append(f"{name} declared {h.get('declared')} and shows {cards_words(h['hole'])}: "
                             f"high {hi.get('name', 'none')}, low {lo.get('name', 'none')}")
        return "Showdown. " + "; ".join(parts) + "."
    if kind == "award":
        share = event.get("share")
        hand = f" with {event['hand']}" if event.get("hand") else ""
        what = {"high": "the high half", "low": "the low half", "split": "a share of the pot",
                "over_limit": "a share of what is over the pot limit"}.get(str(share), "the pot")
        return f"{who} wins {m} ({what}){hand}."
    if kind == "stage":
        return f"Stage {event.get('stage')}."
    extra = f" {who}" if who else ""
    return f"{str(kind).replace('_', ' ').capitalize()}{extra}{(' ' + m) if m else ''}."


# ---- the table ----------------------------------------------------------------------------------

_STATUS_WORDS = {"active": "playing", "folded": "folded"}
_SAME = {"fold": "folded"}  # a fold is what made the seat "folded"


def seat_state_words(seat_view: Mapping[str, Any] | None, *, is_me: bool = False) -> str:
    """A seat's state in the hand, each fact said once: 'playing · bet', 'in', 'decided', 'folded'."""
    if not seat_view:
        return ""
    decision = seat_view.get("decision")
    if is_me and seat_view.get("status") == "active" and decision not in (None, "", "waiting", "decided"):
        return f"you chose {decision}"  # their own sealed decision, before the others see it
    parts: list[str] = []
    for word in (_STATUS_WORDS.get(str(seat_view.get("status")), seat_view.get("status")),
                 _SAME.get(str(seat_view.get("last_action")), seat_view.get("last_action")), seat_view.get("decision")):
        if word and str(word) not in parts:
            parts.append(str(word))
    if len(parts) > 1 and parts[0] == "playing":
        parts = parts[1:]  # "playing · bet" says no more than "bet"
    return " · ".join(parts)


def raise_to_label(action: Mapping[str, Any], *, current: int | None, currency: str) -> str | None:
    """'Raise to $0.75' for a raise when the round's bet now is known; None for any other action."""
    if action.get("type") != "raise" or current is None or not isinstance(action.get("amount"), int):
        return None
    return f"Raise to {money(int(current) + int(action['amount']), currency)}"
