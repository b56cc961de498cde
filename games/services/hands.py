"""Writes of hands: the deal, one player's action, a turn clock running out.

DESIGN.md "The path of one action": one durable transaction, the hand row
locked, a stale version or an action out of turn refused with a clear
message and no change, the engine applies the action, the new state and the
action log are stored, and every chip movement is posted to the ledger in
the same transaction. On commit the table's group hears the new version.

Lock order (never the other way round, so no two transactions wait in a
cycle): the hand row, then the table row, then the ledger's accounts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Membership, User
from config import metrics
from games import advance, engine
from games import clock as turn_clock
from games.clock import clock_deadline as clock_deadline  # the clocks are read in games/clock.py
from games.errors import IllegalMove, NotSeated, NotYourTurn, TableRefused
from games.models import Hand, HandAction, Seat, Table
from games.selectors import hand_seat_of, hand_seat_users
from games.services.announce import table_announce, table_changed_announce
from games.services.locking import hand_lock_seated, locked_hand_state
from games.services.proof import deal_salts
from ledger.services import ledger_post_hand_events

log = logging.getLogger(__name__)


def deck_for_new_hand() -> list[str]:
    """A fresh deck from the engine's CSPRNG shuffle, once per hand (DESIGN.md "Engine contract")."""
    return list(engine.shuffled_deck())


def _member(user: User | None, *, away_counts: bool) -> turn_clock.Member:
    if user is None:
        return turn_clock.Member()
    return turn_clock.Member(time_zone=user.time_zone, quiet_start=user.quiet_start, quiet_end=user.quiet_end,
                             away=user.away and away_counts)


def _away_counts(seat_users: Mapping[int, User]) -> bool:
    """Away takes the default action at once only while someone dealt in is not away: a table of
    absentees waits on its ordinary clocks rather than dealing and folding hand after hand."""
    return any(not u.away for u in seat_users.values())


def _turn_seconds(rules: engine.Rules) -> int:
    """The rule set's turn clock, times ``TURN_CLOCK_SCALE`` (1 but in tests and demos)."""
    return max(1, round(rules.turn_seconds * float(getattr(settings, "TURN_CLOCK_SCALE", 1))))


def _clocks(*, rules: engine.Rules, state: Any, version: int, seat_users: Mapping[int, User],
            previous: Sequence[int] = (), current: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Each awaited seat's clock: {seat: {"deadline": ISO instant, "since": version its turn began,
    "began": ISO instant its turn began}} ("began" feeds the notice sweep, games/notices.py; clocks
    stored before it was added lack it).

    A new turn starts a fresh clock from the rule set's ``turn_seconds`` (games/clock.py: quiet
    hours stop it, away ends it at once). A sealed decision (the drop, the declaration) keeps
    each seat's clock while the awaited seats only shrink.
    """
    awaited = engine.to_act(state)
    if not awaited:
        return {}
    keep = bool(previous) and set(awaited) < set(previous)
    now = timezone.now()
    away_counts = _away_counts(seat_users)
    out: dict[str, dict[str, Any]] = {}
    for seat in awaited:
        old = (current or {}).get(str(seat))
        if keep and old:
            out[str(seat)] = dict(old)
            continue
        deadline = turn_clock.deadline_for(start=now, seconds=_turn_seconds(rules),
                                           member=_member(seat_users.get(seat), away_counts=away_counts))
        out[str(seat)] = {"deadline": deadline.isoformat(), "since": version, "began": now.isoformat()}
    return out


def _earliest(clocks: Mapping[str, Any]) -> datetime | None:
    """The hand's ``deadline``: the earliest of its seats' clocks (the next moment a timeout is due)."""
    return min((clock_deadline(c) for c in clocks.values()), default=None)


def _active_seats(table: Table) -> list[Seat]:
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


def _former_member_seats(hand: Hand, seat_users: Mapping[int, User]) -> set[int]:
    """Seats of ``hand`` whose player is no longer a member of the table's club."""
    club_id = hand.table.club_id  # read once per hand object (hand_act loads it with the hand)
    members = set(Membership.objects.filter(club_id=club_id, user_id__in=[u.pk for u in seat_users.values()])
                  .values_list("user_id", flat=True))
    return {seat for seat, user in seat_users.items() if user.pk not in members}


def _next_button(previous: int, numbers: Sequence[int], first: bool) -> int:
    """The dealer button moves one seat each hand (DESIGN.md): the next active seat clockwise."""
    if first:
        return numbers[0]
    above = [n for n in numbers if n > previous]
    return above[0] if above else numbers[0]


def hand_deal(*, table: Table, created_by: User | None, deck: Sequence[str] | None = None) -> Hand | None:
    """Deal the table's next hand to every active seat; None (table back to waiting) with too few.

    Expects an open transaction holding the table row's lock (select_for_update).
    ``deck``: a fixed deck order (tests); by default a fresh CSPRNG shuffle.
    Publishes the Merkle root of one salted leaf per deck position (games/engine/verify.py) and
    keeps the deck and the salts, which are opened card by card only by right (games/services/proof.py).
    """
    rules = engine.rules_from_dict(table.rule_version.rules)
    _leave_former_members(table)
    seats = _active_seats(table)
    if len(seats) < rules.min_players:
        table.status = Table.Status.OPEN
        table.save(update_fields=["status"])
        return None
    numbers = [s.number for s in seats]
    first = not table.hands.exists()
    button = _next_button(table.button, numbers, first)
    cards = list(deck) if deck is not None else deck_for_new_hand()
    salts = deal_salts()
    number = table.hands.count() + 1
    try:
        state, events = engine.new_hand(rules, seats=numbers, button=button, deck=cards,
                                        carry_pot=table.carry_pot, hand_number=number)
    except engine.EngineError as exc:
        raise TableRefused(str(exc)) from exc
    event_dicts = [engine.event_to_json(e) for e in events]
    clocks = _clocks(rules=rules, state=state, version=0, seat_users={s.number: s.user for s in seats})
    hand = Hand.objects.create(
        table=table, number=number, rule_version=table.rule_version,
        players={str(s.number): s.user_id for s in seats}, button=button, carry_in=table.carry_pot,
        deck=list(state.deck), scheme=engine.SCHEME_MERKLE, salts=salts, commitment="",
        state=engine.state_to_json(state), deal_events=event_dicts, version=0,
        deadline=_earliest(clocks), clocks=clocks)
    # The leaves name the hand, so the root is computed once its id exists (same transaction).
    hand.commitment = engine.merkle_root(hand.pk, state.deck, salts)
    hand.save(update_fields=["commitment"])
    ledger_post_hand_events(hand=hand, events=event_dicts, seat_users={s.number: s.user for s in seats},
                            created_by=created_by)
    table.status = Table.Status.RUNNING
    table.button = button
    table.carry_pot = 0
    table.stopped_at_hand = None
    table.save(update_fields=["status", "button", "carry_pot", "stopped_at_hand"])
    return hand


def _record_step(*, hand: Hand, rules: engine.Rules, before: Any, state: Any, events: Sequence[engine.Event],
                 seat: int, user: User | None, action: engine.Action, is_timeout: bool,
                 seat_users: Mapping[int, User], created_by: User | None) -> None:
    """Store one applied action: state, version, deadline, the log row and the ledger entries.

    Expects the hand row locked in an open transaction.
    """
    event_dicts = [engine.event_to_json(e) for e in events]
    hand.version += 1
    hand.state = engine.state_to_json(state)
    hand.clocks = _clocks(rules=rules, state=state, version=hand.version, seat_users=seat_users,
                          previous=engine.to_act(before), current=hand.clocks)
    hand.deadline = _earliest(hand.clocks)
    if engine.is_over(state):
        hand.finished_at = timezone.now()
        hand.deadline = None
        hand.clocks = {}
    hand.save(update_fields=["version", "state", "deadline", "clocks", "finished_at"])
    HandAction.objects.create(hand=hand, sequence=hand.version, seat=seat, user=user,
                              action=engine.action_to_dict(action), events=event_dicts, is_timeout=is_timeout)
    ledger_post_hand_events(hand=hand, events=event_dicts, seat_users=seat_users, created_by=created_by)


def _after_hand(*, hand: Hand, state: Any, created_by: User | None) -> Hand | None:
    """Close a finished hand on its table and deal the next one (or end / pause the game).

    Expects the hand row locked; locks the table row. Piranha ends when one player
    alone stays in (piranha.txt 3.3) or, by house rule, when nobody does and the pot is split.
    """
    table = Table.objects.select_for_update().select_related("rule_version").get(pk=hand.table_id)
    outcome = engine.result(state)
    table.hands_played += 1
    table.carry_pot = outcome.next_pot if outcome is not None else 0
    if outcome is not None and outcome.game_over:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()
        table.save(update_fields=["hands_played", "carry_pot", "status", "finished_at"])
        return None
    if _nobody_played(hand):
        # The players have left the game: charge nobody another ante; a seated player restarts it.
        table.status, table.stopped_at_hand = Table.Status.OPEN, hand.number
        table.save(update_fields=["hands_played", "carry_pot", "status", "stopped_at_hand"])
        return None
    table.save(update_fields=["hands_played", "carry_pot"])
    return hand_deal(table=table, created_by=created_by)


def _nobody_played(hand: Hand) -> bool:
    """Every move of the hand was a default taken for a seat (its clock ran out, or it was away)."""
    timeouts = list(HandAction.objects.filter(hand=hand).values_list("is_timeout", flat=True))
    return bool(timeouts) and all(timeouts)


MAX_CHAINED_HANDS = 5  # hands one transaction may finish and deal when nobody present has to act


def _auto_steps(*, hand: Hand, rules: engine.Rules, state: Any, seat_users: Mapping[int, User]) -> Any:
    """Apply what is due without waiting; return the state.

    An awaited seat's advance action (games/advance.py) is applied as that player's own action;
    an awaited seat of a member who is away, or who is no longer a member of the club, takes the
    default action at once (logged as a timeout). Advance actions whose assumption broke are
    cancelled first, after every step. Expects the hand row locked in an open transaction.
    """
    away_counts = _away_counts(seat_users)
    removed = _former_member_seats(hand, seat_users)
    # None can be set while the hand row is locked: without a pending one now, none to look at below.
    pending = advance.has_pending(hand=hand)
    for _ in range(200):
        if pending:
            advance.cancel_stale(hand=hand, state=state)
        if engine.is_over(state):
            break
        step: tuple[int, engine.Action, bool] | None = None
        for seat in engine.to_act(state):
            chosen = advance.take_due(hand=hand, state=state, seat=seat) if pending else None
            if chosen is not None:
                step = (seat, chosen, False)
                break
            user = seat_users.get(seat)
            if seat in removed or (away_counts and user is not None and user.away):
                step = (seat, engine.timeout_action(state, seat), True)
                break
        if step is None:
            break
        seat, action, is_timeout = step
        new_state, events = engine.apply(state, seat, action)
        user = seat_users.get(seat)
        _record_step(hand=hand, rules=rules, before=state, state=new_state, events=events, seat=seat, user=user,
                     action=action, is_timeout=is_timeout, seat_users=seat_users,
                     created_by=None if is_timeout else user)
        state = new_state
    return state


def _settle(*, hand: Hand, state: Any, created_by: User | None, after: int,
            seat_users: Mapping[int, User] | None = None) -> list[tuple[Hand, int]]:
    """After a step (or a deal): apply due advance actions and away defaults, close a finished hand
    and deal the next, and the same in that one (at most MAX_CHAINED_HANDS). Returns each hand
    touched with the version it had before this transaction (-1: dealt in it), for the on-commit work.
    ``seat_users``: the players of ``hand`` when the caller has them already (else read).
    Expects the hand row locked in an open transaction.
    """
    touched = [(hand, after)]
    for _ in range(MAX_CHAINED_HANDS):
        rules = engine.rules_from_dict(hand.rule_version.rules)
        state = _auto_steps(hand=hand, rules=rules, state=state, seat_users=seat_users or hand_seat_users(hand=hand))
        if not hand.is_finished:
            break
        following = _after_hand(hand=hand, state=state, created_by=created_by)
        if following is None:
            break
        hand, state, seat_users = following, engine.state_from_json(following.state), None
        touched.append((hand, -1))
    return touched


def _on_commit_work(touched: Sequence[tuple[Hand, int]]) -> None:
    """Register the on-commit work of a transaction: announce the new version to the table, schedule
    each touched hand's turn clock (``expire_turn`` at its deadline) and the notices of the turns that
    began in it (games/tasks.py)."""
    hand, _ = touched[0]
    work = [{"hand_id": h.pk, "version": h.version, "deadline": h.deadline.isoformat(),
             "turns": [{"seat": int(seat), "since": int(c["since"]), "deadline": str(c["deadline"])}
                       for seat, c in sorted(h.clocks.items()) if int(c["since"]) > after]}
            for h, after in touched if not h.is_finished and h.deadline is not None]
    newest = touched[-1][0]
    transaction.on_commit(partial(table_announce, hand.table_id, hand.version, hand.pk,
                                  newest=(newest.pk, newest.version), club_id=hand.table.club_id))
    if work:
        transaction.on_commit(partial(_schedule, work))


_publisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="turn-work")


def _publish(work: list[dict[str, Any]]) -> None:
    """One broker message for the transaction; the worker publishes its clocks and notices (games/tasks.py).
    Never raises: the action is committed, and the beat sweeps apply what a lost message would have."""
    from games.tasks import schedule_turns

    try:
        schedule_turns.delay(work)
    except Exception:  # noqa: BLE001 - see the docstring
        log.warning("Could not schedule the clocks of hands %s", [item.get("hand_id") for item in work], exc_info=True)


def _schedule(work: list[dict[str, Any]]) -> None:
    """Publish the turn clocks and notices of a committed transaction from one background thread, so the
    action's own thread (for a socket: the worker thread its answer waits on) sends no broker message.
    A publish lost with the process is applied by the beat sweep (games/tasks.py)."""
    _publisher.submit(_publish, work)


def turn_work_flush() -> None:
    """Wait until every turn clock queued so far is published (tests, and a clean process exit)."""
    _publisher.submit(lambda: None).result(timeout=30)


def _lock_live_hand(hand_id: int) -> Hand | None:
    """The hand row locked (with its rule version), or None when it is gone, finished or voided.
    Expects an open transaction."""
    hand = Hand.objects.select_for_update().select_related("rule_version").filter(pk=hand_id).first()
    if hand is None or hand.is_finished or hand.voided_at is not None:
        return None
    return hand


def _apply_locked(*, hand: Hand, seat: int, state: engine.State, user: User, action: engine.Action) -> Hand:
    """Apply ``action`` of ``seat`` to the locked ``hand``; the caller opened the durable transaction."""
    after = hand.version
    if seat not in engine.to_act(state):
        raise NotYourTurn()
    try:
        new_state, events = engine.apply(state, seat, action)
    except engine.EngineError as exc:
        raise IllegalMove(_sentence(str(exc))) from exc
    rules = engine.rules_from_dict(hand.rule_version.rules)
    seat_users = hand_seat_users(hand=hand)
    _record_step(hand=hand, rules=rules, before=state, state=new_state, events=events, seat=seat, user=user,
                 action=action, is_timeout=False, seat_users=seat_users, created_by=user)
    _on_commit_work(_settle(hand=hand, state=new_state, created_by=user, after=after, seat_users=seat_users))
    return hand


def _typed(action: engine.Action | Mapping[str, Any]) -> engine.Action:
    if isinstance(action, engine.Action):
        return action
    try:
        return engine.action_from_dict(action)
    except engine.EngineError as exc:
        raise IllegalMove(_sentence(str(exc))) from exc


@metrics.timed_action
def hand_apply_action(*, hand_id: int, user: User, action: engine.Action | Mapping[str, Any],
                      version: int) -> Hand:
    """Apply one player's action made against ``version`` of the hand; return the hand.

    Opens the durable transaction and locks the hand row. Raises (all DomainError,
    nothing changed): NotSeated (not dealt in), StaleVersion (the hand moved on: a
    double click or someone acted first; a sealed decision others made first leaves it standing),
    NotYourTurn, IllegalMove (the engine's rule).
    Advance actions and away members' defaults that become due are applied in the same
    transaction; when the hand ends, the table is updated and the next hand dealt in it.
    """
    parsed = _typed(action)
    with transaction.atomic(durable=True):
        hand, seat, state = hand_lock_seated(hand_id=hand_id, user=user, version=version, with_rules=True,
                                             action=parsed)
        return _apply_locked(hand=hand, seat=seat, state=state, user=user, action=parsed)


NO_SUCH_HAND = "That hand is not being played at this table."


@metrics.timed_action
def hand_act(*, table_id: int, hand_id: int | None, user: User, action: engine.Action, version: int) -> Hand:
    """A player's action at a table, from the form post or the socket alike (DESIGN.md "The path of one
    action"): ``hand_id`` None means the hand being played there. Return the hand.

    The access rule: the hand must be this table's, the player a member of its club now (a non-member
    hears the same words as for a hand that is not there, so nothing is revealed) and dealt into it.
    Opens the durable transaction and locks the hand row. Raises DomainError (nothing changed):
    NotSeated (no such hand here, or not dealt in), StaleVersion (moved on; a sealed decision left standing by
    others deciding first is taken: games/services/locking.py), NotYourTurn, IllegalMove.
    """
    with transaction.atomic(durable=True):
        # One statement: the hand, its rules, and whether the player is a member of the table's club.
        rows = (Hand.objects.select_for_update(of=("self",)).select_related("rule_version", "table")
                .filter(table_id=table_id, table__club__memberships__user=user))
        hand = rows.filter(pk=hand_id).first() if hand_id is not None else rows.filter(
            finished_at__isnull=True).order_by("-number").first()
        if hand is None:
            raise NotSeated(NO_SUCH_HAND)
        seat = hand_seat_of(hand=hand, user=user)
        if seat is None:
            raise NotSeated()
        state = locked_hand_state(hand=hand, seat=seat, version=version, action=action)
        return _apply_locked(hand=hand, seat=seat, state=state, user=user, action=action)


def _due_seats(hand: Hand, awaited: Sequence[int], now: datetime) -> list[int]:
    """Awaited seats whose clock has run out: their own deadline passed, or they hold the hand's
    earliest clock (which ``hand.deadline`` marks). Seats without a clock of their own are due."""
    earliest = _earliest(hand.clocks)
    due = []
    for seat in awaited:
        entry = hand.clocks.get(str(seat))
        if entry is None or clock_deadline(entry) <= now or clock_deadline(entry) == earliest:
            due.append(seat)
    return due


def hand_apply_timeout(*, hand_id: int, version: int) -> bool:
    """Apply the default action of every awaited seat whose clock has run out.

    A no-op returning False when the hand moved on (another version, finished, or
    the clock has not run out yet): safe to run twice, late, or after the player acted.
    In a sealed decision the other seats keep their own clocks (games/clock.py).
    Opens the durable transaction and locks the hand row.
    """
    with transaction.atomic(durable=True):
        hand = _lock_live_hand(hand_id)
        if hand is None or hand.version != version:
            return False
        now = timezone.now()
        if hand.deadline is None or hand.deadline > now:
            return False
        state = engine.state_from_json(hand.state)
        rules = engine.rules_from_dict(hand.rule_version.rules)
        seat_users = hand_seat_users(hand=hand)
        for seat in _due_seats(hand, engine.to_act(state), now):
            if engine.is_over(state) or seat not in engine.to_act(state):
                continue
            action = engine.timeout_action(state, seat)
            new_state, events = engine.apply(state, seat, action)
            _record_step(hand=hand, rules=rules, before=state, state=new_state, events=events, seat=seat,
                         user=seat_users.get(seat), action=action, is_timeout=True, seat_users=seat_users,
                         created_by=None)
            state = new_state
        _on_commit_work(_settle(hand=hand, state=state, created_by=None, after=version, seat_users=seat_users))
    return True


def hand_apply_due(*, hand_id: int) -> bool:
    """Apply what is due now without a player acting (a member just marked themselves away):
    returns whether the hand moved on. Opens the durable transaction and locks the hand row."""
    with transaction.atomic(durable=True):
        hand = _lock_live_hand(hand_id)
        if hand is None:
            return False
        version = hand.version
        touched = _settle(hand=hand, state=engine.state_from_json(hand.state), created_by=None, after=version)
        if hand.version == version:
            return False
        _on_commit_work(touched)
    return True


def hands_reclock(*, user: User, before: turn_clock.Member) -> int:
    """``user`` changed their quiet hours or time zone (``before``: the settings their running clocks were
    set with): what remains of each running clock of theirs, counted under ``before``, now runs under the
    new settings (games/clock.py), so a clock stands still in the new quiet hours and no longer in the old.

    Each hand in its own durable transaction with its row locked; the clocks are those of the version
    it holds then, and on commit its ``expire_turn`` is scheduled again for that version and the new
    deadline (the task is a no-op before the deadline or once the version moved on). Returns how many
    hands' clocks moved.
    """
    after = _member(user, away_counts=False)
    hand_ids = [pk for pk, players in Hand.objects.filter(finished_at__isnull=True, voided_at__isnull=True)
                .filter(table__seats__user=user).distinct().values_list("pk", "players")
                if user.pk in {int(uid) for uid in players.values()}]
    moved = 0
    for hand_id in hand_ids:
        with transaction.atomic(durable=True):
            hand = Hand.objects.select_for_update().filter(pk=hand_id).first()
            if hand is None or hand.is_finished or hand.voided_at is not None:
                continue
            now = timezone.now()
            clocks = dict(hand.clocks)
            for seat, entry in hand.clocks.items():
                if int(hand.players.get(seat, 0)) != user.pk or clock_deadline(entry) <= now:
                    continue  # another's clock, or due already
                left = turn_clock.running_between(before, now, clock_deadline(entry))
                deadline = turn_clock.deadline_for(start=now, seconds=round(left.total_seconds()), member=after)
                clocks[seat] = {**entry, "deadline": deadline.isoformat()}
            if clocks == hand.clocks:
                continue
            hand.clocks = clocks
            hand.deadline = _earliest(clocks)
            hand.save(update_fields=["clocks", "deadline"])
            _on_commit_work([(hand, hand.version)])  # announce; expire_turn again; no new turn notices
            moved += 1
    return moved


def _apply_due_where_dealt_in(*, hands: Iterable[Hand], user: User) -> int:
    """Apply what is due now in each of ``hands`` that deals ``user`` in; returns how many moved on.
    Each hand in its own transaction (hand_apply_due)."""
    return sum(1 for hand in hands
               if hand_seat_of(hand=hand, user=user) is not None and hand_apply_due(hand_id=hand.pk))


def hands_apply_away(*, user: User) -> int:
    """Resolve every unfinished hand that waits for ``user`` now that they are away; returns how many moved."""
    hands = Hand.objects.filter(finished_at__isnull=True, voided_at__isnull=True, table__seats__user=user,
                                table__seats__left_at__isnull=True).distinct()
    return _apply_due_where_dealt_in(hands=hands, user=user)


def hands_member_removed(*, user: User, club_id: int) -> int:
    """``user`` is no longer a member of club ``club_id``: their open seats at its tables are left (a
    seat dealt into the hand being played sits out, and is left when the next hand is dealt), and
    their turns in hands being played take the default action at once. Returns how many hands moved.
    Each step opens its own transaction (a table's, then a hand's: the lock order of this module)."""
    table_ids = list(Seat.objects.filter(user=user, left_at__isnull=True, table__club_id=club_id)
                     .values_list("table_id", flat=True))
    for table_id in table_ids:
        with transaction.atomic(durable=True):
            table = Table.objects.select_for_update().get(pk=table_id)
            seat = table.seats.filter(user=user, left_at__isnull=True).first()
            if seat is None:
                continue
            hand = table.hands.filter(finished_at__isnull=True).only("players").first()
            seat.sitting_out = True
            if hand is None or hand.players.get(str(seat.number)) != user.pk:
                seat.left_at = timezone.now()
            seat.save(update_fields=["sitting_out", "left_at"])
            if seat.left_at is not None:
                # A seat dealt into the hand being played is not announced: a seat change followed at
                # once by that seat's decision would tell the others it took the default (a sealed
                # decision stays sealed); the table shows the seat as it is at its next version.
                transaction.on_commit(partial(table_changed_announce, table.pk, club_id))
    hands = Hand.objects.filter(finished_at__isnull=True, voided_at__isnull=True, table__club_id=club_id,
                                table_id__in=table_ids)
    return _apply_due_where_dealt_in(hands=hands, user=user)


def table_start(*, table_id: int, user: User, deck: Sequence[str] | None = None) -> Hand:
    """Start play: deal the first hand when at least two are seated and playing.

    Only a seated player may start. ``deck``: a fixed deck order (tests).
    Opens the durable transaction and locks the table row.
    """
    with transaction.atomic(durable=True):
        table = Table.objects.select_for_update().select_related("rule_version").filter(pk=table_id).first()
        if table is None:
            raise TableRefused("There is no such table.")
        if table.status == Table.Status.FINISHED:
            raise TableRefused("This game is over.")
        if table.status == Table.Status.RUNNING or table.hands.filter(finished_at__isnull=True).exists():
            raise TableRefused("This table is already playing.")
        if not table.seats.filter(user=user, left_at__isnull=True).exists():
            raise TableRefused("Only a player seated at this table can start it.")
        rules = engine.rules_from_dict(table.rule_version.rules)
        if len(_active_seats(table)) < rules.min_players:
            raise TableRefused("At least two players must be seated and playing to start.")
        try:
            with transaction.atomic():
                hand = hand_deal(table=table, created_by=user, deck=deck)
        except IntegrityError:
            raise TableRefused("This table is already playing.") from None
        assert hand is not None
        _on_commit_work(_settle(hand=hand, state=engine.state_from_json(hand.state), created_by=user, after=-1))
    return hand


def _sentence(message: str) -> str:
    message = message.strip()
    return message if message.endswith((".", "!", "?")) else message + "."
