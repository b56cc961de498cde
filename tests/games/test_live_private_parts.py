"""A member's private frame is rendered from their own context and the few public values its parts read
(games/live/render.py): at every step of whole games it is byte for byte the parts the page's whole context
renders (presenters.hand_page), cards, buttons, advance panel, seat actions and own seat row alike."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.template import engines
from django.utils import timezone
from jinja2 import meta

import engine
from accounts.models import User
from games import services
from games.live import render
from games.models import Hand
from games.presentation.area import jinja_template, seat_row_html
from games.presentation.presenters import hand_page
from games.selectors.advance import choices_for
from games.selectors.snapshot import TableSnapshot, table_snapshot_read
from games.services import advance
from tests.games.helpers import make_table


def _parts_from_the_whole_context(snapshot: TableSnapshot, user: User) -> dict[str, str]:
    """The member's parts as the page renders them: the area's whole context for them."""
    table = snapshot.table
    with timezone.override(render._zone(user)):
        values = {
            **hand_page(table=table, hand=snapshot.hand, user=user, currency=table.club.currency, snapshot=snapshot),
            **{"club": table.club, "table": table, "user": user, "access": None, "request": None, "csrf_token": ""},
        }
        parts = {
            name: jinja_template(f"games/area/{name}.jinja").render(values)
            for name in render.PARTS
            if name != "own_hand" or values["view"] is not None
        }
        own = next((row for row in values["seat_rows"] if row["is_me"]), None)
        if own is not None:
            parts["row"] = seat_row_html(values, own, values["clocks"])
    return parts


def _check_everyone(table_id: int, members: list[User]) -> None:
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    for user in members:
        pushed = json.loads(render.private_frame(snapshot, user))["parts"]
        assert pushed == _parts_from_the_whole_context(snapshot, user), user


def _play(table_id: int, members: list[User], steps: int, rng: random.Random) -> int:
    """Up to ``steps`` random legal actions (an advance action set now and then), every member's parts checked
    after each; returns the actions played."""
    by_id = {u.pk: u for u in members}
    played = 0
    for _ in range(steps):
        hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
        assert hand is not None
        if hand.is_finished:
            break
        state = engine.state_from_json(hand.state)
        seat = rng.choice(list(engine.to_act(state)))
        waiting = [int(s) for s in hand.players if int(s) not in engine.to_act(state)]
        if waiting and rng.random() < 0.3:
            other = rng.choice(waiting)
            choices = choices_for(state, other)
            if choices:
                user = by_id[int(hand.players[str(other)])]
                advance.advance_set(hand_id=hand.pk, user=user, choice=rng.choice(choices).choice, version=hand.version)
                _check_everyone(table_id, members)
        legal = list(engine.legal_actions(state, seat))
        staying = [a for a in legal if a.type not in ("fold", "out")]  # mostly: a game that ends at once shows little
        action = rng.choice(staying if staying and rng.random() < 0.9 else legal)
        services.hand_act(
            hand_id=hand.pk, user=by_id[int(hand.players[str(seat)])], action=action, version=hand.version
        )
        _check_everyone(table_id, members)
        played += 1
    return played


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [engine.PiranhaRules(ante=25, betting_round=True), engine.PilesRules()])
def test_every_members_private_parts_are_the_pages_at_every_step(club_setup, rules: Any) -> None:
    a, b, c = club_setup.members
    for user, zone in ((a, "America/Los_Angeles"), (b, "Asia/Kolkata"), (c, "UTC")):  # clocks in each one's own
        user.time_zone = zone
        user.save(update_fields=["time_zone"])
    table = make_table(club_setup.club, club_setup.organiser, rules, players=[a, b, c])
    services.table_start(table_id=table.pk, user=a)
    _check_everyone(table.pk, [a, b, c])
    services.seat_sit_out(table_id=table.pk, user=c)  # sits out from the next hand: their seat's words change
    assert _play(table.pk, [a, b, c], 60, random.Random(7)) > 10
    _check_everyone(table.pk, [a, b, c])  # the game over, or the hand it stopped in


# What the advance panel (games/presentation/area.py ``advance_panel``) reads of its template's context.
_ADVANCE_PANEL_READS = {"hand", "view", "club", "snapshot", "user", "csrf_token", "urls"}


@pytest.mark.django_db
def test_the_parts_read_nothing_their_narrow_context_lacks(club_setup) -> None:
    """Every name the parts' templates (and what they include) read is in a private frame's context, whatever
    branch a game takes: a name left out would render as nothing, not fail."""
    env = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend's
    read = set(_ADVANCE_PANEL_READS)
    for name in ("games/area/own_hand.jinja", "games/area/seat_actions.jinja", "games/_turn_clocks.jinja"):
        read |= meta.find_undeclared_variables(env.parse(env.loader.get_source(env, name)[0]))
    a, b, _c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    services.table_start(table_id=table.pk, user=a)
    snapshot = table_snapshot_read(table_id=table.pk)
    assert snapshot is not None
    assert read - set(env.globals) - set(render._member_values(snapshot, a)) == set()
