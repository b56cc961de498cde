"""Practice tables: one member against computer players (engine/players), and the coach.

docs/design.md "Engine contract": practice never touches the books. A practice table seats its member and one to
five computer players; no money moves (ledger/services.py posts nothing for it), no statistic or season figure
is kept, no notice is sent, and PostgreSQL refuses each of those too (games 0012, ledger 0005, clubhouse
0003), as it refuses a second member at a practice table and a computer player at a money table.

A computer player is an account that is no member of any club and cannot log in (``ComputerPlayer``). It acts
through ``hand_act`` like anyone, from a Celery task (games/tasks.py ``computer_turn``, sent by
games/services/computer_turns.py) a short pause after its turn began, on the view of its own seat and nothing else. One task per seat and turn, and a task acts only
while that turn is still the seat's: a duplicate or a late one changes nothing.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from accounts.access import is_member
from accounts.models import Club, User
from accounts.money import money
from engine import players
from games.models import ComputerPlayer, Game, Hand, RuleSetVersion, Seat, Table
from games.selectors.hands import hand_current, hand_seat_of, hand_view_for
from games.selectors.states import hand_state
from games.services.computer_turns import computer_seats, computer_turns_schedule
from games.services.decks import decks_ahead_fill
from games.services.hands import hand_act
from games.services.locking import hand_lock
from games.services.rulesets import MAX_PLAYERS, rule_set_create, rule_version_freeze
from games.services.tables import table_start
from games.signals import lobby_announce, table_changed_publish
from kernel.errors import DomainError

log = logging.getLogger(__name__)

MAX_COMPUTERS = 5
MAX_OPEN = 5  # practice tables a member sits at, at most: each deals and plays on while open
STRENGTHS = tuple(p.strength for p in players.PLAYERS)  # beginner, solid, strong
DEFAULTS_NAME = "Defaults"
# Five names per strength, so a table of five computers of one strength has five people at it.
NAMES = {
    "beginner": ("Pip", "Wren", "Moss", "Fern", "Kit"),
    "solid": ("Morgan", "Robin", "Casey", "Jules", "Sam"),
    "strong": ("Ada", "Grace", "Alan", "Emmy", "Kurt"),
}


class PracticeRefused(DomainError):
    pass


class CoachRefused(DomainError):
    pass


def _computer_user(strength: str, index: int) -> User:
    """The account of computer player ``index`` (0-4) of ``strength``, made the first time it is needed."""
    username = f"computer-{strength}-{index + 1}"
    found = User.objects.filter(username=username, computer__strength=strength).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            user = User(username=username, display_name=f"{NAMES[strength][index]} (computer)", is_active=False)
            user.set_unusable_password()
            user.save()
            ComputerPlayer.objects.create(user=user, strength=strength)
            return user
    except IntegrityError:  # made by another practice table at the same moment
        return User.objects.get(username=username, computer__strength=strength)


def _default_rules(club: Club, user: User, game: str) -> RuleSetVersion:
    """The club's rule set of the engine's defaults for ``game`` (made the first time it is asked for)."""
    version = RuleSetVersion.objects.filter(
        rule_set__club=club, rule_set__game=game, rule_set__name=DEFAULTS_NAME, number=1
    ).first()
    if version is not None:
        return version
    rules = engine.PiranhaRules() if game == Game.PIRANHA else engine.PilesRules()
    rule_set = rule_set_create(
        club=club, user=user, name=DEFAULTS_NAME, rules=rules, max_seats=MAX_COMPUTERS + 1, spectators_allowed=True
    )
    return RuleSetVersion.objects.get(rule_set=rule_set, number=1)


def _practice_rules(club: Club, user: User, game: str, rule_version_id: int | None) -> RuleSetVersion:
    if rule_version_id is None:
        return _default_rules(club, user, game)
    version = (
        RuleSetVersion.objects.select_related("rule_set")
        .filter(pk=rule_version_id, rule_set__club=club, rule_set__game=game)
        .first()
    )
    if version is None:
        raise PracticeRefused("Choose one of the club's house rules for this game, or the defaults.")
    return version


def practice_open(
    *, club: Club, user: User, game: str, computers: int, strength: str, rule_version_id: int | None = None
) -> Table:
    """Open a practice table of ``game`` for ``user`` under one of the club's rule versions for that game (None:
    the defaults), seat them and ``computers`` computer players of ``strength``, and deal the first hand.
    Raises PracticeRefused (nothing changed) for a non-member, an unknown game or strength, or a number of
    computer players the rules do not seat."""
    if not is_member(user=user, club_id=club.pk):
        raise PracticeRefused("Only members of the club can practise here.")
    if game not in Game.values:
        raise PracticeRefused("Choose Piranha or Piles.")
    if strength not in STRENGTHS:
        raise PracticeRefused("Choose how well the computer players play.")
    top = min(MAX_COMPUTERS, MAX_PLAYERS[Game(game)] - 1)
    if not 1 <= computers <= top:
        raise PracticeRefused(f"Choose one to {top} computer players.")
    version = _practice_rules(club, user, game, rule_version_id)
    if computers + 1 > version.max_seats:
        raise PracticeRefused(
            f"These house rules seat {version.max_seats}: choose at most {version.max_seats - 1} computer players."
        )
    machines = [_computer_user(strength, i) for i in range(computers)]
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one member's opens one after another
        if practice_open_count(user=user) >= MAX_OPEN:
            raise PracticeRefused(
                f"You have {MAX_OPEN} practice tables open, the most at once: close one (the button on its page) "
                "or play on there."
            )
        version = RuleSetVersion.objects.select_for_update().get(pk=version.pk)
        rule_version_freeze(version=version)
        table = Table.objects.create(
            club=club, name=f"Practice {Game(game).label}", rule_version=version, created_by=user, practice=True
        )
        now = timezone.now()
        Seat.objects.bulk_create(
            [
                Seat(table=table, user=u, number=n, accepted_version=version, accepted_at=now)
                for n, u in enumerate([user, *machines], start=1)
            ]
        )
        decks_ahead_fill(table=table, first=1)  # as at a money table: the deals' hand ids follow their numbers
    table_start(table_id=table.pk, user=user)
    transaction.on_commit(lambda: lobby_announce(club.pk))
    table.refresh_from_db()
    return table


def practice_open_count(*, user: User) -> int:
    """How many practice tables ``user`` sits at (open, or between games): closed ones count no more."""
    return Seat.objects.filter(user=user, left_at__isnull=True, table__practice=True).count()


def practice_close(*, table_id: int, user: User) -> Table:
    """Close ``user``'s own practice table for good: its hand in play stops (nobody won it; no money ever moved),
    every seat is left, and it deals no more. Returns the table; closing it again changes nothing. Raises
    PracticeRefused for any other table or member (an organiser's ruling has no place here: games/services/
    closing.py refuses). Opens the durable transaction; locks the hand in play, then the table (the hands' order)."""
    with transaction.atomic(durable=True):
        live_id = Hand.objects.filter(table_id=table_id, finished_at__isnull=True).values_list("pk", flat=True).first()
        live = hand_lock(hand_id=live_id) if live_id else None
        table = Table.objects.select_for_update().filter(pk=table_id, practice=True).first()
        if table is None or table.created_by_id != user.pk:
            raise PracticeRefused("Only the member who opened a practice table can close it.")
        now = timezone.now()
        if live is not None and live.finished_at is None:
            Hand.objects.filter(pk=live.pk).update(finished_at=now, voided_at=now, deadline=None, clocks={})
        if table.status != Table.Status.FINISHED or table.seats.filter(left_at__isnull=True).exists():
            table.seats.filter(left_at__isnull=True).update(left_at=now)
            if table.status != Table.Status.FINISHED:
                table.status, table.finished_at = Table.Status.FINISHED, now
            table.carry_pot = 0
            table.save(update_fields=["status", "finished_at", "carry_pot"])
            transaction.on_commit(partial(table_changed_publish, table.pk, table.club_id))
    return table


# ---- computer turns --------------------------------------------------------------------------


def practice_wake(*, table: Table) -> int:
    """Send the turns of the computers the member's practice hand waits for (none sent while they were away, or
    lost); a turn sent already is not sent again. Returns how many were sent."""
    hand = hand_current(table=table) if table.practice else None
    return computer_turns_schedule([(hand.pk, hand.version)]) if hand is not None else 0


def computer_act(*, hand_id: int, version: int, seat: int) -> bool:
    """The computer player at ``seat`` takes its turn that began at or before ``version``, through ``hand_act``;
    True when it acted. Nothing when that turn is over (acted already, a duplicate task, the hand moved on), the
    hand is finished, or the seat is no computer's at a practice table. The policy sees only its seat's view."""
    hand = Hand.objects.select_related("rule_version", "table").filter(pk=hand_id).first()
    if hand is None or hand.is_finished or hand.voided_at is not None or not hand.table.practice:
        return False
    state = hand_state(hand)
    if seat not in engine.to_act(state) or not _turn_still(hand, state, seat, version):
        return False
    machine = computer_seats(hand).get(seat)
    if machine is None:
        return False
    rules = engine.rules_from_dict(hand.rule_version.rules)
    player = players.player(machine.strength)
    reads = _table_reads(hand=hand, user_id=machine.user.pk) if player is players.STRONG else None
    action = player.act(engine.view(state, seat), rules, random.Random(), reads)  # noqa: S311
    try:
        hand_act(hand_id=hand.pk, table_id=hand.table_id, user=machine.user, action=action, version=hand.version)
    except DomainError as exc:  # another task or the member moved first; their commit schedules what is due
        log.info("Computer seat %s of hand %s did not act: %s", seat, hand_id, exc)
        return False
    return True


READS_HANDS = 60  # the hands before this one a computer player remembers of its table


def _table_reads(*, hand: Hand, user_id: int) -> players.TableReads:
    """What the computer player ``user_id`` has seen of the others at ``hand``'s table: its own seat's view of
    each finished hand it played there (the latest READS_HANDS), nothing else (engine/players/reads.py)."""
    views = []
    earlier = (
        Hand.objects.filter(table_id=hand.table_id, number__lt=hand.number, finished_at__isnull=False)
        .order_by("-number")
        .values_list("state", "players")[:READS_HANDS]
    )
    for state, seated in earlier:
        seat = next((int(s) for s, uid in seated.items() if int(uid) == user_id), None)
        if seat is not None:
            views.append(engine.view(engine.state_from_json(state), seat))
    return players.reads_from(views)


def _turn_still(hand: Hand, state: engine.State, seat: int, version: int) -> bool:
    """Whether the seat's turn the task was sent for is the one awaited now: the hand is at that version, or
    in a sealed decision whose turn for that seat began at or before it."""
    if hand.version == version:
        return True
    began = hand.turn_began(seat)
    return engine.is_sealed(state) and began is not None and began <= version


# ---- the coach -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coaching:
    """What the coach says: the strong player's advice for the member's decision."""

    advice: players.Advice
    game: str


def practice_coach(*, table_id: int, user: User) -> Coaching:
    """For the decision in front of ``user`` at practice table ``table_id``: their equity (high and low apart in
    Piles), what the strong player would do and why. Reads only the member's own view of the hand. Raises
    CoachRefused at a money table, or when it is not their turn."""
    table = Table.objects.select_related("rule_version__rule_set", "club").filter(pk=table_id).first()
    if table is None or not table.practice:
        raise CoachRefused("The coach helps at practice tables only.")
    hand = hand_current(table=table)
    if hand is None or hand_seat_of(hand=hand, user=user) is None:
        raise CoachRefused("You are not playing in this hand.")
    view = hand_view_for(hand=hand, user=user)
    if not view.legal_actions:
        raise CoachRefused("It is not your turn: the coach speaks when you have a decision to make.")
    rules = engine.rules_from_dict(hand.rule_version.rules)
    # Seeded by the position (the member's own view), so a reload says the same; money in the club's currency.
    advice = players.advise(view, rules, money=partial(money, currency=table.club.currency))
    return Coaching(advice=advice, game=table.game)
