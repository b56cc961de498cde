"""Dealing a table's next hand: who is dealt in, the button, the shuffle and its commitment."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils import timezone

import engine
from accounts.models import Membership, User
from games.errors import TableRefused
from games.models import ComputerPlayer, Hand, Seat, Table
from games.selectors.rows import Columns, rows_fetch, rows_split
from games.services.clocks import earliest_deadline, turn_clocks
from games.services.decks import deal_waits_for_cut, deck_ahead_deal, deck_ahead_set_aside, decks_after_deal
from games.services.locking import hand_state_committed
from games.services.proof import deal_salts
from kernel.statements import Insert, Update, UpdateInsert
from ledger.services import HandEvents, ledger_post_hand_events


def fixed_dealt_order() -> list[str] | None:
    """None: the deal is cut from the deck committed ahead. Tests (the ``fixed_decks`` fixture) return the
    order the cards are dealt in; such a hand is committed at its deal under scheme "merkle-sha256-v1"."""
    return None


def active_seats(table: Table) -> list[Seat]:
    """Open seats dealt into the next hand: not sitting out, and still members of the club."""
    member = Exists(Membership.objects.filter(user_id=OuterRef("user_id"), club_id=table.club_id))
    computer = Exists(ComputerPlayer.objects.filter(user_id=OuterRef("user_id")))  # practice tables only (0012)
    return list(
        table.seats.filter(member | computer, left_at__isnull=True, sitting_out=False)
        .select_related("user")
        .order_by("number")
    )


_SEAT, _USER = Columns(Seat, "s"), Columns(User, "u")
# The open seats of those no longer members of the table's club are left (removed mid-hand, they stayed seated
# until it ended), the seats dealt into the next hand (``active_seats``) read, with the hands the table had and
# the id the next one takes (its commitment names it, so it is known before the INSERT, which then writes the
# whole row at once), in one statement. The SELECT sees the seats as they were before the UPDATE, and the
# seats it leaves are of non-members, whom it leaves out. MATERIALIZED: one id taken, not one per seat.
_LEAVE_AND_ACTIVE_SQL = (
    'WITH gone AS (UPDATE "games_seat" SET "left_at" = %s, "sitting_out" = true '  # noqa: S608 - fixed columns
    'WHERE "table_id" = %s AND "left_at" IS NULL AND NOT ("user_id" IN '
    '(SELECT "user_id" FROM "accounts_membership" WHERE "club_id" = %s) '
    'OR "user_id" IN (SELECT "user_id" FROM "games_computerplayer"))), '
    'next AS MATERIALIZED (SELECT COUNT(*) AS "earlier", '
    'nextval(pg_get_serial_sequence(\'"games_hand"\', \'id\')) AS "id" FROM "games_hand" WHERE "table_id" = %s) '
    f'SELECT {_SEAT.sql}, {_USER.sql}, next."earlier", next."id" '
    'FROM "games_seat" s JOIN "accounts_user" u ON u."id" = s."user_id" CROSS JOIN next '
    'WHERE s."table_id" = %s AND s."left_at" IS NULL AND NOT s."sitting_out" AND (EXISTS (SELECT 1 FROM '
    '"accounts_membership" m WHERE m."user_id" = s."user_id" AND m."club_id" = %s) OR EXISTS (SELECT 1 FROM '
    '"games_computerplayer" c WHERE c."user_id" = s."user_id")) ORDER BY s."number"'
)


def _leave_former_members_then_active_seats(table: Table) -> tuple[list[Seat], int, int]:
    """Leave the open seats of former members; return ``active_seats`` (with their users), how many hands the
    table had and an id for its next hand (0 and 0 when no seat is active). One statement written once.
    Expects the table row locked in an open transaction."""
    seats, earlier, hand_id = [], 0, 0
    for row in rows_fetch(
        _LEAVE_AND_ACTIVE_SQL, [timezone.now(), table.pk, table.club_id, table.pk, table.pk, table.club_id]
    ):
        seat, user = rows_split(row, _SEAT, _USER)
        Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
        earlier, hand_id = int(row[-2]), int(row[-1])
    return seats, earlier, hand_id  # type: ignore[return-value]


_HAND_INSERT = Insert(Hand, with_pk=True)


@functools.cache
def _table_update(fields: tuple[str, ...]) -> Update:
    return Update(Table, fields)


@functools.cache
def _table_update_with_hand(fields: tuple[str, ...]) -> UpdateInsert:
    return UpdateInsert(_table_update(fields), _HAND_INSERT)


def table_save(table: Table, fields: Sequence[str]) -> None:
    """``table.save(update_fields=fields)``, as a statement written once per list of fields. Expects the table
    row locked in an open transaction."""
    _table_update(tuple(fields)).run(table)


def _table_save_with(table: Table, fields: Sequence[str], hand: Hand) -> None:
    """``table_save(table, fields)`` and the insert of the new ``hand`` (its id set), in one statement."""
    _table_update_with_hand(tuple(fields)).run(table, hand)


def _next_button(previous: int, numbers: Sequence[int], first: bool) -> int:
    """The dealer button moves one seat each hand (docs/design.md): the next active seat clockwise."""
    if first:
        return numbers[0]
    above = [n for n in numbers if n > previous]
    return above[0] if above else numbers[0]


def hand_deal(
    *, table: Table, created_by: User | None, deck: Sequence[str] | None = None, also_save: Sequence[str] = ()
) -> Hand | None:
    """Deal the table's next hand to every active seat; None (table back to waiting) with too few.

    Expects an open transaction holding the table row's lock (select_for_update).
    ``deck``: a fixed order to deal (tests); by default the deck committed ahead for this deal, cut by every
    cut received for it (games/services/decks.py). ``also_save``: fields of ``table`` the caller changed, saved
    with the table's own changes here (one statement). The hand keeps the committed deck, its salts and
    root (one salted leaf per position, engine/verify.py) and the cuts; cards are opened one by one
    only by right (games/services/proof.py).
    """
    dealt = hand_deal_to(table=table, created_by=created_by, deck=deck, also_save=also_save)
    return dealt[0] if dealt is not None else None


def hand_deal_to(
    *,
    table: Table,
    created_by: User | None,
    deck: Sequence[str] | None = None,
    also_save: Sequence[str] = (),
    result: HandEvents | None = None,
) -> tuple[Hand, dict[int, User], engine.State] | None:
    """``hand_deal``, also returning who was dealt in at each seat (members of the club, read in this
    transaction with their seats) and the hand's engine state. ``result``: the chip events of the hand whose
    end deals this one, not posted yet: posted before the antes, with them (one statement), or alone when
    no hand is dealt."""
    rules = engine.rules_from_dict(table.rule_version.rules)
    seats, earlier, fresh_id = _leave_former_members_then_active_seats(table)
    number = earlier + 1
    chosen = (
        _deck_chosen(table=table, number=number, rules=rules, deck=deck, fresh_id=fresh_id)
        if len(seats) >= rules.min_players
        else None
    )
    if chosen is None:  # too few players, or the deal waits for a cut
        table.status = Table.Status.OPEN
        table_save(table, _fields("status", also=also_save))
        hand_result_post(result)
        return None
    numbers = [s.number for s in seats]
    button = _next_button(table.button, numbers, first=earlier == 0)
    try:
        state, events = engine.new_hand(
            rules,
            seats=numbers,
            button=button,
            deck=chosen.cards,
            carry_pot=table.carry_pot,
            hand_number=_in_game(table),
        )
    except engine.EngineError as exc:
        raise TableRefused(str(exc)) from exc
    event_dicts = [engine.event_to_json(e) for e in events]
    seat_users = {s.number: s.user for s in seats}
    clocks = turn_clocks(rules=rules, state=state, version=0, seat_users=seat_users)
    hand = Hand(
        pk=chosen.hand_id,
        table=table,
        number=number,
        rule_version=table.rule_version,
        players={str(s.number): s.user_id for s in seats},
        button=button,
        carry_in=table.carry_pot,
        deck=chosen.committed,
        scheme=chosen.scheme,
        salts=chosen.salts,
        commitment=engine.merkle_root(chosen.hand_id, chosen.committed, chosen.salts, scheme=chosen.scheme),
        cuts=chosen.cuts,
        state=engine.state_to_json(state),
        deal_events=event_dicts,
        version=0,
        deadline=earliest_deadline(clocks),
        clocks=clocks,
    )
    table.status = Table.Status.RUNNING
    table.button = button
    table.carry_pot = 0
    table.stopped_at_hand = None
    # The table's row (locked already) is written with the hand's insert, in one statement.
    _table_save_with(table, _fields("status", "button", "carry_pot", "stopped_at_hand", also=also_save), hand)
    if not chosen.drawn:  # else the deal's statement drew the deck after next and closed the next list (decks.py)
        # The id taken from the sequence goes to a later deal only when it is newer than this hand's: hand ids
        # grow with the deals (the pages order frames by them, docs/live.md). The next deal's list closes now,
        # its public moment (docs/fairness.md).
        decks_after_deal(
            table=table, number=number, rules=rules, spare_id=fresh_id if chosen.hand_id < fresh_id else None
        )
    hand_state_committed(hand=hand, state=state)
    ledger_post_hand_events(hand=hand, events=event_dicts, seat_users=seat_users, created_by=created_by, first=result)
    return hand, seat_users, state


@dataclass(frozen=True, slots=True)
class _Deck:
    """What a deal is dealt from: the hand's id (its deck's reserved one), the deck as committed, its salts and
    scheme, the cards in the order dealt, the cuts they were dealt through, and whether the deal's statement drew
    the deck after next and closed the next deal's list (games/services/decks.py)."""

    hand_id: int
    committed: list[str]
    salts: list[str]
    scheme: str
    cards: list[str]
    cuts: list[dict[str, Any]]
    drawn: bool


def _deck_chosen(
    *, table: Table, number: int, rules: engine.Rules, deck: Sequence[str] | None, fresh_id: int
) -> _Deck | None:
    """The deck deal ``number`` is dealt from: a fixed order (tests), else the deck committed ahead, cut
    (``fresh_id``: the id the deal took from the hands' sequence). None when the house rule makes the deal wait
    for a cut; never at a practice table: no browser may be there to cut it."""
    fixed = list(deck) if deck is not None else fixed_dealt_order()
    if fixed is not None:
        hand_id = deck_ahead_set_aside(table=table, number=number) or fresh_id
        return _Deck(hand_id, fixed, deal_salts(), engine.SCHEME_MERKLE, fixed, [], drawn=False)
    if not table.practice and deal_waits_for_cut(table=table, number=number, rules=rules):
        return None
    ahead, cuts, drawn = deck_ahead_deal(table=table, number=number, rules=rules, spare_id=fresh_id)
    committed = list(ahead.deck)
    cards = engine.deck_dealt(
        committed, ahead.root, [c["cut"] for c in cuts], scheme=ahead.scheme, table_id=table.pk, deal=number
    )
    return _Deck(ahead.hand_id, committed, list(ahead.salts), ahead.scheme, list(cards), cuts, drawn)


def hand_result_post(result: HandEvents | None) -> None:
    """A finished hand's ``result`` (``hand_deal_to``), posted alone: no hand is dealt whose antes it could go
    with."""
    if result is not None:
        ledger_post_hand_events(
            hand=result.hand, events=result.events, seat_users=result.seat_users, created_by=result.created_by
        )


def _in_game(table: Table) -> int:
    """The next hand's number in the game being played (1: a game's first hand, whose ante piranha.txt's
    house rule may make the only one): a table deals game after game, ``hands_played`` counts the game's."""
    return table.hands_played + 1


def _fields(*names: str, also: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*names, *also]))
