"""Reads of hands: the hand at a table, who was dealt in, the history, the log, and ``hand_view_for``,
which holds all of "who sees what": pages and sockets build a member's view of a hand only through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

import engine
from accounts.models import Club, User
from engine import piles as engine_piles
from engine import piranha as engine_piranha
from games.models import AdvanceAction, ClubExport, Hand, HandAction, Table
from games.selectors.rows import Columns, rows_fetch
from games.timing.turn_clock import TurnClock
from ledger.models import JournalEntry
from ledger.paging import keyset_page


def hand_current(*, table: Table) -> Hand | None:
    """The hand being played, else the last one played (to show its showdown)."""
    return table.hands.select_related("rule_version").order_by("-number").first()


def hand_of_table(*, table: Table, hand_id: int) -> Hand | None:
    """Hand ``hand_id`` when it is one of ``table``'s, else None."""
    return table.hands.select_related("rule_version").filter(pk=hand_id).first()


def hand_table_of(*, hand_id: int) -> int | None:
    """The table of hand ``hand_id`` (None: no such hand)."""
    found: int | None = Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    return found


def hand_get(*, hand_id: int) -> Hand | None:
    return Hand.objects.select_related("table__club", "rule_version__rule_set").filter(pk=hand_id).first()


def hand_seat_of(*, hand: Hand, user: User) -> int | None:
    """The seat ``user`` was dealt in at in ``hand`` (by the hand's own player list, never by
    who sits in that chair now), or None."""
    for seat, user_id in hand.players.items():
        if int(user_id) == user.pk:
            return int(seat)
    return None


def hand_view_for(*, hand: Hand, user: User | None) -> engine.HandView:
    """What ``user`` may see of ``hand``: the engine's view of their seat, or the public view.

    Only a player dealt into the hand gets a seat's view (their hole cards, their own
    sealed decision); everyone else gets ``engine.view(state, None)`` (so does a player of a hand read
    from a club export whose own cards the file did not hold: ``hand_card_seat``).
    ``engine.view_to_json`` prints it for a socket, the API or an export.
    """
    seat = hand_card_seat(hand=hand, user=user) if user is not None else None
    return engine.view(engine.state_from_json(hand.state), seat)


def hand_closed_positions(*, hand: Hand) -> dict[int, str]:
    """Deck position -> leaf hash of each card ``hand`` holds only as a stand-in: a hand read from a club
    export, which holds only the cards opened to all (clubdata/archive.py). Empty for a hand dealt here."""
    return {int(position): str(leaf) for position, leaf in (hand.closed_leaves or {}).items()}


def hand_cut_values(*, hand: Hand) -> list[str]:
    """The cuts ``hand`` was dealt through, as its scheme orders them (none for a hand of an older scheme)."""
    return [str(c["cut"]) for c in hand.cuts or []]


def hand_deck_dealt(*, hand: Hand) -> list[str]:
    """The order ``hand``'s cards were dealt in: its committed deck cut by root and cuts (the cut's schemes,
    engine/verify.py); older schemes committed the dealt order itself."""
    if hand.scheme not in engine.SCHEMES_CUT:
        return list(hand.deck)
    return list(
        engine.deck_dealt(
            hand.deck,
            hand.commitment,
            hand_cut_values(hand=hand),
            scheme=hand.scheme,
            table_id=hand_signed_table(hand=hand),
            deal=hand.number,
        )
    )


def hand_signed_table(*, hand: Hand) -> int:
    """The table id a signed-cut hand's cuts and shuffle are bound to: its own, or, for a hand read from a club
    export, the table it was dealt at on the site that dealt it."""
    return hand.signed_table or hand.table_id


def hand_committed_positions(*, hand: Hand, state: engine.State, seat: int | None) -> set[int]:
    """The committed deck positions of the cards ``seat``'s view of the finished ``hand`` shows
    (``engine.opened_positions`` names them in the order dealt; the cut moved them)."""
    where = {card: i for i, card in enumerate(hand.deck)}
    return {where[state.deck[p]] for p in engine.opened_positions(state, seat)}


def hand_card_seat(*, hand: Hand, user: User) -> int | None:
    """The seat whose view of ``hand`` ``user`` gets: their own (``hand_seat_of``), unless the hand came from
    a club export without their hole cards (the cards there are stand-ins): then None, the public view."""
    seat = hand_seat_of(hand=hand, user=user)
    closed = hand_closed_positions(hand=hand)
    if seat is None or not closed:
        return seat
    state = engine.state_from_json(hand.state)
    where = {card: i for i, card in enumerate(hand.deck)}  # closed positions are committed positions
    own = state.hole[state.seats.index(seat)]
    return None if any(where[card] in closed for card in own) else seat


SEALED_PHASES = frozenset({engine_piranha.VARIANT.sealed, engine_piles.VARIANT.sealed})  # "drop", "declare"


def hand_sealed_open(*, hand: Hand | None) -> bool:
    """Whether ``hand`` is in a sealed decision (Piranha's drop, Piles' declaration) that has not been
    opened: one under way, or one a table's closing stopped (the hand ended in it, never opened). While it
    is, others may learn of each seat only "decided" or "waiting" (docs/design.md, "Engine contract"): not how a
    seat decided (a timeout, away, a removal), nor when its clock runs out."""
    if hand is None:
        return False
    return str(hand.state.get("phase")) in SEALED_PHASES


def sealed_action_hidden(*, hand: Hand, row: HandAction, seat: int | None) -> bool:
    """Whether ``row`` is a sealed decision that ``seat`` (None: anyone but its maker) may not read: made
    in a sealed decision never opened (``hand_sealed_open``), by another seat."""
    return (
        row.seat != seat
        and hand_sealed_open(hand=hand)
        and bool(row.events)
        and str(row.events[0].get("kind")) == "decided"
    )


#: What is told of a sealed decision ``sealed_action_hidden`` keeps: that the seat decided.
HIDDEN_DECISION = {"type": "decided"}


def hand_action_shown(*, hand: Hand, row: HandAction, seat: int | None) -> dict[str, Any]:
    """``row``'s action as ``seat`` (None: anyone) may read it: ``HIDDEN_DECISION`` for a sealed decision
    never opened, made by another seat (``sealed_action_hidden``)."""
    if sealed_action_hidden(hand=hand, row=row, seat=seat):
        return dict(HIDDEN_DECISION)
    return dict(row.action)


def hand_to_act(*, hand: Hand) -> list[int]:
    """Seats whose decision is awaited (public: the table shows who has still to act)."""
    if hand.is_finished:
        return []
    return list(engine.to_act(engine.state_from_json(hand.state)))


HISTORY_PAGE_SIZE = 50


def hand_history(
    *, table: Table, before: int | None = None, dealt_to: User | None = None, size: int = HISTORY_PAGE_SIZE
) -> tuple[list[Hand], int | None]:
    """One page of the table's finished hands, newest first, paged by key (hand number): those numbered
    below ``before``; with ``dealt_to``, only the hands that member was dealt into. Returns the page
    and the ``before`` of the next (older) page, None when this is the last."""
    qs = table.hands.filter(finished_at__isnull=False)
    if dealt_to is not None:
        qs = qs.annotate(
            dealt=RawSQL(
                "EXISTS (SELECT 1 FROM jsonb_each_text(games_hand.players) p WHERE p.value = %s)",
                (str(dealt_to.pk),),
                output_field=BooleanField(),
            )
        ).filter(dealt=True)
    return keyset_page(qs, key="number", before=before, size=size)


def hand_actions(*, hand: Hand) -> QuerySet[HandAction]:
    return hand.actions.select_related("user").order_by("sequence")


def hand_seat_users(*, hand: Hand, known: dict[int, User] | None = None) -> dict[int, User]:
    """Seat number -> the member dealt in there, by the hand's own player list (never by who sits in that
    chair now); one query, none when ``known`` (user id -> member, already read) holds them all."""
    ids = {int(seat): int(uid) for seat, uid in hand.players.items()}
    users = dict(known or {})
    missing = [uid for uid in ids.values() if uid not in users]
    if missing:
        users.update(User.objects.in_bulk(missing))
    return {seat: users[uid] for seat, uid in ids.items() if uid in users}


_USER = Columns(User, "u")
# Each player of a hand, whether they are a member of a club, whether any advance action of the hand is
# pending, and whether it has any at all (none: the version's frames read none): the action's path asks on
# every step, after it locked the hand (so the answer holds for the transaction: advance actions are set only
# under the hand's lock).
# A computer player (games/services/practice.py) counts as a member: it sits only at practice tables (migration
# 0012).
# The ids are written out one parameter each (the statement's text differs only with the number of players), so
# PostgreSQL's generic plan for the connection's prepared copy expects as many rows as a plan for the values and
# is kept: given the ids as one array (``u.id = ANY(%s)``), the generic plan expected some other count, cost more
# than the custom ones and was made afresh at every action on a small database, or at a page cost of 4.
_PLAYERS_SQL = (
    f'SELECT {_USER.sql}, EXISTS (SELECT 1 FROM "accounts_membership" m '  # noqa: S608 - fixed
    'WHERE m.club_id = %s AND m.user_id = u.id) OR EXISTS (SELECT 1 FROM "games_computerplayer" c '
    'WHERE c.user_id = u.id), EXISTS (SELECT 1 FROM "games_advanceaction" a '
    'WHERE a.hand_id = %s AND a.status = %s), EXISTS (SELECT 1 FROM "games_advanceaction" a WHERE a.hand_id = %s) '
    'FROM "accounts_user" u WHERE u.id IN ({ids})'
)


@dataclass(frozen=True)
class HandPlayers:
    """Who plays a hand, as one statement found them."""

    seat_users: dict[int, User]  # seat -> the member dealt in there (``hand_seat_users``)
    removed: set[int]  # seats whose player is no longer a member of the table's club
    advance_pending: bool | None  # whether an advance action of the hand is pending (None: not known)
    advance_any: bool | None = None  # whether the hand has any advance action, pending or not (None: not known)


def hand_players(*, hand: Hand, club_id: int) -> HandPlayers:
    """``hand_seat_users`` of ``hand``, the seats among them whose player is no longer a member of club
    ``club_id`` (the hand's table's), and whether an advance action of the hand is pending: one statement,
    written out once (games/selectors/rows.py). Ask it with the hand row locked for the last answer to hold."""
    ids = {int(seat): int(uid) for seat, uid in hand.players.items()}
    users: dict[int, User] = {}
    members: set[int] = set()
    pending: bool | None = None
    any_advance: bool | None = None
    players = sorted(set(ids.values()))
    sql = _PLAYERS_SQL.replace("{ids}", ", ".join(["%s"] * len(players)) or "NULL")  # none: no row
    for row in rows_fetch(sql, [club_id, hand.pk, AdvanceAction.Status.PENDING.value, hand.pk, *players]):
        user = _USER.build(row[: _USER.count])
        users[user.pk] = user
        if row[_USER.count]:
            members.add(user.pk)
        pending = bool(row[_USER.count + 1])
        any_advance = bool(row[_USER.count + 2])
    seat_users = {seat: users[uid] for seat, uid in ids.items() if uid in users}
    return HandPlayers(
        seat_users=seat_users,
        removed={s for s, u in seat_users.items() if u.pk not in members},
        advance_pending=pending,
        advance_any=any_advance,
    )


def hand_player_names(*, hand: Hand) -> dict[int, str]:
    users = hand_seat_users(hand=hand)
    return {int(seat): users[int(seat)].shown_name if int(seat) in users else f"Seat {seat}" for seat in hand.players}


def hand_exports(*, hand: Hand) -> list[ClubExport]:
    """The club exports made since ``hand`` ended: each file holds its whole deck, folded hands included."""
    if hand.finished_at is None:
        return []
    return list(
        ClubExport.objects.filter(club_id=hand.table.club_id, created_at__gte=hand.finished_at)
        .select_related("exported_by")
        .order_by("created_at", "pk")
    )


def hand_ledger_entries(*, hand: Hand) -> list[JournalEntry]:
    """The journal entries posted for a hand, with their postings, in order."""
    return list(
        JournalEntry.objects.filter(hand=hand).prefetch_related("postings__account__user").order_by("created_at", "pk")
    )


def hand_in_table(*, table: Table, hand_id: int) -> bool:
    """Whether hand ``hand_id`` is one of ``table``'s."""
    return table.hands.filter(pk=hand_id).exists()


def hand_running_clocks(*, hand_id: int) -> tuple[int, datetime | None, dict[str, TurnClock], str] | None:
    """(version, deadline, clocks, commitment) of hand ``hand_id`` while it is played; None once finished or
    voided."""
    row = (
        Hand.objects.filter(pk=hand_id, finished_at__isnull=True, voided_at__isnull=True)
        .values_list("version", "deadline", "clocks", "commitment")
        .first()
    )
    return (int(row[0]), row[1], dict(row[2] or {}), str(row[3])) if row is not None else None


def hands_overdue(*, now: datetime, limit: int) -> list[tuple[int, int]]:
    """(hand id, version) of the unfinished hands whose earliest clock ran out by ``now``, the longest
    overdue first (indexed on ``Hand.deadline``)."""
    return list(
        Hand.objects.filter(deadline__lte=now, finished_at__isnull=True, voided_at__isnull=True)
        .order_by("deadline")
        .values_list("pk", "version")[:limit]
    )


def club_exports_recent(*, club: Club, limit: int = 50) -> list[ClubExport]:
    """The club's newest exports, each with who made it (the club data page lists them)."""
    return list(ClubExport.objects.filter(club=club).select_related("exported_by").order_by("-created_at")[:limit])
