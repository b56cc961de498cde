"""Reads of a finished hand's proof: which cards of its deal a member may open and check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine
from accounts.models import User
from games.models import Hand, HandDispute
from games.selectors.cuts import devices_of, hand_cut_summary
from games.selectors.hands import (
    hand_closed_positions,
    hand_committed_positions,
    hand_cut_values,
    hand_player_names,
    hand_seat_of,
    hand_signed_table,
)


@dataclass(frozen=True)
class HandProof:
    """What one member may check of a finished hand's deal (docs/design.md "Engine contract").

    ``openings``: {position, card, salt, path, opened_as} for each card they may open: the board and
    the shown hands (everyone), their own hole cards (a player), every card once an organiser's ruling
    opened the hand (its players and the organisers). ``dispute``: that ruling, to those who may read it.
    """

    hand: Hand
    scheme: str
    openings: list[dict[str, Any]]
    dispute: HandDispute | None
    may_open: bool  # an organiser who may still open the hand by a ruling
    deck_shown: bool = False  # an older hand's whole deck, to a viewer who may see every card of it
    cuts: list[dict[str, Any]] | None = (
        None  # v1: {cut, by, at} as received; v2: {cut, device, n, e, signature, member}
    )
    claim: str = ""  # what the deal rests on, in words (games/selectors/cuts.py deal_claim_words)

    def export(self) -> dict[str, Any]:
        """The JSON export checked by ``python -m engine.verify`` (and the hand page's script)."""
        hand = self.hand
        head: dict[str, Any] = {
            "scheme": self.scheme,
            "hand_id": hand.pk,
            "table": hand.table.name,
            "hand_number": hand.number,
            "game": hand.rule_version.rule_set.game,
        }
        if self.scheme == engine.SCHEME_DECK and not self.deck_shown:
            return {**head, "commitment": hand.commitment, "deck": None, "salt": None}
        if self.scheme == engine.SCHEME_DECK:
            return {**head, "commitment": hand.commitment, "deck": list(hand.deck), "salt": hand.salt}
        out = {**head, "root": hand.commitment, "openings": self.openings}
        if self.scheme == engine.SCHEME_CUT:
            out["cuts"] = self.cuts or []
        if self.scheme == engine.SCHEME_CUT_V2:  # docs/fairness.md "Protocol" 11: the proof binds the table
            out["table_id"] = hand_signed_table(hand=hand)
            out["button"] = hand.button
            out["seats"] = [{"seat": int(seat), "member": name} for seat, name in sorted(_seat_names(hand).items())]
            out["cuts"] = self.cuts or []
        if self.dispute is not None:
            out["ruling"] = {
                "reason": self.dispute.reason,
                "by": self.dispute.ruled_by.shown_name,
                "at": self.dispute.created_at.isoformat(),
            }
        return out


def hand_proof_for(*, hand: Hand, user: User, is_organiser: bool) -> HandProof:
    """The openings ``user`` may have of the finished ``hand`` (the caller checked they may see the hand).

    A card held only as its leaf (a hand read from a club export: ``hand_closed_positions``) is never
    opened; its leaf still takes its place in every path, so the openings check against the root."""
    state = engine.state_from_json(hand.state)
    seat = hand_seat_of(hand=hand, user=user)
    dispute = (
        HandDispute.objects.select_related("ruled_by").filter(hand=hand).first()
        if seat is not None or is_organiser
        else None
    )
    closed = hand_closed_positions(hand=hand)
    if hand.scheme == engine.SCHEME_DECK:  # older hands: one commitment of the whole deck
        return HandProof(
            hand=hand,
            scheme=hand.scheme,
            openings=[],
            dispute=dispute,
            may_open=is_organiser and dispute is None and not closed,
            deck_shown=not closed and (dispute is not None or _sees_every_hole_card(state, seat)),
        )
    names = hand_player_names(hand=hand)
    public = hand_committed_positions(hand=hand, state=state, seat=None) - set(closed)
    own = (
        hand_committed_positions(hand=hand, state=state, seat=seat) - public - set(closed)
        if seat is not None
        else set()
    )
    ruled = set(range(len(hand.deck))) - public - own - set(closed) if dispute is not None else set()
    holder = {c: s for j, s in enumerate(state.seats) for c in state.hole[j]}  # hole card -> seat
    cut = hand.scheme in engine.SCHEMES_CUT
    dealt_at = {p: d for d, p in enumerate(_order(hand))} if cut else {}
    v2 = hand.scheme == engine.SCHEME_CUT_V2
    out = []
    for o in engine.openings(hand.pk, hand.deck, hand.salts, public | own | ruled, closed, scheme=hand.scheme):
        seat_of_card = holder.get(o.card)
        whose = None if seat_of_card is None else names.get(seat_of_card, f"seat {seat_of_card}")
        if o.position in ruled:
            why = f"{whose}'s hole card, opened by the ruling" if whose else "opened by the ruling"
        elif whose is None:
            why = "board"
        else:
            why = "your hole card" if o.position in own else f"shown by {whose}"
        item = {**o.to_dict(), **({"dealt": dealt_at[o.position]} if cut else {})}
        if v2:  # what the deal made of the card, which the verifiers recompute from the button and seats
            item.update({"opened_as": "board" if seat_of_card is None else "hole", "seat": seat_of_card, "why": why})
        else:
            item["opened_as"] = why
        out.append(item)
    return HandProof(
        hand=hand,
        scheme=hand.scheme,
        openings=out,
        dispute=dispute,
        may_open=is_organiser and dispute is None and not closed,
        cuts=hand_cuts_named(hand=hand) if cut else None,
        claim=hand_cut_summary(hand=hand)["words"],
    )


def _order(hand: Hand) -> tuple[int, ...]:
    """The committed position of each card in the order ``hand`` was dealt (the cut's public shuffle)."""
    return engine.cut_order(
        hand.commitment,
        hand_cut_values(hand=hand),
        scheme=hand.scheme,
        table_id=hand_signed_table(hand=hand),
        deal=hand.number,
    )


def _seat_names(hand: Hand) -> dict[str, str]:
    """Seat (as text) -> the shown name of the member dealt in there."""
    players = {str(seat): uid for seat, uid in (hand.players or {}).items()}
    names = {u.pk: u.shown_name for u in User.objects.filter(pk__in=players.values())}
    return {seat: names.get(uid, "a former member") for seat, uid in players.items()}


def hand_cuts_named(*, hand: Hand) -> list[dict[str, Any]]:
    """The cuts ``hand`` was dealt through, as its proof lists them. Version 2: sorted by value, {cut, device,
    n, e, signature, member (a shown name)}, each device's public key with it so a verifier checks the
    signature; version 1: {cut, by (a name), at} in the order received."""
    cuts = hand.cuts or []
    if hand.scheme == engine.SCHEME_CUT_V2:
        keys = devices_of(fingerprints={c["device"] for c in cuts})
        names = {u.pk: u.shown_name for u in User.objects.filter(pk__in={c["member_id"] for c in cuts})}
        return [
            {
                "cut": c["cut"],
                "device": c["device"],
                # a hand read from a club export carries its devices' public keys in its cuts
                "n": c.get("n") or (keys[c["device"]].n if c["device"] in keys else None),
                "e": c.get("e") or (keys[c["device"]].e if c["device"] in keys else None),
                "signature": c["signature"],
                "member": names.get(c["member_id"], "a former member"),
            }
            for c in cuts
        ]
    ids = {c.get("by") for c in cuts}
    names = {u.pk: u.shown_name for u in User.objects.filter(pk__in=[i for i in ids if isinstance(i, int)])}
    return [{"cut": c["cut"], "by": names.get(c.get("by"), "a former member"), "at": c.get("at")} for c in cuts]


def _sees_every_hole_card(state: engine.State, seat: int | None) -> bool:
    """Whether ``seat``'s view of the finished hand shows every hole card dealt (no hand folded, dropped or
    won unshown hid its cards from them): only then may an older hand's whole deck be shown to them."""
    seen = set(engine.opened_positions(state, seat))
    where = {card: i for i, card in enumerate(state.deck)}
    return all(where[card] in seen for cards in state.hole for card in cards)


def hand_dispute_opened(*, hand: Hand) -> bool:
    """Whether an organiser's ruling opened every card of ``hand`` to its players."""
    return HandDispute.objects.filter(hand=hand).exists()
