"""Every lock on a hand row, each by the hand's id: a player's move (games/services/hands.py, advance.py), a
clock running out, a clock moved, a ruling that opens, voids or stops a hand, a table closed.

Lock order (never the other way round, so no two transactions wait for each other in a cycle):

1. one hand row, locked alone (its rule version, table or club only read with it, never locked by it:
   a frozen rule version does not change, and the table is locked next, by itself);
2. the hand's table row (``table_lock_with_rules`` reads its rule version with it; games/services/seating.py
   locks a table with its rule version, the table first), then its decks ahead (games/services/decks.py);
3. the ledger's accounts (ledger/services.py).

A transaction that needs a hand and its table locks the hand first: a closing, a voiding or a practice table's
close reads which hand is in play, locks it here, then the table.
tests/test_architecture.py holds every other module to these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from django.db import connection, transaction
from django.db.models import Model

import engine
from accounts.models import Club, User
from games.errors import NotSeated, StaleVersion
from games.models import Hand, HandAction, RuleSet, RuleSetVersion, Table
from games.selectors.hands import hand_seat_of
from games.selectors.rows import Columns, rows_fetch, rows_split
from games.selectors.states import hand_state, hand_state_kept, hand_state_remember

# The hand's columns but its state (sent apart, below) and what neither the action nor the table's frames read:
# the deck and salts its commitment proves (the hand's page reads them) and the deal's events (its history):
# 2.7 KiB of the row's JSON, deferred.
_UNREAD = ("state", "deck", "salts", "deal_events")
_HAND, _RULES, _RULE_SET, _TABLE = (
    Columns(Hand, "h", only=[f.attname for f in Hand._meta.concrete_fields if f.attname not in _UNREAD]),
    Columns(RuleSetVersion, "rv"),
    Columns(RuleSet, "rs"),
    Columns(Table, "t"),
)
_CLUB = Columns(Club, "c")
# The hand by id at its table, when the player is a member of the table's club (or a computer player, at a
# practice table: games/services/practice.py); with its rule version, their rule set, the table and its club
# (read, not locked: only the hand row is). The table's frames are rendered from these after the commit
# (games/live/publish.py), so they are not read again.
# The hand is found by its id alone (``+ 0`` on its table and its rule version: no index serves their side): else
# the generic plan PostgreSQL keeps for the connection's prepared copy could look the hand up by its table or its
# rule version (a plan made while the hands were few) and read every hand of it, dead versions included, at each
# action.
# The hand's state last, and none (NULL) when the hand is at the version given first, one whose state this process
# keeps (games/selectors/states.py): it is read from there, so decoding the row's (2 to 5 KiB of JSON) was wasted.
# A version is never below 0: -1 asks for the state.
_MEMBER_HAND_SQL = (
    f"SELECT {_HAND.sql}, {_RULES.sql}, {_RULE_SET.sql}, {_TABLE.sql}, {_CLUB.sql}, "  # noqa: S608 - fixed columns
    'CASE WHEN h.version = %s THEN NULL ELSE h."state" END '
    'FROM "games_hand" h JOIN "games_table" t ON t.id = h.table_id + 0 JOIN "accounts_club" c ON c.id = t.club_id '
    'JOIN "games_rulesetversion" rv ON rv.id = h.rule_version_id + 0 '
    'JOIN "games_ruleset" rs ON rs.id = rv.rule_set_id '
    'WHERE h.id = %s AND h.table_id + 0 = %s AND (EXISTS (SELECT 1 FROM "accounts_membership" m '
    "WHERE m.club_id = t.club_id AND m.user_id = %s) OR (t.practice AND EXISTS (SELECT 1 FROM "
    '"games_computerplayer" cp WHERE cp.user_id = %s))) LIMIT 1 FOR UPDATE OF h'
)


# The table row locked, with its rule version and their rule set (the game, for the books) only read: what the
# ORM's select_for_update(of=("self",)) sends, written once. A table's version is frozen when the table is made
# (games/services/seating.py, practice.py) and never changes after, so nothing is kept from changing by locking
# it; and every table of those rules shares its row: locked at each hand's end, two tables' hand ends waited for
# each other (each had inserted a hand referring to it, which needs a lock that conflicts: a deadlock).
_LOCK_TABLE_SQL = (
    f"SELECT {_TABLE.sql}, {_RULES.sql}, {_RULE_SET.sql} "  # noqa: S608 - fixed columns
    'FROM "games_table" t JOIN "games_rulesetversion" rv ON rv."id" = t."rule_version_id" '
    'JOIN "games_ruleset" rs ON rs."id" = rv."rule_set_id" WHERE t."id" = %s FOR UPDATE OF t'
)

# The seat and action of each step of a hand logged after a version, what the ORM's values_list sends, written out
# once (building the query cost more CPU than running it): read for each sealed decision made late.
_LOGGED_SINCE_SQL = (
    'SELECT a."seat", a."action" FROM "games_handaction" a WHERE a."hand_id" = %s AND a."sequence" > %s '
    'ORDER BY a."sequence" ASC'
)
# Each JSON column's own conversion, as the ORM reads it.
_action: Callable[..., Any] = HandAction._meta.get_field("action").from_db_value
_state: Callable[..., Any] = Hand._meta.get_field("state").from_db_value


def _with_rule_set(rules: Model, rule_set: Model) -> RuleSetVersion:
    assert isinstance(rules, RuleSetVersion) and isinstance(rule_set, RuleSet)
    RuleSetVersion.rule_set.field.set_cached_value(rules, rule_set)
    return rules


def table_lock_with_rules(*, table_id: int) -> Table:
    """Lock table ``table_id``'s row; return it with its rule version and their rule set loaded (read, not
    locked). Table.DoesNotExist when it is gone. Expects an open transaction."""
    rows = rows_fetch(_LOCK_TABLE_SQL, [table_id])
    if not rows:
        raise Table.DoesNotExist("Table matching query does not exist.")
    table, rules, rule_set = rows_split(rows[0], _TABLE, _RULES, _RULE_SET)
    assert isinstance(table, Table)
    Table.rule_version.field.set_cached_value(table, _with_rule_set(rules, rule_set))
    return table


def hand_lock_for_member(*, table_id: int, hand_id: int, user: User, version: int | None = None) -> Hand | None:
    """Lock hand ``hand_id`` of table ``table_id`` when ``user`` is a member of the table's club (or a computer
    player and the table a practice table); return it with its rule version (and their rule set) and its table
    with its club loaded, or None (no such hand there, or not a member). ``version``: the one the player saw;
    when the hand is at the newest version this process keeps the state of (``_newest_kept``: ``hand_state`` reads
    it from there), the hand's ``state`` is left unread (deferred, as by the ORM's ``defer``), as are its deck,
    salts and deal events always (``_UNREAD``).
    One statement, written out once (games/selectors/rows.py). Expects an open transaction."""
    newest = _newest_kept(hand_id, version)
    rows = rows_fetch(_MEMBER_HAND_SQL, [newest, hand_id, table_id, user.pk, user.pk])
    if not rows:
        return None
    *columns, state = rows[0]
    hand, rules, rule_set, table, club = rows_split(columns, _HAND, _RULES, _RULE_SET, _TABLE, _CLUB)
    assert isinstance(hand, Hand) and isinstance(table, Table)
    if state is not None:
        hand.state = _state(state, None, connection)
    Table.club.field.set_cached_value(table, club)
    Hand.rule_version.field.set_cached_value(hand, _with_rule_set(rules, rule_set))
    Hand.table.field.set_cached_value(hand, table)
    return hand


def _newest_kept(hand_id: int, version: int | None) -> int:
    """The newest of hand ``hand_id``'s versions from ``version`` on, in a row, whose states this process keeps
    (-1: none): the player's own, or one that others' sealed decisions made since (their late one is then taken,
    ``_late_sealed_decision``). Once locked the hand is at it or at a later one (committed elsewhere)."""
    newest = -1
    while version is not None and hand_state_kept(hand_id=hand_id, version=version) is not None:
        newest, version = version, version + 1
    return newest


def hand_lock(*, hand_id: int, read: tuple[Literal["rule_version", "table"], ...] = ()) -> Hand | None:
    """Lock hand ``hand_id``'s row alone and return it, with ``read`` (its rule version, its table) loaded by the
    same statement but not locked; None when there is no such hand. Expects an open transaction."""
    rows = Hand.objects.select_for_update(of=("self",))
    if read:
        rows = rows.select_related(*read)
    return rows.filter(pk=hand_id).first()


def hand_lock_live(*, hand_id: int) -> Hand | None:
    """Lock hand ``hand_id`` (with its rule version read) while it is being played: None when it is gone,
    finished or voided. Expects an open transaction."""
    hand = hand_lock(hand_id=hand_id, read=("rule_version",))
    if hand is None or hand.is_finished or hand.voided_at is not None:
        return None
    return hand


def hand_lock_seated(
    *, hand_id: int, user: User, version: int, action: engine.Action | None = None
) -> tuple[Hand, int, engine.State]:
    """Lock the live hand ``hand_id`` that ``user`` is dealt into, as of ``version``; return it,
    their seat and its state. ``action``: the player's action, which may be a sealed decision still standing
    against an older version.

    Expects an open transaction. Raises NotSeated (no such hand, or not dealt in) and
    StaleVersion (finished, voided or moved on).
    """
    hand = hand_lock(hand_id=hand_id)
    if hand is None:
        raise NotSeated("There is no such hand.")
    seat = hand_seat_of(hand=hand, user=user)
    if seat is None:
        raise NotSeated()
    return hand, seat, locked_hand_state(hand=hand, seat=seat, version=version, action=action)


def hand_state_committed(*, hand: Hand, state: engine.State) -> None:
    """``state`` is the state of ``hand`` at its current version once this transaction commits (nothing is
    kept if it rolls back: games/selectors/states.py). Expects the hand row locked in an open transaction."""
    transaction.on_commit(partial(hand_state_remember, hand_id=hand.pk, version=hand.version, state=state))


def locked_hand_state(*, hand: Hand, seat: int, version: int, action: engine.Action | None) -> engine.State:
    """The locked live ``hand``'s state, when ``action`` of ``seat`` made against ``version`` still stands:
    the version is the hand's own, or the action is a sealed decision made late (``_late_sealed_decision``).
    ``action`` None: only the hand's own version stands. Raises StaleVersion (finished, voided or moved on)."""
    if hand.is_finished or hand.voided_at is not None:
        raise StaleVersion(current=hand.version)
    state = hand_state(hand)
    if hand.version != version and (
        action is None or not _late_sealed_decision(hand=hand, seat=seat, state=state, version=version, action=action)
    ):
        raise StaleVersion(current=hand.version)
    return state


def _late_sealed_decision(*, hand: Hand, seat: int, state: engine.State, version: int, action: engine.Action) -> bool:
    """Whether the sealed decision ``action`` of ``seat``, made against the older ``version``, is still the
    decision that seat was shown (piranha.txt 3.1, piles.txt 4.1: every seat decides at once, so others
    deciding first changes nothing it depends on): the hand is in its sealed decision, the seat is still
    awaited and the action legal now, the seat's turn in this decision began at or before ``version`` (its
    clock's "since", kept while the awaited seats only shrink: ``turn_clocks`` in games/services/clocks.py), and
    every action logged since ``version`` was another seat's sealed decision. Others' choices stay sealed
    either way, so whether it is taken tells the seat nothing it could not see. Reads the hand's log (only
    for a late action)."""
    if not 0 <= version < hand.version or not engine.is_sealed(state):
        return False
    if seat not in engine.to_act(state) or action not in engine.legal_actions(state, seat):
        return False
    began = hand.turn_began(seat)
    if began is None or began > version:
        return False
    sealed = set(engine.sealed_actions(state))
    since = rows_fetch(_LOGGED_SINCE_SQL, [hand.pk, version])
    return all(
        other != seat and engine.action_from_dict(_action(done, None, connection)) in sealed for other, done in since
    )
