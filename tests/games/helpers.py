"""Helpers for the games tests: house rules, tables with seated members, fixed decks, page checks."""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction
from django.test import Client

import engine
from accounts.models import Club, User
from engine.cards import FULL_DECK, Card
from games import services
from games.models import Hand, RuleSet, Table
from kernel.errors import DomainError
from ledger.models import Account, EntryKind, JournalEntry, Posting

if TYPE_CHECKING:
    from tests.conftest import ClubSetup


def make_rule_set(
    club: Club,
    organiser: User,
    rules: engine.Rules | None = None,
    *,
    max_seats: int = 7,
    spectators_allowed: bool = True,
    name: str = "House",
) -> RuleSet:
    return services.rule_set_create(
        club=club,
        user=organiser,
        name=name,
        rules=rules or engine.PiranhaRules(),
        max_seats=max_seats,
        spectators_allowed=spectators_allowed,
    )


def make_table(
    club: Club,
    organiser: User,
    rules: engine.Rules | None = None,
    *,
    players: Sequence[User] = (),
    spectators_allowed: bool = True,
    max_seats: int = 7,
) -> Table:
    rule_set = make_rule_set(club, organiser, rules, max_seats=max_seats, spectators_allowed=spectators_allowed)
    version = rule_set.versions.get()
    table = services.table_create(club=club, user=organiser, name="Test table", rule_version_id=version.pk)
    for number, user in enumerate(players, start=1):
        services.seat_take(table_id=table.pk, user=user, number=number, version_id=version.pk)
    return table


def http_table(club: Club, rule_set: RuleSet, clients: Sequence[Client], *, name: str = "Main") -> Table:
    """A table opened, and seats 1, 2, ... taken in the order of ``clients``, through the pages: the first
    client opens it (/clubs/<id>/tables/new/); each takes a seat (/tables/<id>/sit/) accepting the version
    the sit page shows."""
    version = rule_set.versions.order_by("-number").first()
    assert version is not None
    response = clients[0].post(f"/clubs/{club.pk}/tables/new/", {"name": name, "rule_version": version.pk})
    assert response.status_code == 302, response.content.decode()
    table = Table.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    for number, client in enumerate(clients, start=1):
        page = client.get(f"/tables/{table.pk}/sit/").content.decode()
        shown = re.search(r'name="version" value="(\d+)"', page)
        assert shown is not None and int(shown.group(1)) == version.pk
        response = client.post(
            f"/tables/{table.pk}/sit/", {"number": number, "version": shown.group(1), "accept": "on"}
        )
        assert response.status_code == 302, response.content.decode()
    return table


def http_start(client: Client, table: Table) -> Hand:
    """Start play through the page's Start button; return the hand dealt."""
    response = client.post(f"/tables/{table.pk}/start/", follow=True)
    assert response.status_code == 200
    return current_hand(table)


def deal_order(seats: Sequence[int], button: int) -> list[int]:
    """Seat numbers in the order the engine deals: clockwise from the seat after the button."""
    ordered = sorted(seats)
    above = [s for s in ordered if s > button]
    start = ordered.index(above[0]) if above else 0
    return ordered[start:] + ordered[:start]


def fixed_deck(holes: Mapping[int, Sequence[str]], shared: Sequence[str], *, button: int) -> list[str]:
    """A 52-card deck that deals ``holes`` (seat -> cards) and then ``shared`` (board or piles in order)."""
    order = deal_order(list(holes), button)
    per = len(next(iter(holes.values())))
    deck: list[str] = []
    for k in range(per * len(order)):
        deck.append(Card.parse(holes[order[k % len(order)]][k // len(order)]).code)
    deck += [Card.parse(c).code for c in shared]
    used = set(deck)
    assert len(used) == len(deck), "a card is given twice"
    deck += [c for c in FULL_DECK if c not in used]
    return deck


def labels(codes: Sequence[str]) -> list[str]:
    return [Card.parse(c).label for c in codes]


def card_labels_in(html: str) -> set[str]:
    """Every card label rendered on a page (aria-label of a .card span), leaving out the last hand's
    showdown (public once that hand is over, and from another deck)."""
    html = re.sub(r'<section class="previous".*?</section>', "", html, flags=re.S)
    return set(re.findall(r'class="card suit-[cdhs][^"]*" role="img" aria-label="([a-z ]+)[",]', html))


_ATTRIBUTE = re.compile(r'\s[\w:-]+\s*=\s*(?:"([^"]*)"|\'([^\']*)\')')
_CARD_TEXT = re.compile(r'<span class="card[^"]*"[^>]*>([^<]*)</span>')
_QUOTED = re.compile(r'["\']([2-9TJQKA][cdhs])["\']')


def hidden_cards_in(html: str, codes: Sequence[str]) -> set[str]:
    """Which of the cards ``codes`` the raw HTML gives away anywhere, in any form, leaving out the last
    hand's showdown: a card's pretty form ("A♠", "10♦") anywhere; its code ("As", "Td") as a whole token
    of an attribute value (data-*, value, aria-*...), as a quoted string (JSON in a script), or as the
    text of a card element. Codes are matched as whole tokens, so words like "As" in a sentence are not."""
    html = re.sub(r'<section class="previous".*?</section>', "", html, flags=re.S)
    tokens: set[str] = set()
    for double, single in _ATTRIBUTE.findall(html):
        tokens.update(re.split(r"[^0-9A-Za-z]+", double or single))
    tokens.update(t.strip() for t in _CARD_TEXT.findall(html))
    tokens.update(_QUOTED.findall(html))
    found = set()
    for code in codes:
        card = Card.parse(code)
        if card.code in tokens or card.pretty in html or card.pretty in tokens:
            found.add(card.code)
    return found


def cards_in_view(view: engine.HandView) -> set[str]:
    """Every card an engine view shows its viewer (``engine.view``): the board as turned, their own cards,
    the hands shown. What a page drawn from that view may hold; every other card must stay out of it."""
    cards = [*view.board_cards, *(view.my_cards or ())]
    for seat in view.seats:
        cards += seat.cards or ()
    return {Card.parse(c).code for c in cards if c}


def current_hand(table: Table) -> Hand:
    hand = table.hands.filter(finished_at__isnull=True).first()
    assert hand is not None
    return hand


def post_action(client: Client, hand: Hand, action: str, *, version: int | None = None) -> str:
    """Post one action through the page's form; return the page it redirects to, with its messages."""
    response = client.post(
        f"/tables/{hand.table_id}/act/",
        {"hand": hand.pk, "version": hand.version if version is None else version, "action": action},
        follow=True,
    )
    assert response.status_code == 200
    return response.content.decode()


def proof_in(html: str) -> dict[str, Any]:
    """The shuffle proof a hand page carries for its script (the same JSON as its export)."""
    found = re.search(r'<script id="hand-proof" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the hand page carries no proof"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@dataclass
class Race:
    """What became of calls made at the same moment: the labels of those that went through, the
    refusals (DomainError messages) and anything else raised."""

    went_through: list[Any] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)


def race(calls: Sequence[tuple[Any, Callable[[], object]]]) -> Race:
    """Run each (label, call) in its own thread, all released at once by a barrier, each thread on its own
    database connection (closed at its end); waits for every one."""
    barrier = threading.Barrier(len(calls))
    lock = threading.Lock()
    out = Race()

    def run(label: Any, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            call()
            with lock:
                out.went_through.append(label)
        except DomainError as exc:
            with lock:
                out.refused.append(str(exc))
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            with lock:
                out.errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=call) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def turn_notice(hand_id: int, seat: int, since: int) -> bool:
    """The "your turn" notice of the turn ``seat`` began at version ``since``, sent as the hand's alarm sends
    it when due (notices/services/turns.py); True when it went out, False when that turn no longer waits or
    it was sent before."""
    from notices.models import TurnNotice
    from notices.services.turns import turn_notice_send

    return turn_notice_send(hand_id=hand_id, seat=seat, since=since, kind=TurnNotice.Kind.TURN)


def turn_reminder(hand_id: int, seat: int, since: int) -> bool:
    """The reminder before that turn's clock runs out, sent as the hand's alarm sends it when due."""
    from notices.models import TurnNotice
    from notices.services.turns import turn_notice_send

    return turn_notice_send(hand_id=hand_id, seat=seat, since=since, kind=TurnNotice.Kind.REMINDER)


def books_history(
    club_id: int, accounts: list[Account], pot: Account, table: Table, at: datetime, entries: int
) -> None:
    """``entries`` bets of each account into ``pot`` (at ``table``), stamped ``at``: written through the books'
    triggers like any other, in one transaction (an entry and its postings commit together)."""
    with transaction.atomic():
        made = JournalEntry.objects.bulk_create(
            [
                JournalEntry(club_id=club_id, kind=EntryKind.BET, created_at=at, table=table, game="piranha")
                for _ in range(entries * len(accounts))
            ]
        )
        postings = []
        for entry, account in zip(made, accounts * entries, strict=True):
            postings += [Posting(entry=entry, account=account, amount=-5), Posting(entry=entry, account=pot, amount=5)]
        Posting.objects.bulk_create(postings)


def analyse_as_autovacuum(*tables: str) -> None:
    """ANALYZE ``tables`` (none named: every table) as the owner role, as autovacuum keeps their statistics in a
    running site, so that the planner's estimates describe the rows there are now. Until then they describe
    whatever an earlier test in this worker left when autovacuum last looked (rows since emptied by its flush). The
    application role the tests run as may not (PostgreSQL 16 skips the table with a warning), and the owner's
    session sees committed rows only: a test calling this commits its own (``transaction=True``)."""
    from tests.dbbackend.base import owner_connect  # (the backend's module: loaded with the settings)

    with owner_connect(connection.settings_dict) as conn:
        conn.execute("ANALYZE " + ", ".join(connection.ops.quote_name(table) for table in tables))


def three_players_started(setup: ClubSetup, rules: engine.Rules) -> tuple[Table, dict[int, User]]:
    """A table of the club's three members playing ``rules``, its first hand dealt; and its players by id."""
    a, b, c = setup.members
    table = make_table(setup.club, setup.organiser, rules, players=[a, b, c])
    services.table_start(table_id=table.pk, user=a)
    return table, {u.pk: u for u in (a, b, c)}


def act_at_random(table_id: int, players: Mapping[int, User], rng: random.Random, *, stay: float = 0.8) -> bool:
    """One random legal action in the table's current hand, staying in with odds ``stay``; False once the game is
    over."""
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    assert hand is not None
    if hand.is_finished:
        return False
    state = engine.state_from_json(hand.state)
    seat = rng.choice(list(engine.to_act(state)))
    legal = list(engine.legal_actions(state, seat))
    staying = [a for a in legal if a.type not in ("fold", "out")]
    action = rng.choice(staying if staying and rng.random() < stay else legal)
    services.hand_act(hand_id=hand.pk, user=players[int(hand.players[str(seat)])], action=action, version=hand.version)
    return True
