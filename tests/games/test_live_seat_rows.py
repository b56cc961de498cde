"""The ring's seats as every viewer sees them are drawn once for what they show and kept (games/presentation/area.py
``seat_row_html``, by ``SeatShown`` and the time zone of their clock): every frame drawn from kept seats is byte
for byte the frame drawn afresh; whatever a seat shows changes its kept copy; and a member's own seat row (their
cards) is never kept, so no other viewer is ever handed it."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json
import random
import types
import zoneinfo
from typing import Any

import pytest
from django.utils import timezone

import engine
from accounts.models import User
from games.live import render
from games.presentation import area
from games.presentation.presenters import hand_page
from games.selectors.snapshot import TableSnapshot, table_snapshot_read
from ledger.selectors import SeatMoney
from tests.games.helpers import act_at_random, hidden_cards_in, three_players_started


def _snapshot(table_id: int) -> TableSnapshot:
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    return snapshot


def _page_area(snapshot: TableSnapshot, user: User) -> str:
    """The area as the table page renders it for ``user``: their own seat row among the others."""
    table = snapshot.table
    values = {
        **hand_page(table=table, hand=snapshot.hand, user=user, currency=table.club.currency, snapshot=snapshot),
        **{"club": table.club, "table": table, "user": user, "access": None, "request": None, "csrf_token": ""},
    }
    return area.jinja_template(area.AREA).render(values)


def _frames(snapshot: TableSnapshot, members: list[User]) -> list[str]:
    return [render.public_frame(snapshot)] + [render.private_frame(snapshot, u) for u in members]


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_every_frame_from_kept_seats_is_the_frame_drawn_afresh(club_setup, rules: engine.Rules) -> None:
    table, players = three_players_started(club_setup, rules)
    members = list(players.values())
    rng = random.Random(5)
    kept_before = 0
    for _ in range(90):
        snapshot = _snapshot(table.pk)
        kept_before += len(area._SEAT_ROWS)
        kept = _frames(snapshot, members)
        with timezone.override(zoneinfo.ZoneInfo("Asia/Tokyo")):
            kept_pages = [_page_area(snapshot, u) for u in members]
        area._SEAT_ROWS._entries.clear()
        assert kept == _frames(_snapshot(table.pk), members)
        with timezone.override(zoneinfo.ZoneInfo("Asia/Tokyo")):
            assert kept_pages == [_page_area(_snapshot(table.pk), u) for u in members]
        if not act_at_random(table.pk, players, rng):
            break
    assert kept_before > 0, "no seat was ever kept"


def test_the_seat_rows_macro_is_given_what_the_seat_shows_in_order() -> None:
    """The macro is called with a ``SeatShown``'s fields as its arguments, in order: a field added, dropped or moved
    on one side only would draw one thing in another's place."""
    macro = area.jinja_template(area.SEAT_ROW).module.seat_row  # type: ignore[attr-defined]
    assert tuple(macro.arguments) == area.SeatShown._fields


def _awaited_row(table_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The public row of a seat the hand waits for, and the values the ring draws it with."""
    snapshot = _snapshot(table_id)
    values = {**hand_page(table=snapshot.table, hand=snapshot.hand, user=None, currency="USD", snapshot=snapshot)}
    values["club"] = snapshot.table.club
    row = next(r for r in values["seat_rows"] if r["to_act"])
    return row, values


@pytest.mark.django_db
def test_whatever_a_seat_shows_changes_its_kept_markup(club_setup) -> None:
    """Each thing the seat row draws, changed alone after the seat was kept, draws the seat anew: the kept copy
    is found only by everything it shows (and the clock's time zone)."""
    table, _ = three_players_started(club_setup, engine.PiranhaRules(ante=25, betting_round=True))
    row, values = _awaited_row(table.pk)
    seat, view = row["seat"], row["view"]
    assert seat is not None and view is not None
    deadline = dt.datetime(2026, 3, 1, 21, 30, tzinfo=dt.UTC)
    clocks = [{"seat": row["number"], "deadline": deadline}]
    values["seat_money"] = {seat.user_id: SeatMoney(balance=1200, sitting_net=-50)}
    other_seat = copy.copy(seat)
    other_seat.user_id = seat.user_id + 1000
    rows = {
        "name": {**row, "name": "Somebody Else"},
        "number": {**row, "number": row["number"] + 7},
        "button": {**row, "is_button": not row["is_button"]},
        "away": {**row, "away": True},
        "sitting out": {**row, "sitting_out": True},
        "left": {**row, "left": True},
        "not awaited": {**row, "to_act": False},
        "matched": {**row, "matched": 25},
        "paid": {**row, "view": dataclasses.replace(view, paid=view.paid + 25)},
        "this round": {**row, "view": dataclasses.replace(view, round_bet=view.round_bet + 25)},
        "status": {**row, "view": dataclasses.replace(view, status="folded")},
        "cards shown": {**row, "view": dataclasses.replace(view, cards=("As", "Kd"))},
        "no view": {**row, "view": None},
        "another member's money": {**row, "seat": other_seat},
        "no seat": {**row, "seat": None},
    }
    changed_values = {
        "balance": {**values, "seat_money": {seat.user_id: SeatMoney(balance=900, sitting_net=-50)}},
        "net": {**values, "seat_money": {seat.user_id: SeatMoney(balance=1200, sitting_net=75)}},
        "no money": {**values, "seat_money": {}},
        "currency": {**values, "club": types.SimpleNamespace(currency="EUR")},
    }
    changed_clocks = {"deadline": [{"seat": row["number"], "deadline": deadline + dt.timedelta(minutes=1)}], "none": []}
    area._SEAT_ROWS._entries.clear()
    with timezone.override(zoneinfo.ZoneInfo("UTC")):
        base = area.seat_row_html(values, row, clocks)
        cases = [(name, values, r, clocks) for name, r in rows.items()]
        cases += [(name, v, row, clocks) for name, v in changed_values.items()]
        cases += [(f"clock {name}", values, row, c) for name, c in changed_clocks.items()]
        for name, case_values, case_row, case_clocks in cases:
            fresh = area._seat_row(
                area.seat_shown(case_row, case_values["club"], case_clocks, case_values["seat_money"])
            )
            assert fresh != base, f"{name}: the seat row does not show it"
            assert area.seat_row_html(case_values, case_row, case_clocks) == fresh, name
    with timezone.override(zoneinfo.ZoneInfo("America/New_York")):  # the same seat, its clock in another zone
        there = area.seat_row_html(values, row, clocks)
        assert there != base
        assert there == area._seat_row(area.seat_shown(row, values["club"], clocks, values["seat_money"]))
        assert "16:30" in there


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_a_members_own_seat_is_never_kept(club_setup, rules: engine.Rules) -> None:
    """Every member's page and private frame drawn (each with their own seat row: their own decision, their badges
    while a decision is sealed), at every step of a hand: no kept seat is anyone's own, and none gives away a card
    of the hand being played."""
    table, players = three_players_started(club_setup, rules)
    members = list(players.values())
    rng = random.Random(8)
    area._SEAT_ROWS._entries.clear()
    for _ in range(40):
        snapshot = _snapshot(table.pk)
        hand = snapshot.hand
        assert hand is not None
        if hand.is_finished:
            break
        for user in members:
            assert "(you)" in _page_area(snapshot, user)
            assert "(you)" in json.loads(render.private_frame(snapshot, user))["parts"]["row"]
        hole = [c for s in hand.players for c in (engine.view(snapshot.state, int(s)).my_cards or ())]
        for shown, _zone in list(area._SEAT_ROWS._entries):
            assert not shown.is_me
        for html in list(area._SEAT_ROWS._entries.values()):
            assert "(you)" not in html
            assert not hidden_cards_in(html, hole)
        act_at_random(table.pk, players, rng, stay=1.0)
    assert len(area._SEAT_ROWS) > 0
