"""The statements of the action's path written out once (games/selectors/rows.py, config/statements.py) read and
write exactly what the ORM does."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from config.statements import Insert, Update
from games import engine, services
from games.models import Hand, HandAction
from games.selectors.hands import hand_players, hand_seat_users
from games.services import advance
from games.services.locking import hand_lock_for_member
from tests.games.async_helpers import awaited
from tests.games.helpers import make_table


def _values(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.mark.django_db
def test_the_locked_hand_is_loaded_as_the_orm_loads_it_and_only_for_a_member(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    orm = Hand.objects.select_related("rule_version__rule_set", "table").get(pk=hand.pk)
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        locked = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b)
        assert locked is not None
        assert _values(locked) == _values(orm)
        assert _values(locked.rule_version) == _values(orm.rule_version)
        assert _values(locked.rule_version.rule_set) == _values(orm.rule_version.rule_set)
        assert _values(locked.table) == _values(orm.table)
        assert len(ctx.captured_queries) == 1 and "FOR UPDATE OF h" in ctx.captured_queries[0]["sql"]
        assert hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=club_setup.outsider) is None
        assert hand_lock_for_member(table_id=table.pk + 1000, hand_id=hand.pk, user=b) is None


@pytest.mark.django_db
def test_the_players_former_members_and_pending_advance_actions_are_read_in_one_statement(club_setup) -> None:
    from accounts.models import Membership

    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    Membership.objects.filter(user=c, club=club_setup.club).delete()
    with CaptureQueriesContext(connection) as ctx:
        found = hand_players(hand=hand, club_id=table.club_id)
    assert len(ctx.captured_queries) == 1
    expected = hand_seat_users(hand=hand)
    assert {s: _values(u) for s, u in found.seat_users.items()} == {s: _values(u) for s, u in expected.items()}
    assert found.removed == {s for s, u in expected.items() if u.pk == c.pk}
    assert found.advance_pending is False
    waiting = next(u for u in (a, b) if u.pk != hand.players[str(awaited(hand)[0])])
    advance.advance_set(hand_id=hand.pk, user=waiting, choice="fold", version=0)
    assert hand_players(hand=hand, club_id=table.club_id).advance_pending is True


@pytest.mark.django_db
def test_a_log_row_and_a_hand_update_write_what_the_orm_writes(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    row = HandAction(hand=hand, sequence=7, seat=1, user=a, action={"type": "check"},
                     events=[{"kind": "check", "seat": 1, "stage": 1}], is_timeout=False)
    Insert(HandAction).run([row])
    assert row.pk is not None and not row._state.adding
    assert _values(HandAction.objects.get(pk=row.pk)) == _values(row)
    hand.clocks, hand.version = {"1": {"since": 3}}, 3
    Update(Hand, ["version", "clocks"]).run(hand)
    assert Hand.objects.values_list("version", "clocks").get(pk=hand.pk) == (3, {"1": {"since": 3}})
    gone = Hand(pk=hand.pk + 1000, version=1)
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        Update(Hand, ["version"]).run(gone)
