"""ledger_simulate plays both games through the engine; ledger_verify recomputes the books."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from games.demo.simulate import simulation_run
from games.models import Hand
from ledger.models import Account, JournalEntry, Posting

from .helpers import assert_books_consistent, tamper_as_owner

pytestmark = pytest.mark.django_db


def test_simulated_hands_of_both_games_explain_every_balance_line_by_line(club_setup):
    call_command("ledger_simulate", club=club_setup.club.pk, hands=8, seed=7)
    games = set(JournalEntry.objects.filter(club=club_setup.club).values_list("game", flat=True))
    assert games == {"piranha", "piles"}
    assert Hand.objects.filter(table__club=club_setup.club, finished_at__isnull=False).count() == 8
    assert_books_consistent()
    for account in Account.objects.filter(club=club_setup.club, kind=Account.Kind.MEMBER):
        running = 0
        for posting in Posting.objects.filter(account=account).order_by("seq"):
            running += posting.amount
            assert posting.balance_after == running
            assert posting.entry.hand_id is not None and posting.entry.memo
        assert running == account.balance
    call_command("ledger_verify")


def test_simulate_refuses_an_unknown_club(db):
    with pytest.raises(CommandError, match="No club"):
        call_command("ledger_simulate", club=999_999, hands=1)


def test_ledger_verify_names_a_balance_that_drifted(transactional_db, club_setup, capsys):
    simulation_run(club=club_setup.club, players=club_setup.everyone, hands=2, seed=1)
    call_command("ledger_verify")
    account = Account.objects.filter(club=club_setup.club, kind=Account.Kind.MEMBER).first()
    # Only the owner switching the guard off can do this: exactly what verify is for.
    tamper_as_owner("ledger_account", "UPDATE ledger_account SET balance = balance + 7 WHERE id = %s", (account.pk,))
    with pytest.raises(CommandError, match="1 problem"):
        call_command("ledger_verify")
    assert f"Account #{account.pk}" in capsys.readouterr().err


def test_ledger_verify_names_an_entry_that_does_not_balance(transactional_db, club_setup, capsys):
    simulation_run(club=club_setup.club, players=club_setup.everyone, hands=1, seed=2)
    posting = Posting.objects.first()
    tamper_as_owner("ledger_posting", "UPDATE ledger_posting SET amount = amount + 1 WHERE id = %s", (posting.pk,))
    with pytest.raises(CommandError):
        call_command("ledger_verify")
    err = capsys.readouterr().err
    assert f"Entry #{posting.entry_id}" in err and "not 0" in err
    assert f"Account #{posting.account_id}" in err


def test_the_demo_club_after_simulated_play(db, client_for, capsys):
    """At the demo club: statements explain every balance, settle-up says who pays whom, verify passes."""
    import re

    from django.urls import reverse

    from accounts.models import Club, User

    call_command("seed_demo")
    club = Club.objects.get(name="Demo club")
    call_command("ledger_simulate", club=club.pk, hands=12, seed=11)
    olive = User.objects.get(username="olive")
    for member in User.objects.filter(memberships__club=club):
        account = Account.objects.filter(club=club, user=member).first()
        if account is None:
            continue
        body = (
            client_for(member)
            .get(
                reverse("ledger:statement", args=[club.pk, member.pk]),
            )
            .content.decode()
        )
        # Every line's balance is the one below it plus its amount, down to zero.
        cells = re.findall(
            r'<td class="num [a-z]+">([+\-]?[\d,]+\.\d\d)</td>\s*<td class="num">([\-\d,]+\.\d\d)</td>', body
        )
        lines = [(int(a.replace(",", "").replace(".", "")), int(b.replace(",", "").replace(".", ""))) for a, b in cells]
        assert len(lines) == min(account.last_seq, 50)
        assert lines[0][1] == account.balance
        for (amount, after), (_, below) in zip(lines, lines[1:], strict=False):
            assert after == below + amount
        if account.last_seq <= 50:  # the whole statement is on the page: the oldest line starts from zero
            assert lines[-1][1] == lines[-1][0]
    settle = client_for(olive).get(reverse("ledger:settle", args=[club.pk])).content.decode()
    assert " pays " in settle
    call_command("ledger_verify")
    assert "the books balance" in capsys.readouterr().out


def test_ledger_verify_names_a_table_whose_carried_pot_the_books_do_not_hold(club_setup, capsys):
    simulation_run(club=club_setup.club, players=club_setup.everyone, hands=2, seed=3)
    call_command("ledger_verify")
    table = Hand.objects.filter(table__club=club_setup.club).latest("pk").table
    table.carry_pot += 50  # the next deal would carry in 50 cents nobody paid
    table.save(update_fields=["carry_pot"])
    with pytest.raises(CommandError, match="1 problem"):
        call_command("ledger_verify")
    assert f"Table #{table.pk}: carries" in capsys.readouterr().err
