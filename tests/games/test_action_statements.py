"""The statements of the action's path written out once (games/selectors/rows.py, kernel/statements.py) read and
write exactly what the ORM does."""

from __future__ import annotations

import enum
import json

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

import engine
from games import services
from games.models import Hand, HandAction
from games.selectors.hands import hand_players, hand_seat_users
from games.selectors.states import hand_state
from games.services import advance
from games.services.locking import hand_lock_for_member
from kernel.statements import Insert, InsertColumns, Update, UpdateInsert, json_dumps
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
        # What neither the action nor the table's frames read is left deferred (read from the row if asked).
        assert locked.get_deferred_fields() == {"deck", "salts", "deal_events"}
        unread = locked.get_deferred_fields()
        assert {k: v for k, v in vars(locked).items() if k != "_state"} == {
            k: v for k, v in _values(orm).items() if k not in unread
        }
        assert _values(locked.rule_version) == _values(orm.rule_version)
        assert _values(locked.rule_version.rule_set) == _values(orm.rule_version.rule_set)
        assert _values(locked.table) == _values(orm.table)
        assert len(ctx.captured_queries) == 1 and "FOR UPDATE OF h" in ctx.captured_queries[0]["sql"]
        assert _values(locked) == _values(orm)
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
    row = HandAction(
        hand=hand,
        sequence=7,
        seat=1,
        user=a,
        action={"type": "check"},
        events=[{"kind": "check", "seat": 1, "stage": 1}],
        is_timeout=False,
    )
    Insert(HandAction).run([row])
    assert row.pk is not None and not row._state.adding
    assert _values(HandAction.objects.get(pk=row.pk)) == _values(row)
    hand.clocks, hand.version = {"1": {"since": 3}}, 3
    Update(Hand, ["version", "clocks"]).run(hand)
    assert Hand.objects.values_list("version", "clocks").get(pk=hand.pk) == (3, {"1": {"since": 3}})
    gone = Hand(pk=hand.pk + 1000, version=1)
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        Update(Hand, ["version"]).run(gone)


@pytest.mark.django_db
def test_rows_with_choices_an_id_given_or_columns_given_are_written_as_the_orm_writes_them(club_setup) -> None:
    """Values the ORM sends unchanged are taken as they are; others (a choices member, JSON, a time) take
    the field's own conversion. A row given its id keeps it. Rows given column by column get every other
    column at its default, as bulk_create sends it."""
    from ledger.models import Account, EntryKind, JournalEntry, Posting

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    fields = {
        "club_id": table.club_id,
        "created_by": a,
        "table": table,
        "hand": hand,
        "game": "piles",
        "memo": "Bet, seat 1",
    }
    ours = JournalEntry(kind=EntryKind.BET, **fields)
    Insert(JournalEntry).run([ours])
    orm = JournalEntry.objects.create(kind=EntryKind.BET, **fields)
    assert {**_values(JournalEntry.objects.get(pk=ours.pk)), "id": 0, "created_at": 0} == {
        **_values(JournalEntry.objects.get(pk=orm.pk)),
        "id": 0,
        "created_at": 0,
    }
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('games_handaction', 'id'))")
        (given,) = cursor.fetchone()
    row = HandAction(
        pk=given, hand=hand, sequence=9, seat=1, user=b, action={"type": "fold"}, events=[], is_timeout=True
    )
    Insert(HandAction, with_pk=True).run([row])
    assert row.pk == given and _values(HandAction.objects.get(pk=given)) == _values(row)
    accounts = list(Account.objects.filter(club=table.club, user__in=[a, b]).order_by("pk"))
    InsertColumns(Posting, ["entry_id", "account_id", "amount"]).run(
        {"entry_id": [ours.pk, ours.pk], "account_id": [accounts[0].pk, accounts[1].pk], "amount": [-7, 7]}
    )
    Posting.objects.bulk_create(
        [Posting(entry=orm, account=accounts[0], amount=-7), Posting(entry=orm, account=accounts[1], amount=7)]
    )
    written = [
        {k: v for k, v in _values(p).items() if k not in ("id", "entry_id", "seq", "balance_after", "created_at")}
        for p in Posting.objects.filter(entry__in=[ours, orm]).order_by("entry_id", "pk")
    ]
    assert written[:2] == written[2:] and [p["amount"] for p in written[:2]] == [-7, 7]


@pytest.mark.django_db
def test_columns_given_by_default_are_worked_out_once_unless_a_default_is_made_at_each_call() -> None:
    """A posting's other columns have fixed defaults: the same values at every call. An account's made time is
    ``timezone.now`` at each call: never kept from one call to the next."""
    from ledger.models import Account, Posting

    postings = InsertColumns(Posting, ["entry_id", "account_id", "amount"])
    assert postings.defaults() is postings.defaults()
    accounts = InsertColumns(Account, ["club_id", "kind", "user_id", "table_id"])
    first = accounts.defaults()
    assert accounts.defaults() is not first  # worked out again: a later time each call


@pytest.mark.django_db
def test_a_step_updates_its_hand_and_logs_its_action_in_one_statement_as_the_orm_would(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    step = UpdateInsert(Update(Hand, ["version", "clocks"]), Insert(HandAction))
    hand.clocks, hand.version = {"2": {"since": 4}}, 4
    row = HandAction(
        hand=hand,
        sequence=4,
        seat=2,
        user=b,
        action={"type": "check"},
        events=[{"kind": "check", "seat": 2, "stage": 1}],
        is_timeout=False,
    )
    with CaptureQueriesContext(connection) as ctx:
        step.run(hand, row)
    assert len(ctx.captured_queries) == 1
    assert row.pk is not None and not row._state.adding
    assert _values(HandAction.objects.get(pk=row.pk)) == _values(row)
    assert Hand.objects.values_list("version", "clocks").get(pk=hand.pk) == (4, {"2": {"since": 4}})
    gone = Hand(pk=hand.pk + 1000, version=1, clocks={})
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        step.run(gone, HandAction(hand=hand, sequence=5, seat=2, user=b, action={}, events=[], is_timeout=False))
    assert not HandAction.objects.filter(sequence=5).exists()


@pytest.mark.django_db
def test_the_locking_statement_loads_the_table_and_its_club_as_the_orm_reads_them(club_setup) -> None:
    """The action's one locking statement also loads the hand's table and club, which its frames are rendered
    from after the commit (games/live/publish.py); a snapshot read afresh shows the newest hand, or none yet."""
    from games.models import Table
    from games.selectors import snapshot
    from games.services.locking import hand_lock_for_member

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    later = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    services.table_start(table_id=table.pk, user=a)
    newest = Hand.objects.filter(table=table).order_by("-number").first()
    assert newest is not None
    orm = Table.objects.select_related("club").get(pk=table.pk)
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        locked = hand_lock_for_member(table_id=table.pk, hand_id=newest.pk, user=a)
        assert locked is not None
        assert _values(locked.table) == _values(orm) and _values(locked.table.club) == _values(orm.club)
    assert len([q for q in ctx.captured_queries if q["sql"].startswith("SELECT")]) == 1
    shown = snapshot.table_snapshot_read(table_id=table.pk)
    assert shown is not None and shown.hand is not None and _values(shown.hand) == _values(newest)
    empty = snapshot.table_snapshot_read(table_id=later.pk)
    assert empty is not None and empty.hand is None  # no hand dealt there yet


@pytest.mark.django_db
def test_a_row_becomes_the_instance_the_orms_from_db_makes_and_the_init_signals_are_still_heard(club_setup) -> None:
    """Columns.build sets a row's values on a new instance itself (no receivers of the model's init signals
    here); what it makes is what ``Model.from_db`` makes: the same values, the same deferred fields, a row read
    (not adding, its database), saved as the ORM saves a loaded instance. A receiver connected to those signals
    is heard as the ORM would call it."""
    from django.db.models.signals import post_init, pre_init

    from games.selectors.rows import Columns, rows_fetch

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    for only, orm in (
        ((), Hand.objects.get(pk=hand.pk)),
        (("id", "version", "state", "table_id"), Hand.objects.only("version", "state", "table").get(pk=hand.pk)),
    ):
        columns = Columns(Hand, "h", only=only)
        sql = f'SELECT {columns.sql} FROM "games_hand" h WHERE h.id = %s'  # noqa: S608 - the model's columns
        built = columns.build(rows_fetch(sql, [hand.pk])[0])
        assert type(built) is Hand
        assert {k: v for k, v in vars(built).items() if k != "_state"} == {
            k: v for k, v in vars(orm).items() if k != "_state"
        }
        assert built.get_deferred_fields() == orm.get_deferred_fields()
        assert (built._state.adding, built._state.db) == (False, orm._state.db) == (False, "default")
        assert built.table == orm.table and built.table is built.table  # the relation read once and kept
    with CaptureQueriesContext(connection) as ctx:
        built.version += 1
        built.save()  # a loaded instance with deferred fields: an UPDATE of the loaded ones, as the ORM's
    assert len(ctx.captured_queries) == 1 and ctx.captured_queries[0]["sql"].startswith('UPDATE "games_hand"')
    assert '"deck" = ' not in ctx.captured_queries[0]["sql"] and '"state" = ' in ctx.captured_queries[0]["sql"]
    assert Hand.objects.get(pk=hand.pk).version == hand.version + 1

    heard: list[tuple[str, object]] = []

    def before(sender, args, kwargs, **_) -> None:
        heard.append(("pre", args[0]))

    def after(sender, instance, **_) -> None:
        heard.append(("post", instance))

    pre_init.connect(before, sender=Hand)
    post_init.connect(after, sender=Hand)
    try:
        built = columns.build(rows_fetch(sql, [hand.pk])[0])
    finally:
        pre_init.disconnect(before, sender=Hand)
        post_init.disconnect(after, sender=Hand)
    assert heard == [("pre", hand.pk), ("post", built)]
    assert built.get_deferred_fields() == orm.get_deferred_fields() and not built._state.adding


@pytest.mark.django_db
def test_the_locked_hand_leaves_its_state_unread_only_when_this_process_keeps_that_versions(club_setup) -> None:
    """The action's locking statement sends the hand's state unless the hand is at the version the player saw, or
    one after it, and this process keeps the states from that one to the hand's (games/selectors/states.py);
    left unread, it is deferred (read from the row if asked), and the action reads it from the kept states: no
    statement more, the same step written."""
    from games.selectors.states import hand_state, hand_state_remember
    from games.services.hands import hand_act

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    orm = Hand.objects.get(pk=hand.pk)
    with transaction.atomic():
        read = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b, version=hand.version)
        assert read is not None and read.get_deferred_fields() == {"deck", "salts", "deal_events"}
        assert read.state == orm.state
    state = engine.state_from_json(orm.state)
    hand_state_remember(hand_id=hand.pk, version=hand.version, state=state)
    with transaction.atomic():
        with CaptureQueriesContext(connection) as ctx:
            locked = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b, version=hand.version)
            assert locked is not None and locked.get_deferred_fields() == {"state", "deck", "salts", "deal_events"}
            assert hand_state(locked) is state
            other = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b, version=hand.version + 1)
            assert other is not None and other.state == orm.state  # not at the version kept: read
        assert len(ctx.captured_queries) == 2
        assert locked.state == orm.state  # asked: read from the row, as a deferred field is
    seat = awaited(hand)[0]
    mover = next(u for u in (a, b) if u.pk == hand.players[str(seat)])
    action = engine.legal_actions(state, seat)[0]
    with CaptureQueriesContext(connection) as ctx:
        acted = hand_act(table_id=table.pk, hand_id=hand.pk, user=mover, action=action, version=hand.version)
    assert not [q for q in ctx.captured_queries if q["sql"].startswith('SELECT "games_hand"')]  # no state read
    assert acted.state == engine.state_to_json(engine.apply(state, seat, action)[0])
    assert Hand.objects.get(pk=hand.pk).state == acted.state and acted.version == hand.version + 1
    # Against the older version (a late sealed decision): the state is sent unless the hand's newest is kept too.
    with transaction.atomic():
        late = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b, version=hand.version)
        assert late is not None and "state" not in late.get_deferred_fields() and late.state == acted.state
    hand_state_remember(hand_id=hand.pk, version=acted.version, state=engine.state_from_json(acted.state))
    with transaction.atomic():
        late = hand_lock_for_member(table_id=table.pk, hand_id=hand.pk, user=b, version=hand.version)
        assert late is not None and "state" in late.get_deferred_fields() and late.version == acted.version


@pytest.mark.django_db
def test_json_values_are_sent_as_the_orm_prepares_them_and_stored_the_same(club_setup) -> None:
    """A dict or a list of a plain JSONField is sent as the ORM's conversion would send it (the same adapter, the
    same JSON value, written by ``json_dumps``); anything else (None, JSON's null, a string, a number) takes the field's own conversion.
    Each is stored as the ORM stores it."""
    from django.db.models import JSONField, Value
    from psycopg.types.json import Jsonb

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    update = Update(Hand, ["clocks", "private_marks", "timeouts"])
    fields = [Hand._meta.get_field(name) for name in ("clocks", "private_marks", "timeouts")]
    for values in (
        ({"1": {"since": 3}}, [[1, "drop"]], []),
        (Value(None, JSONField()), "a string", 5),
    ):
        hand.clocks, hand.private_marks, hand.timeouts = values
        sent = update.params(hand)[:3]
        expected = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]
        for ours, theirs in zip(sent, expected, strict=True):
            assert type(ours) is type(theirs)
            if isinstance(ours, Jsonb):  # the same object, written as the same JSON value
                assert ours.obj is theirs.obj
                assert json.loads(ours.dumps(ours.obj)) == json.loads(theirs.dumps(theirs.obj))
            else:
                assert ours is theirs or ours == theirs
        update.run(hand)
        stored = Hand.objects.values_list("clocks", "private_marks", "timeouts").get(pk=hand.pk)
        Hand.objects.filter(pk=hand.pk).update(clocks=values[0], private_marks=values[1], timeouts=values[2])
        assert stored == Hand.objects.values_list("clocks", "private_marks", "timeouts").get(pk=hand.pk)
    hand.clocks = None
    assert update.params(hand)[0] is None  # SQL's NULL, as the ORM sends it (these columns refuse it)


class _Kind(enum.StrEnum):
    DROP = "drop"


class _Name(str):
    pass


def test_json_dumps_writes_the_json_value_json_dumps_writes() -> None:
    """orjson where it writes what json.dumps does (a hand's state, a dict's int keys, a str enum); json.dumps, with
    its own answer or its own refusal, for what orjson leaves to it (a str subclass, an int beyond 64 bits, a date)."""
    dealt, _ = engine.new_hand(engine.PilesRules(), seats=[1, 2, 3], button=1, deck=list(engine.shuffled_deck()))
    state = engine.state_to_json(dealt)
    for value in (state, {1: [True, None, 2.5, "é"], "2": (3, 4), "kind": _Kind.DROP}, [], {}):
        assert json.loads(json_dumps(value)) == json.loads(json.dumps(value))
    assert isinstance(json_dumps(state), bytes)  # orjson's
    for value in ({"name": _Name("Ann")}, [2**70]):
        assert json_dumps(value) == json.dumps(value)
    import datetime

    with pytest.raises(TypeError):
        json_dumps({"at": datetime.date(2026, 1, 1)})


@pytest.mark.django_db
def test_an_action_that_moves_chips_once_writes_its_books_in_its_steps_statement(club_setup) -> None:
    """A bet or a call: the hand locked, its players read, then one statement for the hand, its log row, the
    entry and its postings (bench/action_path.py: one round trip fewer); the books get what the log says."""
    from engine.events import PAY_KINDS
    from ledger.models import JournalEntry, Posting
    from tests.ledger.helpers import assert_books_consistent

    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=players)
    hand = services.table_start(table_id=table.pk, user=players[0])
    seats = {int(seat): next(u for u in players if u.pk == user_id) for seat, user_id in hand.players.items()}
    moved = 0
    while moved < 3 and not hand.is_finished:
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        action = next((a for a in legal if a.type in ("bet", "call")), legal[0])
        entries = JournalEntry.objects.count()
        with CaptureQueriesContext(connection) as ctx:
            hand = services.hand_act(
                table_id=table.pk, hand_id=hand.pk, user=seats[seat], action=action, version=hand.version
            )
        logged = HandAction.objects.get(hand=hand, sequence=hand.version).events
        chips = [e for e in logged if e["kind"] in PAY_KINDS and e.get("amount")]
        if hand.is_finished or len(chips) != 1:
            continue
        moved += 1
        sent = [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
        assert len(sent) == 3, sent
        assert all(f'"{name}"' in sent[2] for name in ("games_hand", "games_handaction", "ledger_posting")), sent[2]
        entry = JournalEntry.objects.order_by("pk").last()
        assert JournalEntry.objects.count() == entries + 1 and entry is not None
        assert (entry.kind, entry.hand_id, entry.created_by_id) == (chips[0]["kind"], hand.pk, seats[seat].pk)
        amounts = list(Posting.objects.filter(entry=entry).order_by("pk").values_list("amount", flat=True))
        assert amounts == [-chips[0]["amount"], chips[0]["amount"]]
    assert moved == 3
    assert_books_consistent()
