"""Writes of tables and seats: create a table, take a seat (accepting the exact rules),
sit out, come back, leave between hands.

Each function opens its own transaction and locks the table row first.
"""

from __future__ import annotations

from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from accounts.access import is_member
from accounts.models import Club, User
from accounts.money import money
from games.errors import BelowCreditLimit, SeatRefused, TableRefused
from games.models import Hand, RuleSetVersion, Seat, Table
from games.services.after_commit import on_commit_work
from games.services.dealing import hand_deal
from games.services.decks import decks_ahead_fill
from games.services.hands import hand_settle
from games.services.rulesets import rule_version_freeze
from games.signals import lobby_announce, table_changed_publish
from kernel.text import text_problem
from ledger.services import balance_of


def table_create(*, club: Club, user: User, name: str, rule_version_id: int) -> Table:
    """Open a table under one rule-set version of the club; that version is frozen from now on.
    Raises TableRefused for a name with control or format characters (kernel/text.py) or a foreign version."""
    problem = text_problem(name, what="A table name")
    if problem:
        raise TableRefused(problem)
    with transaction.atomic():
        version = (
            RuleSetVersion.objects.select_for_update(of=("self",))
            .select_related("rule_set")
            .filter(pk=rule_version_id, rule_set__club=club)
            .first()
        )
        if version is None:
            raise TableRefused("Choose one of the club's house-rule versions.")
        rule_version_freeze(version=version)
        transaction.on_commit(partial(lobby_announce, club.pk))
        table = Table.objects.create(club=club, name=name.strip() or "Table", rule_version=version, created_by=user)
        decks_ahead_fill(table=table, first=1)  # the first deal's root is published before anyone can cut it
        return table


def _locked_table(table_id: int) -> Table:
    table = (
        Table.objects.select_for_update(of=("self",))
        .select_related("club", "rule_version__rule_set")
        .filter(pk=table_id)
        .first()
    )
    if table is None:
        raise SeatRefused("There is no such table.")
    return table


def _my_seat(table: Table, user: User) -> Seat:
    seat = table.seats.filter(user=user, left_at__isnull=True).first()
    if seat is None:
        raise SeatRefused("You are not seated at this table.")
    return seat


def _check_credit(club: Club, user: User) -> None:
    balance = balance_of(club=club, user=user)
    if balance < -club.credit_limit:
        raise BelowCreditLimit(
            f"Your balance is {money(balance, club.currency)}, below the club's credit limit of "
            f"{money(-club.credit_limit, club.currency)}. To play again, pay what you owe to the members "
            f"you owe it to and record the payment on the club's Settle up page; once your balance is "
            f"back within the limit you can sit down."
        )


def _in_current_hand(table: Table, seat: Seat) -> bool:
    hand = Hand.objects.filter(table=table, finished_at__isnull=True).only("players").first()
    return hand is not None and hand.players.get(str(seat.number)) == seat.user_id


def seat_take(*, table_id: int, user: User, number: int, version_id: int) -> Seat:
    """Sit down at seat ``number``, accepting rule-set version ``version_id`` (the one the page showed).

    Refused (SeatRefused, nothing changed) when the table's version differs from the one
    accepted, the member is below the club's credit limit, the seat is taken or out of range,
    the member already sits here, or the game is over.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.practice:  # one member and computer players (PostgreSQL refuses a second member too)
            raise SeatRefused("A practice table seats only the member who opened it: open your own from the lobby.")
        if not is_member(user=user, club_id=table.club_id):
            raise SeatRefused("Only members of the club can sit at its tables.")
        if table.status == Table.Status.FINISHED:
            raise SeatRefused("This game is over.")
        if table.rule_version_id != version_id:
            raise SeatRefused("The rules of this table are not the ones you accepted; please read them again.")
        if not 1 <= number <= table.rule_version.max_seats:
            raise SeatRefused(f"Choose a seat from 1 to {table.rule_version.max_seats}.")
        if table.seats.filter(user=user, left_at__isnull=True).exists():
            raise SeatRefused("You already have a seat at this table.")
        if table.seats.filter(number=number, left_at__isnull=True).exists():
            raise SeatRefused(f"Seat {number} is taken; choose another.")
        _check_credit(table.club, user)
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
        try:
            with transaction.atomic():
                return Seat.objects.create(
                    table=table,
                    user=user,
                    number=number,
                    accepted_version=table.rule_version,
                    accepted_at=timezone.now(),
                )
        except IntegrityError:
            raise SeatRefused(f"Seat {number} is taken; choose another.") from None


def seat_sit_out(*, table_id: int, user: User) -> Seat:
    """Sit out from the next hand on (the current hand, if dealt in, is played out). Not at a practice table,
    whose computer players would play on by themselves."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = _my_seat(table, user)
        if table.practice:
            raise SeatRefused("At a practice table the computers wait for you: just leave the page.")
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
        if not seat.sitting_out:
            seat.sitting_out = True
            seat.save(update_fields=["sitting_out"])
        return seat


def seat_sit_in(*, table_id: int, user: User) -> Seat:
    """Come back: dealt in from the next hand. Refused below the club's credit limit."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = _my_seat(table, user)
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
        if seat.sitting_out:
            _check_credit(table.club, user)
            seat.sitting_out = False
            seat.save(update_fields=["sitting_out"])
        return seat


def seat_leave(*, table_id: int, user: User) -> Seat:
    """Leave the table between hands. Refused while dealt into the hand being played."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = _my_seat(table, user)
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
        if _in_current_hand(table, seat):
            raise SeatRefused(
                "You are in the hand being played: you can leave when it ends. Sit out to skip the hands after it."
            )
        seat.left_at = timezone.now()
        seat.sitting_out = True
        seat.save(update_fields=["left_at", "sitting_out"])
        return seat


def table_new_game(*, table_id: int, user: User) -> Table:
    """A player of a finished game deals the next one at the same table ("Deal a new game"): everyone still
    seated stays seated, having agreed to the table's house-rules version, and is dealt in unless sitting out
    (so a member may stand up between games, or sit out); the game's hands count from 1 again. Returns the
    table. With fewer than two playing, the table waits for players (anyone seated starts it). A member below
    the club's credit limit sits out of the new game (they come back once within it).

    Opens the durable transaction and locks the table row (then, dealing, the deck's).
    Raises TableRefused (nothing changed) while the game goes on, at a closed table, for anyone not seated
    there; BelowCreditLimit for a dealer below the club's credit limit."""
    with transaction.atomic(durable=True):
        table = _locked_table(table_id)
        if table.status != Table.Status.FINISHED:
            raise TableRefused("This game is still going on.")
        seats = list(table.seats.filter(left_at__isnull=True).select_related("user"))
        if not seats:
            raise TableRefused("This table is closed: open a new one from the lobby.")
        if not any(s.user_id == user.pk for s in seats):
            raise TableRefused("Only a player seated at this table can deal its next game.")
        if not table.practice:
            _check_credit(table.club, user)
            for seat in seats:
                # Seated under another version of the rules (never, as a table keeps its version): not dealt in.
                if seat.accepted_version_id != table.rule_version_id:
                    seat.left_at, seat.sitting_out = timezone.now(), True
                    seat.save(update_fields=["left_at", "sitting_out"])
                elif not seat.sitting_out and seat.user_id != user.pk and _below_limit(table.club, seat.user):
                    seat.sitting_out = True
                    seat.save(update_fields=["sitting_out"])
        table.status, table.finished_at, table.hands_played, table.stopped_at_hand = Table.Status.OPEN, None, 0, None
        table.save(update_fields=["status", "finished_at", "hands_played", "stopped_at_hand"])
        hand = hand_deal(table=table, created_by=user)
        if hand is not None:
            on_commit_work(hand_settle(hand=hand, state=engine.state_from_json(hand.state), created_by=user, after=-1))
        transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
    return table


def _below_limit(club: Club, user: User) -> bool:
    try:
        _check_credit(club, user)
    except BelowCreditLimit:
        return True
    return False
