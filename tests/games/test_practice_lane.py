"""Practice in its own lane, and a game that goes on: a practice table's deals reach its page in order and never
wait for a cut; it appears in no ledger form, filter, ruling or account; only its member closes it, and a member
has at most a few open; a finished game is dealt again at the same table, practice or not."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import reverse

import engine
from games.errors import TableRefused
from games.models import Hand, Seat, Table
from games.selectors.states import hand_state
from games.services import practice
from games.services.closing import table_close
from games.services.hands import hand_act
from games.services.seating import table_new_game
from games.services.voiding import hand_void
from ledger.models import Account, Ruling
from tests.games.helpers import fixed_deck, make_rule_set, make_table
from tests.games.practice_helpers import play_out
from tests.games.test_piranha_game import BOARD_1, HOLES_1


def _open(setup, game: str = "piranha", computers: int = 2, **kw) -> Table:
    return practice.practice_open(
        club=setup.club, user=setup.members[0], game=game, computers=computers, strength="beginner", **kw
    )


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["piranha", "piles"])
def test_each_practice_deal_takes_a_newer_hand_id_so_its_page_shows_it(club_setup, game) -> None:
    # The page orders frames by hand id (docs/live.md): a later deal with a smaller id was never shown.
    table = _open(club_setup, game)
    while table.hands.count() < 4:
        play_out(table, club_setup.members[0])
        table.refresh_from_db()
        if table.status == Table.Status.FINISHED:  # one alone stayed in: the game goes on at the same table
            table_new_game(table_id=table.pk, user=club_setup.members[0])
    ids = list(Hand.objects.filter(table=table).order_by("number").values_list("pk", flat=True))
    assert ids == sorted(ids), ids


@pytest.mark.django_db
def test_a_practice_table_under_house_rules_that_require_a_cut_never_waits_for_one(club_setup) -> None:
    rules = make_rule_set(club_setup.club, club_setup.organiser, engine.PilesRules(cut_required=True))
    table = _open(club_setup, "piles", rule_version_id=rules.versions.get().pk)  # dealt at once, no browser needed
    for number in (2, 3):
        play_out(table, club_setup.members[0])
        table.refresh_from_db()
        assert table.status == Table.Status.RUNNING
        assert Hand.objects.filter(table=table, finished_at__isnull=True).get().number == number


@pytest.mark.django_db
def test_a_member_has_at_most_five_practice_tables_open_and_a_closed_one_frees_a_place(club_setup) -> None:
    tables = [_open(club_setup) for _ in range(practice.MAX_OPEN)]
    with pytest.raises(practice.PracticeRefused, match="5 practice tables open"):
        _open(club_setup)
    assert Table.objects.filter(practice=True).count() == 5
    _open(club_setup.__class__(**{**club_setup.__dict__, "members": club_setup.members[1:]}))  # another's own cap
    practice.practice_close(table_id=tables[0].pk, user=club_setup.members[0])
    _open(club_setup)


@pytest.mark.django_db
def test_only_its_member_closes_a_practice_table_with_no_ruling_account_or_pot(club_setup, client_for) -> None:
    table = _open(club_setup, "piles")
    organiser, member = club_setup.organiser, club_setup.members[0]
    with pytest.raises(TableRefused, match="only they can close it"):
        table_close(table_id=table.pk, user=organiser, reason="Tidying up")
    assert client_for(organiser).post(f"/tables/{table.pk}/close/", {"reason": "Tidying up"}).status_code == 403
    with pytest.raises(practice.PracticeRefused):
        practice.practice_close(table_id=table.pk, user=organiser)
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING

    page = client_for(member).get(f"/tables/{table.pk}/").content.decode()
    assert 'id="close-practice"' in page
    response = client_for(member).post(f"/tables/{table.pk}/close/")
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club_setup.club.pk}/tables/"
    table.refresh_from_db()
    hand = Hand.objects.get(table=table)
    assert table.status == Table.Status.FINISHED and hand.is_finished
    assert not Seat.objects.filter(table=table, left_at__isnull=True).exists()
    assert not Ruling.objects.filter(table=table).exists() and not Account.objects.filter(table=table).exists()
    page = client_for(member).get(f"/tables/{table.pk}/").content.decode()
    assert "This practice table is closed." in page, page
    assert "of 9" not in page and "· bet" not in page  # the stopped hand's stage and bet are over
    assert 'id="coming-deals"' not in page and 'id="close-practice"' not in page
    practice.practice_close(table_id=table.pk, user=member)  # again: nothing changes


def _finished_practice_hand(setup) -> Hand:
    table = _open(setup, "piles", computers=1)
    play_out(table, setup.members[0])
    return Hand.objects.get(table=table, number=1)


@pytest.mark.django_db
def test_practice_hands_and_tables_are_in_no_ledger_form_filter_or_ruling(club_setup, client_for) -> None:
    hand = _finished_practice_hand(club_setup)
    money = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=club_setup.members[:2])
    organiser = client_for(club_setup.organiser)
    club = club_setup.club.pk
    rulings = organiser.get(reverse("ledger:rulings", args=[club])).content.decode()
    assert "Practice Piles, hand" not in rulings
    refused = organiser.post(reverse("games:ruling_void", args=[club]), {"hand": hand.pk, "reason": "Misdeal"})
    assert refused.status_code == 400 and "Choose a finished hand of this club." in refused.content.decode()
    with pytest.raises(TableRefused, match="practice hand"):
        hand_void(hand=hand, reason="Misdeal", ruled_by=club_setup.organiser)
    assert not Ruling.objects.exists()
    pages = {"journal": [club], "statement": [club, club_setup.organiser.pk]}
    for page, args in pages.items():
        html = organiser.get(reverse(f"ledger:{page}", args=args)).content.decode()
        options = re.findall(r'<option value="(\d+)"', html.split('name="table"', 1)[1].split("</select>", 1)[0])
        assert str(money.pk) in options and str(hand.table_id) not in options, page
        filtered = organiser.get(reverse(f"ledger:{page}", args=args), {"table": hand.table_id}).content.decode()
        assert "Choose a table of this club." in filtered, page


def _game_over(table: Table, member) -> Hand:
    """Play the practice Piranha hand so that the member alone stays in: the game is over (piranha.txt 3.3)."""
    hand = Hand.objects.get(table=table, finished_at__isnull=True)
    users = {int(s.number): s.user for s in Seat.objects.filter(table=table).select_related("user")}
    for _ in range(50):
        hand.refresh_from_db()
        if hand.is_finished:
            return hand
        state = hand_state(hand)
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        want = "in" if users[seat] == member else "out"
        action = next((a for a in legal if a.type == want), None) or next(
            a for a in legal if a.type in ("check", "call", "fold")
        )
        hand_act(hand_id=hand.pk, table_id=table.pk, user=users[seat], action=action, version=hand.version)
    raise AssertionError("the hand did not end")


@pytest.mark.django_db
def test_a_finished_practice_game_is_dealt_again_at_the_same_table(club_setup, client_for) -> None:
    member = club_setup.members[0]
    table = _open(club_setup, "piranha", computers=2)
    _game_over(table, member)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    client = client_for(member)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "Deal a new game" in page
    assert f'data-table-id="{table.pk}"' in client.get(reverse("games:my_tables")).content.decode()
    response = client.post(f"/tables/{table.pk}/new-game/", follow=True)
    assert "A new game is dealt" in response.content.decode()
    table.refresh_from_db()
    hand = Hand.objects.get(table=table, finished_at__isnull=True)
    assert table.status == Table.Status.RUNNING and hand.number == 2 and len(hand.players) == 3
    assert hand_state(hand).hand_number == 1


@pytest.mark.django_db
def test_the_lobby_gives_each_form_field_its_own_id_and_label(club_setup, client_for) -> None:
    make_rule_set(club_setup.club, club_setup.organiser)
    html = client_for(club_setup.members[0]).get(reverse("games:lobby", args=[club_setup.club.pk])).content.decode()
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [i for i, n in ids.items() if n > 1] == []
    for select in re.findall(r'<select[^>]*\sid="([^"]+)"', html):
        assert f'for="{select}"' in html, select


@pytest.mark.django_db
def test_the_my_tables_block_brings_the_headers_count_with_it(club_setup, client_for) -> None:
    table = _open(club_setup, "piranha", computers=2)  # the drop: the member is awaited
    assert Hand.objects.get(table=table).players
    block = client_for(club_setup.members[0]).get(reverse("games:my_tables_block")).content.decode()
    assert re.search(r'<a href="/tables/mine/" class="my-tables-link" id="my-tables-link"[^>]*>My tables', block)
    assert 'id="tables-waiting">1 waiting<' in block
    home = client_for(club_setup.members[0]).get("/").content.decode()
    assert 'id="tables-waiting">1 waiting<' in home


@pytest.mark.django_db
def test_a_closed_money_table_shows_no_coming_deal_nor_the_stopped_hands_stage(club_setup, client_for) -> None:
    players = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=players)
    from games.services.tables import table_start

    table_start(table_id=table.pk, user=players[0])
    before = client_for(players[0]).get(f"/tables/{table.pk}/").content.decode()
    assert "stage 1 of 9" in before and 'id="coming-deals"' in before
    table_close(table_id=table.pk, user=club_setup.organiser, reason="Home time")
    page = client_for(players[0]).get(f"/tables/{table.pk}/").content.decode()
    assert "Home time" in page
    assert "of 9" not in page and "· bet" not in page and 'id="coming-deals"' not in page


@pytest.mark.django_db
def test_a_finished_hand_says_what_each_seat_paid_into_it_and_the_match_apart(club_setup, client_for) -> None:
    # piranha.txt: each loser pays the match into the next hand's pot; it was counted in "paid" of this hand.
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b, c])
    from games.services.seating import seat_sit_out
    from games.services.tables import table_start

    # Dealt so that the two who stay in do not tie: a split pot has no loser to pay the match.
    table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    seat_sit_out(table_id=table.pk, user=b)
    seat_sit_out(table_id=table.pk, user=c)  # no next hand: the finished one stays on the table
    hand = Hand.objects.get(table=table)
    users = {int(s): u for s, u in hand.players.items()}
    for seat, choice in ((1, "in"), (2, "in"), (3, "out")):
        hand.refresh_from_db()
        user = next(u for u in (a, b, c) if u.pk == users[seat])
        hand_act(hand_id=hand.pk, table_id=table.pk, user=user, action={"type": choice}, version=hand.version)
    hand.refresh_from_db()
    outcome = engine.result(hand_state(hand))
    assert hand.is_finished and outcome is not None and outcome.match_payments
    loser = outcome.match_payments[0]
    page = client_for(a).get(f"/tables/{table.pk}/").content.decode()
    rows = re.findall(r'<li class="seat[^"]*" data-seat="(\d)">(.*?)</li>', page, re.S)
    paid = {
        int(n): re.sub(r"\s+", " ", re.search(r'<span class="chips"[^>]*>(.*?)</span>', row, re.S)[1])
        for n, row in rows
    }
    assert paid[loser.seat] == f"paid $0.25 · matched ${loser.amount / 100:.2f} into the next pot", paid
    assert [paid[s] for s in sorted(paid) if s != loser.seat] == ["paid $0.25", "paid $0.25"], paid
