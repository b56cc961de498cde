"""Dealing a table's next hand: who is dealt in, the button, the shuffle and its commitment."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from accounts.models import Membership, User
from games import engine
from games.errors import TableRefused
from games.models import Hand, Seat, Table
from games.services.clocks import earliest_deadline, turn_clocks
from games.services.locking import hand_state_committed
from games.services.proof import deal_salts
from ledger.services import ledger_post_hand_events


def deck_for_new_hand() -> list[str]:
    """A fresh deck from the engine's CSPRNG shuffle, once per hand (DESIGN.md "Engine contract")."""
    return list(engine.shuffled_deck())


def active_seats(table: Table) -> list[Seat]:
    """Open seats dealt into the next hand: not sitting out, and still members of the club."""
    return list(table.seats.filter(left_at__isnull=True, sitting_out=False,
                                   user__memberships__club_id=table.club_id)
                .select_related("user").order_by("number"))


def _leave_former_members(table: Table) -> None:
    """Leave the open seats of those no longer members of the table's club (removed mid-hand, they
    stayed seated until it ended). Expects the table row locked in an open transaction."""
    members = Membership.objects.filter(club_id=table.club_id).values("user_id")
    table.seats.filter(left_at__isnull=True).exclude(user_id__in=members).update(
        left_at=timezone.now(), sitting_out=True)


def _next_button(previous: int, numbers: Sequence[int], first: bool) -> int:
    """The dealer button moves one seat each hand (DESIGN.md): the next active seat clockwise."""
    if first:
        return numbers[0]
    above = [n for n in numbers if n > previous]
    return above[0] if above else numbers[0]


def hand_deal(*, table: Table, created_by: User | None, deck: Sequence[str] | None = None,
              also_save: Sequence[str] = ()) -> Hand | None:
    """Deal the table's next hand to every active seat; None (table back to waiting) with too few.

    Expects an open transaction holding the table row's lock (select_for_update).
    ``deck``: a fixed deck order (tests); by default a fresh CSPRNG shuffle. ``also_save``: fields of
    ``table`` the caller changed, saved with the table's own changes here (one statement).
    Publishes the Merkle root of one salted leaf per deck position (games/engine/verify.py) and
    keeps the deck and the salts, which are opened card by card only by right (games/services/proof.py).
    """
    dealt = hand_deal_to(table=table, created_by=created_by, deck=deck, also_save=also_save)
    return dealt[0] if dealt is not None else None


def hand_deal_to(*, table: Table, created_by: User | None, deck: Sequence[str] | None = None,
                 also_save: Sequence[str] = ()) -> tuple[Hand, dict[int, User], engine.State] | None:
    """``hand_deal``, also returning who was dealt in at each seat (members of the club, read in this
    transaction with their seats) and the hand's engine state."""
    rules = engine.rules_from_dict(table.rule_version.rules)
    _leave_former_members(table)
    seats = active_seats(table)
    if len(seats) < rules.min_players:
        table.status = Table.Status.OPEN
        table.save(update_fields=_fields("status", also=also_save))
        return None
    numbers = [s.number for s in seats]
    earlier = table.hands.count()
    button = _next_button(table.button, numbers, first=earlier == 0)
    cards = list(deck) if deck is not None else deck_for_new_hand()
    salts = deal_salts()
    number = earlier + 1
    try:
        state, events = engine.new_hand(rules, seats=numbers, button=button, deck=cards,
                                        carry_pot=table.carry_pot, hand_number=number)
    except engine.EngineError as exc:
        raise TableRefused(str(exc)) from exc
    event_dicts = [engine.event_to_json(e) for e in events]
    clocks = turn_clocks(rules=rules, state=state, version=0, seat_users={s.number: s.user for s in seats})
    hand = Hand.objects.create(
        table=table, number=number, rule_version=table.rule_version,
        players={str(s.number): s.user_id for s in seats}, button=button, carry_in=table.carry_pot,
        deck=list(state.deck), scheme=engine.SCHEME_MERKLE, salts=salts, commitment="",
        state=engine.state_to_json(state), deal_events=event_dicts, version=0,
        deadline=earliest_deadline(clocks), clocks=clocks)
    # The leaves name the hand, so the root is computed once its id exists (same transaction).
    hand.commitment = engine.merkle_root(hand.pk, state.deck, salts)
    hand.save(update_fields=["commitment"])
    hand_state_committed(hand=hand, state=state)
    ledger_post_hand_events(hand=hand, events=event_dicts, seat_users={s.number: s.user for s in seats},
                            created_by=created_by)
    table.status = Table.Status.RUNNING
    table.button = button
    table.carry_pot = 0
    table.stopped_at_hand = None
    table.save(update_fields=_fields("status", "button", "carry_pot", "stopped_at_hand", also=also_save))
    return hand, {s.number: s.user for s in seats}, state


def _fields(*names: str, also: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*names, *also]))
