"""Reading another seat's sealed decision (Piranha's drop) before the decisions are opened.

The default of a seat that does not decide is fixed by the house rules (docs/design.md: a drop defaults to
out), so anything that tells how a seat decided tells what it chose: a "clock ran out" mark, an
"away" badge, a removed member's "sitting out", a seat change announced just before its decision, or
another seat's exact deadline. For each way a seat can decide (a click, an advance action, its clock
running out, going away, being removed from the club) the others (two players still deciding and a
spectator) must learn only "decided": on the table page (raw HTML), in every frame of the table
socket and of the lobby socket, on the lobby page, in the hand's log and in their emails. Each way is
compared with the same seat deciding "in" by a click at a twin table (same players, same seats).
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core import mail
from django.test import Client
from django.urls import reverse

import engine
from accounts.models import Membership, User
from accounts.services import membership_remove
from games import services
from games.live.publish import announce_flush
from games.models import Hand
from games.services import advance
from games.services.hands import hand_apply_timeout
from tests.games.async_helpers import awaited, expire, seat_of, user_at
from tests.games.helpers import make_table, post_action
from tests.games.test_consumers import close_worker_thread_connections, communicator, open_table  # noqa: F401

RULES = engine.PiranhaRules(betting_round=True)  # a betting round first, so a drop can be set in advance
WAYS = ["click", "advance", "timeout", "away", "removal"]
# Ways in which x makes no choice: its default (out) waits for the opening, so nothing may change for the others
# at that moment (docs/design.md): compared with a twin table where x does nothing at all.
SILENT = {"timeout", "away", "removal"}
# Marks that must never reach another member while the drop is closed.
TELLING = ["clock ran out", "badge away", "sitting out", "left the table"]


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def _phase(hand: Hand) -> str:
    hand.refresh_from_db()
    return str(hand.state["phase"])


def prepare(club_setup: Any, way: str, choice: str = "out") -> tuple[int, int]:
    """A three-seat table (a, b, x) whose hand is one step before x decides; returns (table id, hand id).

    ``advance``: x has set ``choice`` in advance and the betting round waits for its last check (the step).
    Every other way: the betting round is over and the drop waits for everyone."""
    a, b, x = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, RULES, players=[a, b, x])
    hand = services.table_start(table_id=table.pk, user=a)
    planned = False
    while _phase(hand) == "betting":
        seats = awaited(hand)
        actor = user_at(hand, seats[0])
        if way == "advance" and not planned and actor.pk != x.pk:
            advance.advance_set(hand_id=hand.pk, user=x, choice=choice, version=hand.version)
            planned = True
        if way == "advance" and planned and len(_checks_left(hand)) == 1:
            break  # the round's last check is the step under test
        services.hand_act(hand_id=hand.pk, user=actor, action={"type": "check"}, version=hand.version)
    announce_flush()  # the frames of the steps before are out before the observers' sockets open
    return table.pk, hand.pk


def _checks_left(hand: Hand) -> list[int]:
    """Seats yet to act in this betting round (every seat checks once in it)."""
    state = engine.state_from_json(hand.state)
    acted = {e.seat for e in state.events if isinstance(e, engine.Check)}
    return [s for s in state.seats if s not in acted]


def decide(club_setup: Any, way: str, hand_id: int) -> None:
    """The step in which x's drop is made, by ``way``."""
    x = club_setup.members[2]
    hand = Hand.objects.get(pk=hand_id)
    if way == "click":
        post_action(client_for(x), hand, "in")
    elif way == "advance":
        actor = user_at(hand, awaited(hand)[0])
        post_action(client_for(actor), hand, "check")
    elif way == "timeout":
        expire(hand, [seat_of(hand, x)])
        assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False
    elif way == "away":
        response = client_for(x).post(reverse("away_toggle"), {"away": "1", "next": "/"})
        assert response.status_code == 302
    elif way == "removal":
        membership = Membership.objects.get(club=club_setup.club, user=x)
        membership_remove(club_id=club_setup.club.pk, membership_id=membership.pk, by=club_setup.organiser)
    hand.refresh_from_db()
    still = club_setup.members if way in SILENT | {"nothing"} else club_setup.members[:2]
    assert _phase(hand) == "drop"
    assert {user_at(hand, s).pk for s in awaited(hand)} == {u.pk for u in still}


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def seat_row(html: str, seat: int) -> str:
    match = re.search(rf'<li class="seat[^"]*" data-seat="{seat}">(.*?)</li>', html, re.S)
    assert match, f"no row of seat {seat}"
    return _text(match.group(1))


def lobby_row(html: str, table_id: int) -> str:
    match = re.search(rf'<li[^>]*>\s*<a class="row-title" href="/tables/{table_id}/">(.*?)</li>', html, re.S)
    assert match, "no lobby row of the table"
    return _text(match.group(1))


@dataclass
class Seen:
    table_frames: dict[int, list[dict[str, Any]]]
    lobby_frames: dict[int, list[dict[str, Any]]]
    rows: dict[int, str]
    lobby_rows: dict[int, str]


async def drain(comm: WebsocketCommunicator, *, some: bool = True) -> list[dict[str, Any]]:
    """Every frame up to a quiet half second (``some``: at least one must come)."""
    frames = [await comm.receive_output(timeout=10)] if some else []
    while not await comm.receive_nothing(timeout=0.5):
        frames.append(await comm.receive_output(timeout=1))
    return frames


def check_pages(
    club_setup: Any, table_id: int, hand_id: int, observers: list[User], *, decided: bool = True
) -> tuple[dict, dict]:
    """The table and lobby pages each observer gets now, checked; returns x's seat row and the lobby row."""
    x = club_setup.members[2]
    hand = Hand.objects.get(pk=hand_id)
    x_seat = seat_of(hand, x)
    rows, lobby_rows = {}, {}
    for user in observers:
        html = client_for(user).get(f"/tables/{table_id}/").content.decode()
        for mark in TELLING:
            assert mark not in html, (user, mark)
        row = seat_row(html, x_seat)
        assert ("decided" in row) is decided and "away" not in row, row
        # The club balance is compared apart: the twin table played first already holds each member's
        # ante, so the balance differs between the twins by that much; the net of this sitting (this
        # table only) stays in the compared row, and a sealed decision posts nothing to either.
        row = re.sub(r"balance -?\$[0-9.,]+ ", "balance B ", row)
        rows[user.pk] = row.replace(x.shown_name, "X")
        # Only one's own clock while the drop is closed: no other seat's deadline, nor its away badge.
        clocks = re.search(r'<ul class="turn-clocks".*?</ul>', html, re.S)
        listed = re.findall(r"<li( class=\"me\")?>", clocks.group(0)) if clocks else []
        awaited_me = user.pk in {user_at(hand, s).pk for s in awaited(hand)}
        assert listed == ([' class="me"'] if awaited_me else []), (user, listed)
        assert 'class="badge away"' not in (clocks.group(0) if clocks else "")
        lobby = client_for(user).get(f"/clubs/{club_setup.club.pk}/tables/").content.decode()
        lobby_rows[user.pk] = lobby_row(lobby, table_id)
        for mark in TELLING:
            assert mark not in lobby, (user, mark)
    return rows, lobby_rows


def check_frames(frames: list[dict[str, Any]], x_seat: int, *, decided: bool = True) -> None:
    for frame in frames:
        assert frame["type"] == "websocket.send", frame
        text = frame.get("text") or ""
        for mark in TELLING:
            assert mark not in text, (mark, text[:400])
        message = json.loads(text)
        view = message.get("view")
        if isinstance(view, dict):
            entry = next(s for s in view["seats"] if s["seat"] == x_seat)
            assert (entry["decision"] == "decided") is decided, entry
            assert not decided or entry["last_action"] == "decided", entry
            assert all(e.get("kind") in {"ante", "check", "decided"} for e in view["events"] if e.get("seat") == x_seat)


async def watch(club_setup: Any, way: str, choice: str = "out") -> Seen:
    """Prepare a table, open the observers' sockets, let x decide by ``way`` (an advance action: ``choice``),
    and collect what they see."""
    a, b, x = club_setup.members
    observers = [a, b, club_setup.organiser]
    table_id, hand_id = await database_sync_to_async(prepare)(club_setup, way, choice)
    tables = {u.pk: await open_table(table_id, u) for u in observers}
    lobbies = {}
    for user in observers:
        comm = await communicator(f"/ws/clubs/{club_setup.club.pk}/lobby/", user)
        assert (await comm.connect(timeout=5))[0]
        lobbies[user.pk] = comm
    mail.outbox.clear()
    await database_sync_to_async(decide)(club_setup, way, hand_id)
    x_seat = await database_sync_to_async(lambda: seat_of(Hand.objects.get(pk=hand_id), x))()
    decided = way not in SILENT | {"nothing"}
    # Every frame of the step is handed to the channel layer before the quiet half second starts; the six
    # sockets then wait for theirs at once (one after another they waited six half seconds a watch).
    await asyncio.to_thread(announce_flush)
    drained = await asyncio.gather(*(drain(comm, some=decided) for comm in [*tables.values(), *lobbies.values()]))
    table_frames = dict(zip(tables, drained[: len(tables)], strict=True))
    lobby_frames = dict(zip(lobbies, drained[len(tables) :], strict=True))
    for frames in [*table_frames.values(), *lobby_frames.values()]:
        check_frames(frames, x_seat, decided=decided)
    for comm in [*tables.values(), *lobbies.values()]:
        await comm.disconnect()
    rows, lobby_rows = await database_sync_to_async(check_pages)(
        club_setup, table_id, hand_id, observers, decided=decided
    )
    for message in mail.outbox:  # nobody else hears how x decided
        if set(message.to) & {u.email for u in observers}:
            assert x.shown_name not in message.body and "clock ran out" not in message.body
    return Seen(
        table_frames={pk: [json.loads(f["text"]).get("type") for f in fs] for pk, fs in table_frames.items()},
        lobby_frames={pk: [json.loads(f["text"]) for f in fs] for pk, fs in lobby_frames.items()},
        rows=rows,
        lobby_rows=lobby_rows,
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("way", WAYS)
async def test_others_learn_only_decided_until_the_drop_is_opened(club_setup, way: str) -> None:
    # The twin table: x clicks "in"; where x's drop comes in the step that ends the betting round (an
    # advance action), x set "in" in advance there (the round's end changes every seat's buttons alike); where x
    # makes no choice (a clock, going away, removal), x does nothing at all there.
    if way in SILENT:
        baseline = await watch(club_setup, "nothing")
    else:
        baseline = await watch(club_setup, "advance", "in") if way == "advance" else await watch(club_setup, "click")
    seen = baseline if way == "click" else await watch(club_setup, way)
    assert seen.rows == baseline.rows
    assert seen.lobby_rows == baseline.lobby_rows
    assert seen.table_frames == baseline.table_frames
    assert seen.lobby_frames == baseline.lobby_frames


@pytest.mark.django_db
def test_a_timed_out_drop_is_marked_in_the_log_once_the_drop_is_opened(club_setup) -> None:
    """The mark is withheld, not lost: once every seat has decided, the log says whose clock ran out."""
    a, b, x = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, x])
    hand = services.table_start(table_id=table.pk, user=a)
    expire(hand, [seat_of(hand, x)])
    assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False  # the default waits for a and b
    hand.refresh_from_db()
    page = client_for(a).get(f"/tables/{table.pk}/").content.decode()
    assert "clock ran out" not in page
    for user in (a, b):
        hand.refresh_from_db()
        services.hand_act(hand_id=hand.pk, user=user, action={"type": "out"}, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_finished
    story = client_for(a).get(f"/hands/{hand.pk}/").content.decode()
    assert f"{x.shown_name} drops out. (clock ran out)" in _text(story)


@pytest.mark.django_db
@pytest.mark.parametrize("way", ["timeout", "away"])
def test_a_piles_declaration_stays_sealed_the_same_way(club_setup, way: str) -> None:
    """Piles' declaration (default: fold) is sealed like the drop: a seat that timed out or went away
    shows others nothing new (its default waits for the opening), and no other seat's clock is listed."""
    a, b, x = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, x])
    hand = services.table_start(table_id=table.pk, user=a)
    while _phase(hand) == "betting":
        actor = user_at(hand, awaited(hand)[0])
        services.hand_act(hand_id=hand.pk, user=actor, action={"type": "check"}, version=hand.version)
    assert _phase(hand) == "declare"
    if way == "timeout":
        expire(hand, [seat_of(hand, x)])
        assert hand_apply_timeout(hand_id=hand.pk, version=hand.version) is False
    else:
        assert client_for(x).post(reverse("away_toggle"), {"away": "1", "next": "/"}).status_code == 302
    hand.refresh_from_db()
    assert _phase(hand) == "declare" and seat_of(hand, x) in awaited(hand)
    rows, _ = check_pages(club_setup, table.pk, hand.pk, [a, b, club_setup.organiser], decided=False)
    assert not any("decided" in row for row in rows.values())


_IDS = [
    (re.compile(r"/(tables|hands|clubs|versions)/\d+/"), r"/\1/N/"),
    (re.compile(r'"(table|hand)":\d+'), r'"\1":N'),
    (re.compile(r'data-(hand-id|dismiss)=\\"\d+'), r"data-\1=N"),
    (re.compile(r"[0-9a-f]{64}"), "C"),
    # The club balance: the twin table played second holds each member's ante of the first one too.
    (re.compile(r"balance -?\$[0-9.,]+"), "balance B"),
]


@pytest.mark.django_db(transaction=True)
def test_a_decisions_public_frame_is_byte_for_byte_the_same_whatever_the_choice(club_setup) -> None:
    """x's drop at two twin tables, "in" at one and "out" at the other: the version's public frame is the
    same bytes (so the same size) but for the tables' own ids, and only x is sent a private frame."""
    from games.live import render
    from games.live.publish import announce_flush
    from games.selectors.snapshot import table_snapshot_read
    from tests.games.helpers import fixed_deck
    from tests.games.test_piranha_game import BOARD_1, HOLES_1

    a, b, x = club_setup.members
    tables = {
        choice: make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, x])
        for choice in ("in", "out")
    }
    frames = {}
    for choice, table in tables.items():
        hand = services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
        announce_flush()
        render.renders.clear()
        services.hand_act(hand_id=hand.pk, user=x, action={"type": choice}, version=0)
        announce_flush()
        assert render.renders == {"public": 1, "private": 1}, render.renders
        snapshot = table_snapshot_read(table_id=table.pk)
        assert snapshot is not None
        text = render.public_frame(snapshot)
        for pattern, replacement in _IDS:
            text = pattern.sub(replacement, text)
        frames[choice] = text
    assert "decided" in frames["in"]
    assert frames["in"] == frames["out"], "\n".join(
        difflib.unified_diff(frames["in"].split("\\n"), frames["out"].split("\\n"), lineterm="")
    )
