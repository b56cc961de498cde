"""Every read of the games app (STYLE.md: selectors own reads).

``hand_view_for`` holds all of "who sees what": pages and (later) sockets
build a member's view of a hand only through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, Max, OuterRef, QuerySet, Subquery
from django.db.models.expressions import RawSQL

from accounts.models import Club, User
from games import engine
from games.engine import piles as engine_piles
from games.engine import piranha as engine_piranha
from games.models import Hand, HandAction, HandDispute, RuleSet, RuleSetVersion, Seat, Table
from ledger.paging import keyset_page


def rule_sets_for(*, club: Club) -> QuerySet[RuleSet]:
    return (RuleSet.objects.filter(club=club).annotate(latest_number=Max("versions__number"))
            .order_by("name", "pk"))


def rule_set_get(*, club: Club, rule_set_id: int) -> RuleSet | None:
    return RuleSet.objects.filter(club=club, pk=rule_set_id).first()


def rule_set_versions(*, rule_set: RuleSet) -> QuerySet[RuleSetVersion]:
    return rule_set.versions.select_related("created_by").order_by("-number")


def rule_version_get(*, club: Club, version_id: int) -> RuleSetVersion | None:
    return (RuleSetVersion.objects.select_related("rule_set", "created_by")
            .filter(pk=version_id, rule_set__club=club).first())


def rule_versions_latest(*, club_id: int) -> QuerySet[RuleSetVersion]:
    """The newest version of each of the club's agreements (what a new table can be opened under)."""
    newest = (RuleSetVersion.objects.filter(rule_set=OuterRef("rule_set")).order_by("-number")
              .values("pk")[:1])
    return (RuleSetVersion.objects.filter(rule_set__club_id=club_id, pk=Subquery(newest))
            .select_related("rule_set").order_by("rule_set__name", "rule_set__pk"))


def table_get(*, table_id: int) -> Table | None:
    return (Table.objects.select_related("club", "rule_version__rule_set", "created_by")
            .filter(pk=table_id).first())


def table_seats(*, table: Table) -> list[Seat]:
    return list(table.seats.filter(left_at__isnull=True).select_related("user").order_by("number"))


def seat_of(*, table: Table, user: User) -> Seat | None:
    return table.seats.filter(user=user, left_at__isnull=True).first()


def free_seats(*, table: Table) -> list[int]:
    taken = set(table.seats.filter(left_at__isnull=True).values_list("number", flat=True))
    return [n for n in range(1, table.rule_version.max_seats + 1) if n not in taken]


def hand_current(*, table: Table) -> Hand | None:
    """The hand being played, else the last one played (to show its showdown)."""
    return table.hands.select_related("rule_version").order_by("-number").first()


def hand_of_table(*, table: Table, hand_id: int) -> Hand | None:
    """Hand ``hand_id`` when it is one of ``table``'s, else None."""
    return table.hands.select_related("rule_version").filter(pk=hand_id).first()


def hand_get(*, hand_id: int) -> Hand | None:
    return Hand.objects.select_related("table__club", "rule_version__rule_set").filter(pk=hand_id).first()


def hand_seat_of(*, hand: Hand, user: User) -> int | None:
    """The seat ``user`` was dealt in at in ``hand`` (by the hand's own player list, never by
    who sits in that chair now), or None."""
    for seat, user_id in hand.players.items():
        if int(user_id) == user.pk:
            return int(seat)
    return None


def table_may_watch(*, table: Table, user: User, hand: Hand | None = None) -> bool:
    """Who sees a table (pages and sockets alike): anyone in the club where the house rules allow
    spectators; otherwise its seated players and those dealt into ``hand``."""
    if table.rule_version.spectators_allowed:
        return True
    if seat_of(table=table, user=user) is not None:
        return True
    return hand is not None and hand_seat_of(hand=hand, user=user) is not None


def hand_view_for(*, hand: Hand, user: User | None) -> engine.HandView:
    """What ``user`` may see of ``hand``: the engine's view of their seat, or the public view.

    Only a player dealt into the hand gets a seat's view (their hole cards, their own
    sealed decision); everyone else gets ``engine.view(state, None)``. ``engine.view_to_json``
    prints it for a socket, the API or an export.
    """
    seat = hand_seat_of(hand=hand, user=user) if user is not None else None
    return engine.view(engine.state_from_json(hand.state), seat)


SEALED_PHASES = frozenset({engine_piranha.VARIANT.sealed, engine_piles.VARIANT.sealed})  # "drop", "declare"


def hand_sealed_open(*, hand: Hand | None) -> bool:
    """Whether ``hand`` is in a sealed decision (Piranha's drop, Piles' declaration) that has not been
    opened yet. While it is, others may learn of each seat only "decided" or "waiting" (DESIGN.md,
    "Engine contract"): not how a seat decided (a timeout, away, a removal), nor when its clock runs out."""
    if hand is None or hand.is_finished:
        return False
    return str(hand.state.get("phase")) in SEALED_PHASES


def hand_to_act(*, hand: Hand) -> list[int]:
    """Seats whose decision is awaited (public: the table shows who has still to act)."""
    if hand.is_finished:
        return []
    return list(engine.to_act(engine.state_from_json(hand.state)))


@dataclass(frozen=True)
class LobbyRow:
    table: Table
    seats: list[Seat]
    hand: Hand | None
    to_act_names: list[str]
    my_turn: bool = False  # the hand in play awaits the viewer's decision
    seated: bool = False  # the viewer holds a seat at the table


def table_list_open(*, club: Club, user: User | None = None) -> list[LobbyRow]:
    """Open and running tables of a club with their seats and whose turn it is.

    With ``user``: the tables whose hand awaits them first, then those where they sit, then the rest;
    newest first within each group.
    """
    tables = list(Table.objects.filter(club=club).exclude(status=Table.Status.FINISHED)
                  .select_related("rule_version__rule_set").order_by("-created_at"))
    rows = [_lobby_row(t, user) for t in tables]
    return sorted(rows, key=lambda r: 0 if r.my_turn else 1 if r.seated else 2)  # stable: keeps newest first


def table_list_finished(*, club: Club, limit: int = 20) -> list[Table]:
    return list(Table.objects.filter(club=club, status=Table.Status.FINISHED)
                .select_related("rule_version__rule_set").order_by("-finished_at")[:limit])


def _lobby_row(table: Table, user: User | None = None) -> LobbyRow:
    seats = table_seats(table=table)
    hand = table.hands.filter(finished_at__isnull=True).first()
    names: list[str] = []
    my_turn = False
    if hand is not None:
        by_seat = {s.number: s.user.shown_name for s in seats}
        to_act = hand_to_act(hand=hand)
        names = [by_seat.get(n, f"Seat {n}") for n in to_act]
        my_turn = user is not None and hand_seat_of(hand=hand, user=user) in to_act
    seated = user is not None and any(s.user_id == user.pk for s in seats)
    return LobbyRow(table=table, seats=seats, hand=hand, to_act_names=names, my_turn=my_turn, seated=seated)


HISTORY_PAGE_SIZE = 50


def hand_history(*, table: Table, before: int | None = None, dealt_to: User | None = None,
                 size: int = HISTORY_PAGE_SIZE) -> tuple[list[Hand], int | None]:
    """One page of the table's finished hands, newest first, paged by key (hand number): those numbered
    below ``before``; with ``dealt_to``, only the hands that member was dealt into. Returns the page
    and the ``before`` of the next (older) page, None when this is the last."""
    qs = table.hands.filter(finished_at__isnull=False)
    if dealt_to is not None:
        qs = qs.annotate(dealt=RawSQL(
            "EXISTS (SELECT 1 FROM jsonb_each_text(games_hand.players) p WHERE p.value = %s)",
            (str(dealt_to.pk),), output_field=BooleanField())).filter(dealt=True)
    return keyset_page(qs, key="number", before=before, size=size)


def hand_actions(*, hand: Hand) -> QuerySet[HandAction]:
    return hand.actions.select_related("user").order_by("sequence")


def hand_action_steps(*, hand: Hand) -> list[tuple[str, int, bool]]:
    """Each applied action of ``hand`` in order, as (the kind of its first event, how many events it
    logged, whether the clock took it): what the log needs to mark timeouts. A sealed decision's first
    event is "decided", whatever the action (a Piles declaration's default is a plain fold)."""
    rows = hand.actions.order_by("sequence").values_list("events", "is_timeout")
    return [(str((events or [{}])[0].get("kind")), len(events or []), bool(timeout)) for events, timeout in rows]


def hand_seat_users(*, hand: Hand, known: dict[int, User] | None = None) -> dict[int, User]:
    """Seat number -> the member dealt in there, by the hand's own player list (never by who sits in that
    chair now); one query, none when ``known`` (user id -> member, already read) holds them all."""
    ids = {int(seat): int(uid) for seat, uid in hand.players.items()}
    users = dict(known or {})
    missing = [uid for uid in ids.values() if uid not in users]
    if missing:
        users.update(User.objects.in_bulk(missing))
    return {seat: users[uid] for seat, uid in ids.items() if uid in users}


def hand_player_names(*, hand: Hand) -> dict[int, str]:
    users = hand_seat_users(hand=hand)
    return {int(seat): users[int(seat)].shown_name if int(seat) in users else f"Seat {seat}" for seat in hand.players}


def hand_exports(*, hand: Hand) -> list[Any]:
    """The club exports made since ``hand`` ended: each file holds its whole deck, folded hands included."""
    from games.models import ClubExport

    if hand.finished_at is None:
        return []
    return list(ClubExport.objects.filter(club_id=hand.table.club_id, created_at__gte=hand.finished_at)
                .select_related("exported_by").order_by("created_at", "pk"))


def hand_ledger_entries(*, hand: Hand) -> list[Any]:
    """The journal entries posted for a hand, with their postings, in order."""
    from ledger.models import JournalEntry

    return list(JournalEntry.objects.filter(hand=hand).prefetch_related("postings__account__user")
                .order_by("created_at", "pk"))


@dataclass(frozen=True)
class HandProof:
    """What one member may check of a finished hand's deal (DESIGN.md "Engine contract").

    ``openings``: {position, card, salt, path, opened_as} for each card they may open: the board and
    the shown hands (everyone), their own hole cards (a player), every card once an organiser's ruling
    opened the hand (its players and the organisers). ``dispute``: that ruling, to those who may read it.
    """

    hand: Hand
    scheme: str
    openings: list[dict[str, Any]]
    dispute: HandDispute | None
    may_open: bool  # an organiser who may still open the hand by a ruling

    def export(self) -> dict[str, Any]:
        """The JSON export checked by ``python -m games.engine.verify`` (and the hand page's script)."""
        hand = self.hand
        head: dict[str, Any] = {
            "scheme": self.scheme, "hand_id": hand.pk, "table": hand.table.name, "hand_number": hand.number,
            "game": hand.rule_version.rule_set.game,
        }
        if self.scheme == engine.SCHEME_DECK:
            return {**head, "commitment": hand.commitment, "deck": list(hand.deck), "salt": hand.salt}
        out = {**head, "root": hand.commitment, "openings": self.openings}
        if self.dispute is not None:
            out["ruling"] = {"reason": self.dispute.reason, "by": self.dispute.ruled_by.shown_name,
                             "at": self.dispute.created_at.isoformat()}
        return out


def hand_proof_for(*, hand: Hand, user: User, is_organiser: bool) -> HandProof:
    """The openings ``user`` may have of the finished ``hand`` (the caller checked they may see the hand)."""
    if hand.scheme == engine.SCHEME_DECK:  # older hands published the whole deck after the hand
        return HandProof(hand=hand, scheme=hand.scheme, openings=[], dispute=None, may_open=False)
    state = engine.state_from_json(hand.state)
    seat = hand_seat_of(hand=hand, user=user)
    names = hand_player_names(hand=hand)
    public = set(engine.opened_positions(state, None))
    own = set(engine.opened_positions(state, seat)) - public if seat is not None else set()
    dispute = (HandDispute.objects.select_related("ruled_by").filter(hand=hand).first()
               if seat is not None or is_organiser else None)
    ruled = set(range(len(hand.deck))) - public - own if dispute is not None else set()
    holder = {c: s for j, s in enumerate(state.seats) for c in state.hole[j]}  # hole card -> seat
    out = []
    for o in engine.openings(hand.pk, hand.deck, hand.salts, public | own | ruled):
        seat_of_card = holder.get(o.card)
        whose = None if seat_of_card is None else names.get(seat_of_card, f"seat {seat_of_card}")
        if o.position in ruled:
            why = f"{whose}'s hole card, opened by the ruling" if whose else "opened by the ruling"
        elif whose is None:
            why = "board"
        else:
            why = "your hole card" if o.position in own else f"shown by {whose}"
        out.append({**o.to_dict(), "opened_as": why})
    return HandProof(hand=hand, scheme=hand.scheme, openings=out, dispute=dispute,
                     may_open=is_organiser and dispute is None)


def tables_my_turn(*, user: User) -> list[Table]:
    """Tables of the member's clubs whose hand in play awaits their decision, the soonest clock first (then
    the oldest table)."""
    from accounts.models import Membership

    clubs = Membership.objects.filter(user=user).values("club_id")
    hands = (Hand.objects.filter(finished_at__isnull=True, voided_at__isnull=True, table__club_id__in=clubs,
                                 table__seats__user=user, table__seats__left_at__isnull=True)
             .select_related("table").distinct().order_by("deadline", "table_id"))
    return [hand.table for hand in hands if hand_seat_of(hand=hand, user=user) in hand_to_act(hand=hand)]
