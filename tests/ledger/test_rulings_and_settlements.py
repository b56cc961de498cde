"""Rulings (adjust, void) and settlements: what they post, and every bad input refused with the books unchanged."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Hand, Table
from games.services.voiding import hand_void
from ledger.models import ClubLedgerSettings, EntryKind, JournalEntry, Ruling, Settlement
from ledger.services import (
    LedgerError,
    balance_of,
    ledger_post_hand_events,
    ruling_adjust,
    settlement_confirm,
    settlement_record,
)
from tests.accounts.factories import ClubFactory, MembershipFactory

from .helpers import assert_books_consistent, assert_pots_match_tables, books_snapshot, make_hand, make_table

pytestmark = pytest.mark.django_db


def _played_hand(setup, finished=True):
    ann, ben, _ = setup.members
    table = make_table(setup.club, setup.organiser)
    hand = make_hand(table, [ann, ben], finished=finished)
    ledger_post_hand_events(
        hand=hand,
        seat_users={0: ann, 1: ben},
        created_by=None,
        events=[
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 1, "amount": 50},
        ],
    )
    return hand


def test_voiding_a_hand_reverses_each_entry_pointing_to_the_original(club_setup):
    ann, ben, _ = club_setup.members
    hand = _played_hand(club_setup)
    assert balance_of(club=club_setup.club, user=ben) == 25
    reversals = hand_void(hand=hand, reason="Misdeal: two cards face up", ruled_by=club_setup.organiser)
    originals = JournalEntry.objects.filter(hand=hand).exclude(kind=EntryKind.VOID)
    assert len(reversals) == originals.count() == 3
    assert {r.reverses_id for r in reversals} == set(originals.values_list("pk", flat=True))
    assert all(r.ruling.reason == "Misdeal: two cards face up" and r.kind == EntryKind.VOID for r in reversals)
    assert balance_of(club=club_setup.club, user=ann) == balance_of(club=club_setup.club, user=ben) == 0
    hand.refresh_from_db()
    assert hand.voided_at is not None
    assert JournalEntry.objects.filter(hand=hand).count() == 6  # nothing deleted
    assert_books_consistent()


def test_a_hand_is_voided_once_and_only_when_finished(club_setup):
    hand = _played_hand(club_setup)
    hand_void(hand=hand, reason="Misdeal", ruled_by=club_setup.organiser)
    before = books_snapshot()
    with pytest.raises(LedgerError, match="already been voided"):
        hand_void(hand=Hand.objects.get(pk=hand.pk), reason="Again", ruled_by=club_setup.organiser)
    running = _played_hand(club_setup, finished=False)
    before = books_snapshot()
    with pytest.raises(LedgerError, match="still being played"):
        hand_void(hand=running, reason="Misdeal", ruled_by=club_setup.organiser)
    assert books_snapshot() == before


def _carrying_hand(table, players, events, *, carry_in=0, finished=True, game_over=False):
    """A hand played as games/services/hands.py plays it: its chip events posted, then the
    table's carry_pot set to what it carries on (carry_in + paid in - awarded)."""
    hand = make_hand(table, players, finished=finished)
    Hand.objects.filter(pk=hand.pk).update(carry_in=carry_in)
    hand.refresh_from_db()
    ledger_post_hand_events(hand=hand, seat_users=dict(enumerate(players)), created_by=None, events=events)
    if finished:
        paid = sum(e["amount"] for e in events if e["kind"] != "award")
        won = sum(e["amount"] for e in events if e["kind"] == "award")
        table.carry_pot = carry_in + paid - won
        if game_over:
            table.status, table.finished_at = Table.Status.FINISHED, timezone.now()
        table.save()
    else:
        table.carry_pot = 0
        table.status = Table.Status.RUNNING
        table.save()
    return hand


def _two_hands(setup):
    """Hand 1: Ben wins 50 and Ann matches it into the next pot; hand 2 carries those 50 in."""
    ann, ben, _ = setup.members
    table = make_table(setup.club, setup.organiser)
    first = _carrying_hand(
        table,
        [ann, ben],
        [
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 1, "amount": 50},
            {"kind": "match_payment", "seat": 0, "amount": 50},
        ],
    )
    second = _carrying_hand(
        table,
        [ann, ben],
        [
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 0, "amount": 100},
        ],
        carry_in=50,
        game_over=True,
    )
    return table, first, second


def test_voiding_the_latest_hand_puts_its_carried_in_pot_back_for_the_next_hand(club_setup):
    """The reversal returns the 50 hand 2 carried in to the pot account: the table's
    carry_pot says so too, and the game hand 2 ended (one player in) goes on."""
    table, first, second = _two_hands(club_setup)
    assert_pots_match_tables()
    hand_void(hand=second, reason="Misdeal", ruled_by=club_setup.organiser)
    table.refresh_from_db()
    assert table.carry_pot == 50 and table.status == Table.Status.OPEN and table.finished_at is None
    assert_pots_match_tables()
    hand_void(hand=first, reason="Misdeal too", ruled_by=club_setup.organiser)  # now the latest
    table.refresh_from_db()
    assert table.carry_pot == 0
    assert_pots_match_tables()
    assert_books_consistent()


def test_voiding_a_hand_a_later_hand_built_on_is_refused_and_changes_nothing(club_setup):
    table, first, _second = _two_hands(club_setup)
    before = books_snapshot()
    # Hand 2 has finished: the message asks for no wait.
    with pytest.raises(
        LedgerError, match=r"its pot of 0\.50 carried into the hands after it\. Void hand 2 first, then"
    ):
        hand_void(hand=first, reason="Misdeal", ruled_by=club_setup.organiser)
    assert books_snapshot() == before
    table.refresh_from_db()
    assert table.carry_pot == 0 and table.status == Table.Status.FINISHED
    assert_pots_match_tables()


def test_a_hand_that_carried_nothing_on_can_be_voided_under_later_hands(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    first = _carrying_hand(
        table,
        [ann, ben],
        [
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 1, "amount": 50},
        ],
    )
    second = _carrying_hand(
        table, [ann, ben], [{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}]
    )  # carries 50
    _carrying_hand(table, [ann, ben], [{"kind": "ante", "seat": 0, "amount": 25}], carry_in=50, finished=False)
    hand_void(hand=first, reason="Misdeal", ruled_by=club_setup.organiser)  # the pot is untouched
    assert balance_of(club=club_setup.club, user=ben) == -25  # only hand 2's ante
    before = books_snapshot()
    with pytest.raises(LedgerError, match=r"Void hand 3 first \(once it has finished\), then"):
        hand_void(hand=second, reason="Misdeal", ruled_by=club_setup.organiser)
    assert books_snapshot() == before
    assert_books_consistent()


def test_a_void_that_changes_the_pot_waits_for_the_hand_being_played(club_setup):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    _carrying_hand(
        table, [ann, ben], [{"kind": "ante", "seat": 0, "amount": 25}, {"kind": "ante", "seat": 1, "amount": 25}]
    )  # carries 50
    second = _carrying_hand(
        table,
        [ann, ben],
        [
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 0, "amount": 100},
        ],
        carry_in=50,
    )  # carries nothing on
    _carrying_hand(table, [ann, ben], [{"kind": "ante", "seat": 0, "amount": 25}], finished=False)
    before = books_snapshot()
    with pytest.raises(LedgerError, match="once hand 3, being played now, has finished"):
        hand_void(hand=second, reason="Misdeal", ruled_by=club_setup.organiser)
    assert books_snapshot() == before


@pytest.mark.parametrize(
    "reason, ruler, message",
    [
        ("", "organiser", "needs a reason"),
        ("   ", "organiser", "needs a reason"),
        ("Misdeal", "member", "organisers"),
    ],
)
def test_a_void_without_reason_or_by_a_member_is_refused(club_setup, reason, ruler, message):
    hand = _played_hand(club_setup)
    before = books_snapshot()
    by = club_setup.organiser if ruler == "organiser" else club_setup.members[0]
    with pytest.raises(LedgerError, match=message):
        hand_void(hand=hand, reason=reason, ruled_by=by)
    assert books_snapshot() == before


def test_an_adjustment_moves_money_between_two_members_with_a_reason(club_setup):
    ann, ben, _ = club_setup.members
    ruling = ruling_adjust(
        club=club_setup.club,
        from_user=ann,
        to_user=ben,
        amount=1234,
        reason="Rob is right: Ben's pig won",
        ruled_by=club_setup.organiser,
    )
    assert balance_of(club=club_setup.club, user=ann) == -1234
    assert balance_of(club=club_setup.club, user=ben) == 1234
    assert ruling.entries.get().kind == EntryKind.ADJUSTMENT
    assert_books_consistent()


def test_settlement_by_the_payer_waits_for_the_receiver(club_setup):
    ann, ben, _ = club_setup.members
    s = settlement_record(
        club=club_setup.club,
        payer=ann,
        payee=ben,
        amount=500,
        paid_on=timezone.localdate(),
        note="cash at the bar",
        recorded_by=ann,
    )
    assert s.status == Settlement.Status.PENDING and balance_of(club=club_setup.club, user=ann) == 0
    with pytest.raises(LedgerError, match="who was paid"):
        settlement_confirm(club=club_setup.club, settlement_id=s.pk, user=ann)
    settlement_confirm(club=club_setup.club, settlement_id=s.pk, user=ben)
    assert balance_of(club=club_setup.club, user=ann) == 500
    assert balance_of(club=club_setup.club, user=ben) == -500
    with pytest.raises(LedgerError, match="already confirmed"):
        settlement_confirm(club=club_setup.club, settlement_id=s.pk, user=ben)
    assert JournalEntry.objects.filter(settlement=s).count() == 1
    assert_books_consistent()


def test_settlement_recorded_by_an_organiser_is_confirmed_at_once(club_setup):
    ann, ben, _ = club_setup.members
    s = settlement_record(
        club=club_setup.club,
        payer=ann,
        payee=ben,
        amount=700,
        paid_on=timezone.localdate(),
        note="",
        recorded_by=club_setup.organiser,
    )
    assert s.status == Settlement.Status.CONFIRMED
    assert balance_of(club=club_setup.club, user=ben) == -700


def _settle_post(client, setup, **data):
    ann, ben, _ = setup.members
    payload = {
        "payer": ann.pk,
        "payee": ben.pk,
        "amount": "5.00",
        "paid_on": timezone.localdate().isoformat(),
        "note": "cash",
    }
    payload.update(data)
    return client.post(reverse("ledger:settle", args=[setup.club.pk]), payload)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"amount": "0"}, "more than zero"),
        ({"amount": "-5"}, "more than zero"),
        ({"amount": "abc"}, "Enter a number"),
        ({"amount": "1.234"}, "to the cent"),
        ({"amount": "2000.01"}, "at most 1,000.00"),
        ({"payee": "self"}, "two different members"),
        ({"payee": "outsider"}, "Choose a member of this club"),
        ({"payer": "999999"}, "Choose a member of this club"),
        ({"paid_on": "tomorrow"}, "in the future"),
        ({"paid_on": "not-a-date"}, "Enter a valid date"),
    ],
)
def test_a_bad_settlement_is_refused_with_a_clear_message_and_the_books_unchanged(
    club_setup, client_for, change, message
):
    ann = club_setup.members[0]
    ClubLedgerSettings.objects.create(club=club_setup.club, settlement_max=2000_00)
    if change.get("payee") == "self":
        change["payee"] = ann.pk
    if change.get("payee") == "outsider":
        change["payee"] = club_setup.outsider.pk
    if change.get("paid_on") == "tomorrow":
        change["paid_on"] = (timezone.localdate() + dt.timedelta(days=1)).isoformat()
    if change.get("amount") == "2000.01":
        ClubLedgerSettings.objects.filter(club=club_setup.club).update(settlement_max=1000_00)
    before = books_snapshot()
    settlements = Settlement.objects.count()
    response = _settle_post(client_for(ann), club_setup, **change)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert books_snapshot() == before and Settlement.objects.count() == settlements


def test_a_member_cannot_record_a_payment_between_two_others(club_setup, client_for):
    _, ben, cat = club_setup.members
    before = books_snapshot()
    response = _settle_post(client_for(club_setup.members[0]), club_setup, payer=ben.pk, payee=cat.pk)
    assert response.status_code == 400 and "made or received" in response.content.decode()
    assert books_snapshot() == before


def test_a_settlement_of_another_club_cannot_be_confirmed_here(club_setup, client_for):
    other = ClubFactory()
    x, y = MembershipFactory(club=other).user, MembershipFactory(club=other).user
    s = settlement_record(
        club=other, payer=x, payee=y, amount=100, paid_on=timezone.localdate(), note="", recorded_by=x
    )
    before = books_snapshot()
    response = client_for(club_setup.organiser).post(
        reverse("ledger:settlement_confirm", args=[club_setup.club.pk, s.pk])
    )
    assert response.status_code == 400 and "No such settlement" in response.content.decode()
    assert books_snapshot() == before


def test_settlement_across_clubs_is_refused_by_the_service(club_setup):
    before = books_snapshot()
    with pytest.raises(LedgerError, match="member"):
        settlement_record(
            club=club_setup.club,
            payer=club_setup.members[0],
            payee=club_setup.outsider,
            amount=100,
            paid_on=timezone.localdate(),
            note="",
            recorded_by=club_setup.organiser,
        )
    assert books_snapshot() == before


@pytest.mark.parametrize(
    "change, message",
    [
        ({"reason": ""}, "needs a reason"),
        ({"reason": "   "}, "needs a reason"),
        ({"amount": "0"}, "more than zero"),
        ({"to_user": "same"}, "two different members"),
        ({"to_user": "outsider"}, "Choose a member of this club"),
        ({"from_user": "forged"}, "Choose a member of this club"),
    ],
)
def test_a_bad_adjustment_is_refused_and_the_books_unchanged(club_setup, client_for, change, message):
    ann, ben, _ = club_setup.members
    data = {"from_user": ann.pk, "to_user": ben.pk, "amount": "3.00", "reason": "Rob is right"}
    data.update(change)
    data["to_user"] = {"same": ann.pk, "outsider": club_setup.outsider.pk}.get(data["to_user"], data["to_user"])
    data["from_user"] = {"forged": 10**9}.get(data["from_user"], data["from_user"])
    before = books_snapshot()
    response = client_for(club_setup.organiser).post(reverse("ledger:ruling_adjust", args=[club_setup.club.pk]), data)
    assert response.status_code == 400 and message in response.content.decode()
    assert books_snapshot() == before and Ruling.objects.count() == 0


def test_voiding_a_hand_of_another_club_is_refused(club_setup, client_for):
    other = ClubFactory()
    org = MembershipFactory(club=other).user
    x, y = MembershipFactory(club=other).user, MembershipFactory(club=other).user
    foreign = make_hand(make_table(other, org), [x, y])
    before = books_snapshot()
    response = client_for(club_setup.organiser).post(
        reverse("games:ruling_void", args=[club_setup.club.pk]), {"hand": foreign.pk, "reason": "Misdeal"}
    )
    assert response.status_code == 400 and "Choose a finished hand of this club" in response.content.decode()
    assert books_snapshot() == before


def test_void_through_the_page_marks_every_statement_line_it_touches(club_setup, client_for):
    ann, ben, _ = club_setup.members
    hand = _played_hand(club_setup)
    response = client_for(club_setup.organiser).post(
        reverse("games:ruling_void", args=[club_setup.club.pk]), {"hand": hand.pk, "reason": "Deck was short a card"}
    )
    assert response.status_code == 302
    page = client_for(ben).get(reverse("ledger:statement", args=[club_setup.club.pk, ben.pk])).content.decode()
    assert page.count('class="badge ruling">Ruling</span> Hand voided: Deck was short a card') == 2  # reversals
    assert page.count(">Voided</span>") == 2  # both original lines are marked
    rulings = client_for(club_setup.organiser).get(reverse("ledger:rulings", args=[club_setup.club.pk]))
    assert "Deck was short a card" in rulings.content.decode()


def test_the_settle_page_says_what_the_payments_settle_when_money_sits_in_a_pot(club_setup, client_for):
    """Members' balances don't sum to zero while a pot holds money: the page doesn't claim the
    payments zero every balance; it says what stays in the pots and who stays down by it."""
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    hand = make_hand(table, [ann, ben])
    ledger_post_hand_events(
        hand=hand,
        seat_users={0: ann, 1: ben},
        created_by=None,
        events=[
            {"kind": "bet", "seat": 0, "amount": 50},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 1, "amount": 50},
        ],
    )  # 25 stays in the pot
    page = client_for(ben).get(reverse("ledger:settle", args=[club_setup.club.pk])).content.decode()
    assert "every balance to zero" not in page
    assert "1 payment settles what members owe each other." in page
    assert f"<strong>{ann.shown_name}</strong> pays <strong>{ben.shown_name}</strong> 0.25" in page
    assert "0.25 EUR sits in table pots until those games end" in page.replace(club_setup.club.currency, "EUR")
    assert f"after these payments, {ann.shown_name} is down 0.25" in page


def test_the_settlement_limit_is_shown_to_the_cent(club_setup, client_for):
    ClubLedgerSettings.objects.create(club=club_setup.club, settlement_max=2000_00)
    client = client_for(club_setup.organiser)
    html = client.get(reverse("ledger:settle", args=[club_setup.club.pk])).content.decode()
    assert 'name="settlement_max" value="2000.00"' in html
    ClubLedgerSettings.objects.filter(club=club_setup.club).update(settlement_max=12_345)
    html = client.get(reverse("ledger:settle", args=[club_setup.club.pk])).content.decode()
    assert 'name="settlement_max" value="123.45"' in html
