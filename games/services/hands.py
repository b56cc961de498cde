"""Writes of hands: the deal, one player's action, a turn clock running out.

docs/architecture.md "The path of one action": one durable transaction, the hand row
locked, a stale version or an action out of turn refused with a clear
message and no change, the engine applies the action, the new state and the
action log are stored, and every chip movement is posted to the ledger in
the same transaction. On commit the table's group hears the new version.

Lock order (games/services/locking.py, which takes every hand lock): the hand
row, then the table row, then the ledger's accounts.

Dealing is in games/services/dealing.py, the clocks in games/services/clocks.py, what a commit sets
going in games/services/after_commit.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

import engine
from accounts.models import User
from games.errors import IllegalMove, NotSeated, NotYourTurn
from games.models import Hand, HandAction, Table
from games.selectors.advance import advance_pending
from games.selectors.hands import HandPlayers, hand_players, hand_seat_of, hand_seat_users, hand_table_of
from games.selectors.snapshot import Carried
from games.selectors.states import hand_state
from games.services import advance
from games.services.after_commit import on_commit_work
from games.services.clocks import away_takes_default, earliest_deadline, turn_clocks
from games.services.dealing import hand_deal_to, hand_result_post, table_save
from games.services.locking import (
    hand_lock_for_member,
    hand_lock_live,
    hand_state_committed,
    locked_hand_state,
    table_lock_with_rules,
)
from games.services.marks import marks_after, private_changed
from games.timing.turn_clock import TurnClock, clock_deadline
from kernel import metrics
from kernel.statements import Insert, Update, UpdateInsert
from ledger.services import HandEvents, ledger_hand_entry

# What hand.save(update_fields=...) and HandAction.objects.create send, written out once (kernel/statements.py),
# in one statement.
_HAND_STEP = UpdateInsert(
    Update(Hand, ["version", "state", "deadline", "clocks", "private_marks", "timeouts", "finished_at"]),
    Insert(HandAction),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One action the engine applied to a hand: ``seat``'s ``action`` took ``before`` to ``state`` with
    ``events``; ``user``: the seat's player (None: none is known); ``is_timeout``: a default taken for the
    seat (its clock ran out, or its player is away or gone), not the player's own move."""

    before: engine.State
    state: engine.State
    events: Sequence[engine.Event]
    seat: int
    user: User | None
    action: engine.Action
    is_timeout: bool

    @property
    def created_by(self) -> User | None:
        """Who the ledger's entries name as their author: the player for their own move, nobody for a default."""
        return None if self.is_timeout else self.user


def _record_step(*, hand: Hand, rules: engine.Rules, seat_users: Mapping[int, User], step: Step) -> HandEvents | None:
    """Store one applied ``step``: state, version, deadline, the log row and the ledger entries (one chip event's
    in the same statement as the hand and its log row: ``ledger_hand_entry``); a step that ends
    the hand returns its chip events instead, for ``_after_hand`` to post with the next deal's antes (one
    statement). ``seat_users``: the hand's players by seat.

    Expects the hand row locked in an open transaction.
    """
    before, state, events, seat = step.before, step.state, step.events, step.seat
    event_dicts = [engine.event_to_json(e) for e in events]
    hand.version += 1
    hand.state = engine.state_to_json(state)
    hand.clocks = turn_clocks(
        rules=rules,
        state=state,
        version=hand.version,
        seat_users=seat_users,
        previous=engine.to_act(before),
        current=hand.clocks,
    )
    hand.deadline = _hand_deadline(hand.clocks, state)
    hand.private_marks = marks_after(
        hand.private_marks or {}, private_changed(before, state, seat), hand.players, hand.version
    )
    if step.is_timeout:  # the log's mark: where this action's lines begin, and what the first says
        kind = event_dicts[0]["kind"] if event_dicts else None
        hand.timeouts = [*(hand.timeouts or []), [len(before.events), kind]]
    over = engine.is_over(state)
    if over:
        hand.finished_at = timezone.now()
        hand.deadline = None
        hand.clocks = {}
    # Its chip events' entries; one (most bets) is written in the step's statement, one round trip fewer.
    entry = (
        None
        if over
        else ledger_hand_entry(hand=hand, events=event_dicts, seat_users=seat_users, created_by=step.created_by)
    )
    entry_id = _HAND_STEP.run(
        hand,
        HandAction(
            hand=hand,
            sequence=hand.version,
            seat=seat,
            user=step.user,
            action=engine.action_to_dict(step.action),
            events=event_dicts,
            is_timeout=step.is_timeout,
        ),
        None if entry is None else entry.carried,
    )
    hand_state_committed(hand=hand, state=state)
    if over:  # posted with the next deal's antes, in one statement (``_after_hand``)
        return HandEvents(hand=hand, events=event_dicts, seat_users=seat_users, created_by=step.created_by)
    if entry is not None:
        entry.posted(entry_id)
    return None


def _after_hand(
    *, hand: Hand, state: engine.State, created_by: User | None, played: bool, result: HandEvents | None
) -> tuple[Hand, dict[int, User], engine.State] | None:
    """Close a finished hand on its table and deal the next one (or end / pause the game); return the new hand
    with its players and its state. ``played``: a player's own move (not a default) was logged in this hand in
    this transaction. ``result``: the chip events of the step that ended it, not posted yet (``_record_step``):
    posted with the next deal's antes, or alone when no hand is dealt.

    Expects the hand row locked; locks the table row. Piranha ends when one player
    alone stays in (piranha.txt 3.3) or, by house rule, when nobody does and the pot is split.
    """
    table = table_lock_with_rules(table_id=hand.table_id)
    if Hand.table.is_cached(hand) and Table.club.is_cached(hand.table):
        table.club = hand.table.club  # read with the hand: not again for its frames
    hand.table = table  # the hand carries its table as this transaction leaves it (games/live/publish.py)
    outcome = engine.result(state)
    table.hands_played += 1
    table.carry_pot = outcome.next_pot if outcome is not None else 0
    if outcome is not None and outcome.game_over:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()
        table_save(table, ["hands_played", "carry_pot", "status", "finished_at"])
        hand_result_post(result)
        return None
    if not played and _nobody_played(hand):
        # The players have left the game: charge nobody another ante; a seated player restarts it.
        table.status, table.stopped_at_hand = Table.Status.OPEN, hand.number
        table_save(table, ["hands_played", "carry_pot", "status", "stopped_at_hand"])
        hand_result_post(result)
        return None
    return hand_deal_to(table=table, created_by=created_by, also_save=("hands_played", "carry_pot"), result=result)


def _nobody_played(hand: Hand) -> bool:
    """Every move of the hand was a default taken for a seat (its clock ran out, or it was away): each of its
    ``version`` actions is marked a timeout."""
    return hand.version > 0 and len(hand.timeouts or []) == hand.version


MAX_CHAINED_HANDS = 5  # hands one transaction may finish and deal when nobody present has to act


def _auto_steps(
    *, hand: Hand, rules: engine.Rules, state: engine.State, players: HandPlayers
) -> tuple[engine.State, bool, HandEvents | None]:
    """Apply what is due without waiting; return the state, whether one of the steps was a player's own
    move (an advance action), not a default, and the chip events of a step that ended the hand (not posted yet:
    ``_record_step``).

    An awaited seat's advance action (games/services/advance.py) is applied as that player's own action;
    an awaited seat of a member who is away, or who is no longer a member of the club (``players.removed``),
    takes the default action at once (logged as a timeout); in a sealed decision only once no awaited seat may
    still decide (each is away, removed or out of time), with every seat whose clock ran out, so that no
    default shows by its moment. Advance actions whose assumption broke are cancelled first, after every step. ``players``: read in this transaction with the hand row locked.
    Expects the hand row locked in an open transaction.
    """
    seat_users, removed = players.seat_users, players.removed
    away_counts = away_takes_default(seat_users)
    # None can be set while the hand row is locked: the pending ones read now are all there are, and only
    # cancel_stale and take_due below change them (in this list as in their rows). None pending (as the
    # players' statement found): nothing to read.
    pending = [] if players.advance_pending is False else advance_pending(hand=hand)
    played, result = False, None
    for _ in range(200):
        if pending:
            advance.cancel_stale(state=state, rows=pending)
        if engine.is_over(state):
            break
        step: tuple[int, engine.Action, bool] | None = None
        awaited = engine.to_act(state)
        defaults = [
            seat
            for seat in awaited
            if seat in removed or (away_counts and (user := seat_users.get(seat)) is not None and user.away)
        ]
        if engine.is_sealed(state):
            # Sealed decisions open together, and a default taken before the rest have decided would show by its
            # moment (docs/design.md): defaults wait until no awaited seat may still decide itself.
            now = timezone.now()
            out_of_time = {s for s in awaited if (c := hand.clocks.get(str(s))) and clock_deadline(c) <= now}
            due = set(defaults) | out_of_time
            defaults = sorted(due) if set(awaited) <= due else []
        for seat in awaited:
            chosen = advance.take_due(state=state, seat=seat, rows=pending) if pending else None
            if chosen is not None:
                step = (seat, chosen, False)
                break
            if seat in defaults:
                step = (seat, engine.timeout_action(state, seat), True)
                break
        if step is None:
            break
        seat, action, is_timeout = step
        new_state, events = engine.apply(state, seat, action)
        taken = Step(
            before=state,
            state=new_state,
            events=events,
            seat=seat,
            user=seat_users.get(seat),
            action=action,
            is_timeout=is_timeout,
        )
        result = _record_step(hand=hand, rules=rules, seat_users=seat_users, step=taken)
        state = new_state
        played = played or not is_timeout
    return state, played, result


def hand_settle(
    *,
    hand: Hand,
    state: engine.State,
    created_by: User | None,
    after: int,
    seat_users: Mapping[int, User] | None = None,
    members: HandPlayers | None = None,
    played: bool = False,
    result: HandEvents | None = None,
) -> list[tuple[Hand, int]]:
    """After a step (or a deal): apply due advance actions and away defaults, close a finished hand
    and deal the next, and the same in that one (at most MAX_CHAINED_HANDS). Returns each hand
    touched with the version it had before this transaction (-1: dealt in it), for the on-commit work.
    ``members``: the players of ``hand`` (``hand_players``) when the caller read them already with the hand
    row locked; ``seat_users``: the players alone (the rest is read). ``played``: the caller logged a player's
    own move (not a default) in ``hand``; ``result``: the chip events of the caller's step that ended ``hand``,
    not posted yet (``_record_step``).
    Expects the hand row locked in an open transaction.
    """
    touched = [(hand, after)]
    for _ in range(MAX_CHAINED_HANDS):
        rules = engine.rules_from_dict(hand.rule_version.rules)
        players = members if members is not None else _players(hand, seat_users)
        state, stepped, ended = _auto_steps(hand=hand, rules=rules, state=state, players=players)
        played, result = played or stepped, result or ended
        if not hand.is_finished:
            break
        following = _after_hand(hand=hand, state=state, created_by=created_by, played=played, result=result)
        result = None
        if following is None:
            break
        # Dealt just now to members only (their seats read in this transaction), so none is a former member.
        # Nor has anyone set an advance action in a hand dealt in this transaction.
        hand, dealt_to, state = following
        seat_users, members = None, HandPlayers(seat_users=dealt_to, removed=set(), advance_pending=False)
        played = False
        touched.append((hand, -1))
    return touched


def _players(hand: Hand, seat_users: Mapping[int, User] | None) -> HandPlayers:
    """``hand_players`` of ``hand``, keeping ``seat_users`` (its players, read earlier in this transaction)
    when given."""
    club_id = hand.table.club_id  # loaded with the hand on the action's path; read once per hand object else
    players = hand_players(hand=hand, club_id=club_id)
    if seat_users is None:
        return players
    return HandPlayers(
        seat_users=dict(seat_users),
        advance_pending=players.advance_pending,
        advance_any=players.advance_any,
        removed={seat for seat in seat_users if seat in players.removed or seat not in players.seat_users},
    )


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
    members = hand_players(hand=hand, club_id=hand.table.club_id)
    step = Step(before=state, state=new_state, events=events, seat=seat, user=user, action=action, is_timeout=False)
    result = _record_step(hand=hand, rules=rules, seat_users=members.seat_users, step=step)
    touched = hand_settle(
        hand=hand, state=new_state, created_by=user, after=after, members=members, played=True, result=result
    )
    # The players' statement saw whether the hand has any advance action (none is set under this lock).
    on_commit_work(touched, {hand.pk: Carried(advance_rows=[])} if members.advance_any is False else None)
    return hand


def _typed(action: engine.Action | Mapping[str, Any]) -> engine.Action:
    if isinstance(action, engine.Action):
        return action
    try:
        return engine.action_from_dict(action)
    except engine.EngineError as exc:
        raise IllegalMove(_sentence(str(exc))) from exc


NO_SUCH_HAND = "That hand is not being played at this table."


@metrics.timed_action
def hand_act(
    *,
    hand_id: int | None,
    user: User,
    action: engine.Action | Mapping[str, Any],
    version: int,
    table_id: int | None = None,
) -> Hand:
    """A player's action, from the form post, the socket, the simulator and the tests alike (docs/architecture.md "The
    path of one action"): the one entry and the one lock of a hand's step. ``table_id``: the table the form
    or socket is at (None: the hand's own); ``hand_id``: the hand the player saw (None, a post or frame
    without one: refused as a hand that is not at this table). Return the hand.

    The access rule: the hand must be this table's, the player a member of its club now (a non-member
    hears the same words as for a hand that is not there, so nothing is revealed) and dealt into it.
    Opens the durable transaction and locks the hand row. Raises DomainError (nothing changed):
    NotSeated (no such hand here, or not dealt in), StaleVersion (moved on; a sealed decision left standing by
    others deciding first is taken: games/services/locking.py), NotYourTurn, IllegalMove (the engine's rule).
    Advance actions and away members' defaults that become due are applied in the same transaction; when
    the hand ends, the table is updated and the next hand dealt in it.
    """
    parsed = _typed(action)
    if hand_id is None:
        raise NotSeated(NO_SUCH_HAND)
    if table_id is None:
        table_id = hand_table_of(hand_id=hand_id)
        if table_id is None:
            raise NotSeated(NO_SUCH_HAND)
    with transaction.atomic(durable=True):
        # One statement: the hand, its rules (and their game, for the books), its table, and whether the player
        # is a member of the table's club.
        hand = hand_lock_for_member(table_id=table_id, hand_id=hand_id, user=user, version=version)
        if hand is None:
            raise NotSeated(NO_SUCH_HAND)
        seat = hand_seat_of(hand=hand, user=user)
        if seat is None:
            raise NotSeated()
        state = locked_hand_state(hand=hand, seat=seat, version=version, action=parsed)
        return _apply_locked(hand=hand, seat=seat, state=state, user=user, action=parsed)


def _hand_deadline(clocks: Mapping[str, TurnClock], state: engine.State) -> datetime | None:
    """The hand's next due moment (``Hand.deadline``): its earliest clock; in a sealed decision, the latest of
    the awaited seats' clocks, when the decisions open by the clock. Until then a seat whose clock ran out
    keeps "waiting" like any other (its default is taken when every clock has run out or the others have
    decided), so the moment its clock ran out tells nobody that it timed out."""
    if clocks and engine.is_sealed(state):
        return max(clock_deadline(c) for c in clocks.values())
    return earliest_deadline(clocks)


def _due_seats(hand: Hand, awaited: Sequence[int], now: datetime) -> list[int]:
    """Awaited seats whose clock has run out: their own deadline passed, or they hold the hand's
    earliest clock (which ``hand.deadline`` marks). Seats without a clock of their own are due."""
    earliest = earliest_deadline(hand.clocks)
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
    In a sealed decision the other seats keep their own clocks (games/timing/turn_clock.py).
    Opens the durable transaction and locks the hand row.
    """
    with transaction.atomic(durable=True):
        hand = hand_lock_live(hand_id=hand_id)
        if hand is None or hand.version != version:
            return False
        now = timezone.now()
        if hand.deadline is None or hand.deadline > now:
            return False
        state = hand_state(hand)
        awaited = engine.to_act(state)
        due = _due_seats(hand, awaited, now)
        if engine.is_sealed(state) and set(due) != set(awaited):
            # A sealed decision whose other seats still have time (quiet hours make clocks differ): nothing
            # happens now; the alarm waits for the last clock (``_hand_deadline``).
            hand.deadline = _hand_deadline(hand.clocks, state)
            hand.save(update_fields=["deadline"])
            on_commit_work([(hand, hand.version)])  # the alarm for it; no new version, nothing anyone sees
            return False
        rules = engine.rules_from_dict(hand.rule_version.rules)
        seat_users = hand_seat_users(hand=hand)
        result = None
        for seat in due:
            if engine.is_over(state) or seat not in engine.to_act(state):
                continue
            action = engine.timeout_action(state, seat)
            new_state, events = engine.apply(state, seat, action)
            step = Step(
                before=state,
                state=new_state,
                events=events,
                seat=seat,
                user=seat_users.get(seat),
                action=action,
                is_timeout=True,
            )
            result = _record_step(hand=hand, rules=rules, seat_users=seat_users, step=step)
            state = new_state
        on_commit_work(
            hand_settle(hand=hand, state=state, created_by=None, after=version, seat_users=seat_users, result=result)
        )
    return True


def hand_apply_due(*, hand_id: int) -> bool:
    """Apply what is due now without a player acting (a member just marked themselves away):
    returns whether the hand moved on. Opens the durable transaction and locks the hand row."""
    with transaction.atomic(durable=True):
        hand = hand_lock_live(hand_id=hand_id)
        if hand is None:
            return False
        version = hand.version
        touched = hand_settle(hand=hand, state=hand_state(hand), created_by=None, after=version)
        if hand.version == version:
            return False
        on_commit_work(touched)
    return True


def _sentence(message: str) -> str:
    message = message.strip()
    return message if message.endswith((".", "!", "?")) else message + "."
