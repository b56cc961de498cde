"""The cut (docs/design.md "Engine contract"): decks committed ahead, cuts from the seated members, and a deal
that is the committed deck permuted by the root and every cut received; the proof checks through it."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import verify
from games import services
from games.models import DealCut, DeckAhead, Hand
from games.services.cuts import CUTS_PER_MEMBER, CutRefused, cut_take
from games.services.decks import DealWaitsForCut
from games.tasks import deal_after_cut_wait
from tests.games.helpers import make_table, post_action, proof_in, race

VERIFY = Path(verify.__file__)  # runs on its own, with the standard library alone
ROOTS = st.binary(min_size=32, max_size=32).map(bytes.hex)
CUTS = st.lists(st.binary(min_size=16, max_size=16).map(bytes.hex), max_size=12)


# --- the public shuffle ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(ROOTS, CUTS)
def test_the_cut_is_a_bijection_and_both_implementations_agree(root, cuts) -> None:
    order = engine.cut_order(root, cuts)
    assert sorted(order) == list(range(52))
    assert list(order) == verify.cut_order(root, cuts)


def test_every_cut_and_its_place_change_the_deal() -> None:
    root, a, b = secrets.token_hex(32), secrets.token_hex(16), secrets.token_hex(16)
    orders = {engine.cut_order(root, cuts) for cuts in ([], [a], [b], [a, b], [b, a])}
    assert len(orders) == 5
    assert engine.cut_order(root, [a]) != engine.cut_order(secrets.token_hex(32), [a])


def test_a_cut_out_of_its_form_is_refused_by_both() -> None:
    root = secrets.token_hex(32)
    for cuts in (["ab"], ["G" * 32], [secrets.token_hex(16).upper()]):
        with pytest.raises(engine.EngineError):
            engine.cut_order(root, cuts)
        with pytest.raises(verify.ProofError):
            verify.cut_order(root, cuts)


# --- the table's decks and cuts ----------------------------------------------------------------------


@pytest.fixture
def table(club_setup):
    a, b, _c = club_setup.members
    return make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b])


@pytest.mark.django_db
def test_a_table_commits_its_first_decks_before_anyone_can_cut(table) -> None:
    decks = list(DeckAhead.objects.filter(table=table).order_by("number"))
    assert [d.number for d in decks] == [1, 2]
    for d in decks:
        assert d.root == engine.merkle_root(d.hand_id, d.deck, d.salts) and d.dealt_at is None


@pytest.mark.django_db
def test_the_deal_uses_every_cut_received_and_verifies(table, club_setup, client_for, tmp_path) -> None:
    a, b, _ = club_setup.members
    ahead = DeckAhead.objects.get(table=table, number=1)
    cuts = [cut_take(table_id=table.pk, user=u, number=1, value=secrets.token_hex(16)).cut for u in (a, b, a)]
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand.pk == ahead.hand_id and hand.scheme == engine.SCHEME_CUT and hand.commitment == ahead.root
    assert [c["cut"] for c in hand.cuts] == cuts and [c["by"] for c in hand.cuts] == [a.pk, b.pk, a.pk]
    state = engine.state_from_json(hand.state)
    assert list(state.deck) == [ahead.deck[p] for p in engine.cut_order(ahead.root, cuts)]
    # The cuts closed at the deal; the next deals' roots are published already.
    with pytest.raises(CutRefused, match="not coming"):
        cut_take(table_id=table.pk, user=b, number=1, value=secrets.token_hex(16))
    assert set(DeckAhead.objects.filter(table=table, dealt_at__isnull=True).values_list("number", flat=True)) == {2, 3}
    for who in (a, b):
        post_action(client_for(who), hand, "in")
        hand.refresh_from_db()
    assert hand.is_finished
    html = client_for(a).get(f"/hands/{hand.pk}/").content.decode()
    proof = proof_in(html)
    assert [c["cut"] for c in proof["cuts"]] == cuts and proof["cuts"][1]["by"] == b.shown_name
    assert verify.check_export(proof) == [] and len(proof["openings"]) >= 9
    assert "dealt without a cut" not in html and b.shown_name in html
    deal_step = client_for(b).get(f"/hands/{hand.pk}/replay.json").json()["steps"][0]["html"]
    assert "The sealed deck was cut by" in deal_step and b.shown_name in deal_step
    # The standalone checker, run on its own as a member would, says the deal went through the cuts.
    proof_file = tmp_path / "hand.json"
    proof_file.write_text(json.dumps(proof))
    run = subprocess.run([sys.executable, str(VERIFY), str(proof_file)], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "dealt through 3 cut(s)" in run.stdout, run.stdout + run.stderr
    mine = client_for(a).get("/account/data/download.json").json()["cuts"]  # a member's own data: their cuts
    assert [(c["deal"], c["cut"]) for c in mine] == [(1, cuts[0]), (1, cuts[2])]
    # A card claimed at another dealt place fails, though its leaf still matches the root.
    moved = dict(proof, openings=[dict(proof["openings"][0], dealt=(proof["openings"][0]["dealt"] + 1) % 52)])
    assert verify.check_export(moved) != []


@pytest.mark.django_db
def test_a_hand_nobody_cut_says_so(table, club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    hand = services.table_start(table_id=table.pk, user=a)
    assert hand.cuts == [] and hand.scheme == engine.SCHEME_CUT
    for who in (a, b):
        post_action(client_for(who), hand, "in")
        hand.refresh_from_db()
    html = client_for(a).get(f"/hands/{hand.pk}/").content.decode()
    assert "This hand was dealt without a cut" in html
    assert "Dealt without a cut" in client_for(b).get(f"/hands/{hand.pk}/replay.json").json()["steps"][0]["html"]
    assert verify.check_export(proof_in(html)) == []


@pytest.mark.django_db
def test_only_seated_members_cut_only_coming_deals_a_few_times_each(table, club_setup) -> None:
    a, _b, c = club_setup.members
    with pytest.raises(CutRefused, match="seated"):
        cut_take(table_id=table.pk, user=c, number=1, value=secrets.token_hex(16))
    with pytest.raises(CutRefused, match="seated"):
        cut_take(table_id=table.pk, user=club_setup.outsider, number=1, value=secrets.token_hex(16))
    for bad in ("0" * 31, "0" * 33, "Z" * 32, 12, None, "A" * 32, "0" * 10_000):
        with pytest.raises(CutRefused, match="128"):
            cut_take(table_id=table.pk, user=a, number=1, value=bad)
    for number in (0, 3, 10**12, True, "1", None):
        with pytest.raises(CutRefused):
            cut_take(table_id=table.pk, user=a, number=number, value=secrets.token_hex(16))
    for _ in range(CUTS_PER_MEMBER):
        cut_take(table_id=table.pk, user=a, number=2, value=secrets.token_hex(16))
    with pytest.raises(CutRefused, match="already"):
        cut_take(table_id=table.pk, user=a, number=2, value=secrets.token_hex(16))
    assert DealCut.objects.filter(user=a).count() == CUTS_PER_MEMBER


@pytest.mark.django_db
def test_postgres_keeps_a_published_deck_and_its_closed_cuts(table, club_setup) -> None:
    a = club_setup.members[0]
    ahead = DeckAhead.objects.get(table=table, number=1)
    swapped = [ahead.deck[1], ahead.deck[0], *ahead.deck[2:]]
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckAhead.objects.filter(pk=ahead.pk).update(deck=swapped)
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckAhead.objects.filter(pk=ahead.pk).update(number=7)
    cut_take(table_id=table.pk, user=a, number=1, value=secrets.token_hex(16))
    with pytest.raises(IntegrityError), transaction.atomic():
        DealCut.objects.filter(deck=ahead).update(value="0" * 32)
    hand = services.table_start(table_id=table.pk, user=a)
    with pytest.raises(IntegrityError), transaction.atomic():
        DealCut.objects.create(deck=ahead, user=a, value=secrets.token_hex(16))
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.filter(pk=hand.pk).update(cuts=[])


def test_a_deck_changed_after_its_root_fails_the_proof() -> None:
    hand_id, deck, salts = 77, list(engine.shuffled_deck()), [secrets.token_hex(16) for _ in range(52)]
    root = engine.merkle_root(hand_id, deck, salts)
    cuts = [secrets.token_hex(16)]
    order = engine.cut_order(root, cuts)
    changed = [deck[1], deck[0], *deck[2:]]  # the site swaps two cards after publishing the root
    for committed, expect_ok in ((deck, True), (changed, False)):
        openings = [
            {**o.to_dict(), "dealt": list(order).index(o.position)}
            for o in engine.openings(hand_id, committed, salts, [0, 1, 5])
        ]
        problems = verify.check_export(
            {
                "scheme": verify.SCHEME_CUT,
                "hand_id": hand_id,
                "root": root,
                "cuts": [{"cut": c, "by": "A", "at": ""} for c in cuts],
                "openings": openings,
            }
        )
        assert (problems == []) is expect_ok


@pytest.mark.django_db
def test_the_plain_form_cuts_without_javascript(table, club_setup, client_for) -> None:
    a = club_setup.members[0]
    response = client_for(a).post(f"/tables/{table.pk}/cut/", {"deal": "1", "cut": "the cat sat on the mat"})
    assert response.status_code == 302
    cut = DealCut.objects.get(user=a)
    assert cut.deck.number == 1 and engine.is_cut_value(cut.value)
    listed = client_for(a).get(f"/tables/{table.pk}/cut/").json()
    assert [d["deal"] for d in listed["deals"]] == [1, 2] and "deck" not in str(listed)
    page = client_for(a).get(f"/tables/{table.pk}/").content.decode()
    assert DeckAhead.objects.get(table=table, number=2).root in page and "you cut it" in page


# --- house rule: a deal waits for a cut ------------------------------------------------------------------


@pytest.fixture
def cut_table(club_setup):
    a, b, _c = club_setup.members
    rules = engine.PiranhaRules(ante=25, cut_required=True, turn_seconds=600)
    return make_table(club_setup.club, club_setup.organiser, rules, players=[a, b])


@pytest.mark.django_db
def test_a_required_cut_makes_the_deal_wait_and_a_cut_deals_it(
    cut_table, club_setup, client_for, django_capture_on_commit_callbacks
) -> None:
    a, b, _ = club_setup.members
    with pytest.raises(DealWaitsForCut, match="require a cut before each deal"):
        services.table_start(table_id=cut_table.pk, user=a)
    assert not Hand.objects.filter(table=cut_table).exists()
    ahead = DeckAhead.objects.get(table=cut_table, number=1)
    assert ahead.wait_until is not None and ahead.dealt_at is None
    page = client_for(a).get(f"/tables/{cut_table.pk}/").content.decode()
    assert "waits for a cut (house rule)" in page
    with django_capture_on_commit_callbacks(execute=True):
        receipt = cut_take(table_id=cut_table.pk, user=b, number=1, value=secrets.token_hex(16))
    hand = Hand.objects.get(table=cut_table, number=1)
    assert [c["cut"] for c in hand.cuts] == [receipt.cut] and hand.pk == ahead.hand_id


@pytest.mark.django_db
def test_a_required_cut_waits_one_clock_then_deals_without_one(cut_table, club_setup) -> None:
    a = club_setup.members[0]
    with pytest.raises(DealWaitsForCut):
        services.table_start(table_id=cut_table.pk, user=a)
    assert deal_after_cut_wait(cut_table.pk, 1) is False  # its clock has not run out: still waiting
    DeckAhead.objects.filter(table=cut_table, number=1).update(wait_until=timezone.now() - timedelta(seconds=1))
    assert deal_after_cut_wait(cut_table.pk, 1) is True
    assert deal_after_cut_wait(cut_table.pk, 1) is False  # twice: the second changes nothing
    hand = Hand.objects.get(table=cut_table)
    assert hand.cuts == [] and hand.scheme == engine.SCHEME_CUT


def test_the_house_rule_is_stored_only_when_agreed() -> None:
    assert "cut_required" not in engine.PiranhaRules().to_dict()
    assert engine.PilesRules(cut_required=True).to_dict()["cut_required"] is True
    assert engine.rules_from_dict(engine.PilesRules(cut_required=True).to_dict()).cut_required is True
    assert engine.PiranhaRules(cut_required="yes").validate() == ["Requiring a cut must be yes or no"]  # type: ignore[arg-type]


@pytest.mark.django_db(transaction=True)
def test_cuts_racing_the_deal_are_either_in_it_or_refused(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    calls: list[tuple[object, Any]] = [("deal", partial(services.table_start, table_id=table.pk, user=a))]
    calls += [
        ((u.pk, n), partial(cut_take, table_id=table.pk, user=u, number=1, value=secrets.token_hex(16)))
        for u in (a, b, c)
        for n in range(3)
    ]
    done = race(calls)
    assert done.errors == [] and "deal" in done.went_through
    assert all("not coming" in r for r in done.refused)
    hand = Hand.objects.get(table=table, number=1)
    recorded = list(
        DealCut.objects.filter(deck__table=table, deck__number=1).order_by("pk").values_list("value", flat=True)
    )
    assert [c["cut"] for c in hand.cuts] == recorded  # every cut received before the deal, and no other
    assert len(recorded) == len(done.went_through) - 1
