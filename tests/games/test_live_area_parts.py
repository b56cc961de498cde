"""The socket's table area is rendered once for every viewer with each member's own parts filled in
(games/area.py ``member_part``). Whatever the hand's moment and whoever looks, the
area a member receives must be exactly the area the template renders for them whole."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import timezone, translation

from accounts.access import ClubAccess, membership_of
from accounts.models import User
from games import area, engine, live, services
from games.models import Hand, Table
from games.presenters import hand_page
from games.selectors.snapshot import TableSnapshot, table_snapshot_read
from tests.accounts.factories import MembershipFactory
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_piles_hand import HOLES as PILES_HOLES
from tests.games.test_piles_hand import ROW, SQUARE1, SQUARE2
from tests.games.test_piranha_game import BOARD_1, HOLES_1

PREFER = ("in", "check", "call", "declare", "bet", "raise", "fold", "out")


def whole_area(*, table_id: int, hand_id: int | None, user: User, access: ClubAccess) -> str:
    """The area rendered whole for ``user`` from a snapshot of its own, as the table page includes it."""
    snapshot = table_snapshot_read(table_id=table_id, hand_id=hand_id)
    assert snapshot is not None
    context = hand_page(table=snapshot.table, hand=snapshot.hand, user=user, currency=snapshot.table.club.currency,
                        snapshot=snapshot)
    with timezone.override(live._zone(user)):
        locale = (timezone.get_current_timezone_name(), translation.get_language())
        return render_to_string(area.AREA, live._area_values(snapshot, context, user, access, locale), using="jinja2")


class Viewers:
    def __init__(self, table: Table, users: list[User]) -> None:
        self.table = table
        self.users = [User.objects.get(pk=u.pk) for u in users]
        self.access = {u.pk: ClubAccess(club=table.club, membership=membership_of(user=u, club_id=table.club_id))
                       for u in self.users}
        self.earlier: TableSnapshot | None = None

    def check(self, hand_id: int | None = None) -> int:
        """Every viewer's socket area (one snapshot for all, made from the previous one as the socket side
        does) equals their whole area; returns how many were compared. ``hand_id``: that hand (default:
        the newest)."""
        hand = Hand.objects.filter(table=self.table).order_by("-number").first()
        hand_id = hand_id or (hand.pk if hand is not None else None)
        # As the socket side does: the hand's last version (or the hand before, finished) read here before.
        held = table_snapshot_read(table_id=self.table.pk, hand_id=hand_id, earlier=self.earlier)
        assert held is not None
        for user in self.users:
            access = self.access[user.pk]
            fast = live.table_area_html(snapshot=held, user=user, access=access)
            assert "\x00" not in fast
            assert fast == whole_area(table_id=self.table.pk, hand_id=hand_id, user=user, access=access), user
        self.earlier = held
        return len(self.users)


def play_through(viewers: Viewers, steps: int, seed: int) -> int:
    """Play ``steps`` legal actions (each by the first awaited seat), checking every viewer after each."""
    rng = random.Random(seed)
    compared = viewers.check()
    for _ in range(steps):
        hand = Hand.objects.filter(table=viewers.table).order_by("-number").first()
        assert hand is not None
        before = hand.pk
        state = engine.state_from_json(hand.state)
        awaited = engine.to_act(state)
        if not awaited:
            break
        seat = awaited[0]
        legal = engine.view(state, seat).legal_actions
        pick = next((a for p in PREFER for a in legal if a.type == p), None) if rng.random() < 0.7 else None
        user = User.objects.get(pk=int(hand.players[str(seat)]))
        services.hand_act(table_id=viewers.table.pk, hand_id=hand.pk, user=user, action=pick or rng.choice(legal),
                          version=hand.version)
        if Hand.objects.get(pk=before).is_finished:  # the finished hand's last version, as its sockets hear it
            compared += viewers.check(hand_id=before)
        compared += viewers.check()
    return compared


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_every_viewers_socket_area_is_their_whole_area_at_every_step(club_setup, game) -> None:
    a, b, c = club_setup.members
    c.time_zone = "Asia/Tokyo"  # another zone: clocks and dates are the viewer's own
    c.save(update_fields=["time_zone"])
    rules = engine.PiranhaRules(ante=25) if game == "piranha" else engine.PilesRules()
    deck = fixed_deck(HOLES_1, BOARD_1, button=1) if game == "piranha" else \
        fixed_deck(PILES_HOLES, SQUARE1 + SQUARE2 + ROW, button=1)
    table = make_table(club_setup.club, club_setup.organiser, rules, players=[a, b, c])
    # Three players, the organiser watching (their links), a member who is not seated.
    spectator = MembershipFactory(club=club_setup.club).user
    viewers = Viewers(table, [a, b, c, club_setup.organiser, spectator])
    compared = viewers.check()  # seated, no hand yet: "anyone seated may start" for the players only
    services.table_start(table_id=table.pk, user=a, deck=deck)
    compared += play_through(viewers, 60, seed=7)
    assert Hand.objects.filter(table=table).count() >= 2  # a finished hand shown as the last one, too
    services.table_close(table_id=table.pk, user=club_setup.organiser, reason="Late in the evening.")
    compared += viewers.check()
    assert compared >= 5 * 10


@pytest.mark.django_db(transaction=True)
def test_a_member_part_left_out_would_show_in_every_area(club_setup) -> None:
    """The check above can fail: the shared render, made for no one, holds none of a member's own parts."""
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    held = table_snapshot_read(table_id=table.pk, hand_id=None)
    assert held is not None
    organiser = User.objects.get(pk=club_setup.organiser.pk)
    access = ClubAccess(club=table.club, membership=membership_of(user=organiser, club_id=table.club_id))
    mine = live.table_area_html(snapshot=held, user=User.objects.get(pk=a.pk), access=None)
    theirs = live.table_area_html(snapshot=held, user=organiser, access=access)
    shared: Any = next(v for k, v in held.derived.items() if isinstance(k, tuple) and k[0] == "area")
    shared_text = "".join(shared[0::2])
    assert "Your cards" in mine and "Your cards" not in theirs and "Your cards" not in shared_text
    assert "Close the table" in theirs and "Close the table" not in mine and "Close the table" not in shared_text
