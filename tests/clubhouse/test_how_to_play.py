"""The how-to-play pages draw the rule documents' worked examples with real cards, and the engine,
reading back the cards drawn, makes the hands the documents say."""

from __future__ import annotations

import re

import pytest

import engine
from engine.cards import Card
from engine.evaluate import piles_best_high, piles_best_low, piranha_best
from tests.games.helpers import make_table

_LABEL_TO_CODE = {Card.parse(r + s).label: r + s for r in "23456789TJQKA" for s in "cdhs"}


def drawn(html: str, name: str) -> list[Card]:
    """The cards drawn in the block marked data-example=name, read from their labels."""
    match = re.search(rf'data-example="{name}">(.*?)</(?:div|span)>\s', html, flags=re.S)
    assert match, name
    labels = re.findall(r'class="card suit-[cdhs]" role="img" aria-label="([a-z ]+)"', match.group(1))
    return [Card.parse(_LABEL_TO_CODE[label]) for label in labels]


@pytest.mark.django_db
def test_piranha_kings_full_beat_sevens_full_made_with_three_hole_cards(club_setup, client_for) -> None:
    html = client_for(club_setup.members[0]).get(f"/clubs/{club_setup.club.pk}/how-to-play/piranha/").content.decode()
    board, a, b = drawn(html, "board"), drawn(html, "hole-A"), drawn(html, "hole-B")
    assert [c.code for c in board] == ["7c", "7d", "Kh", "2s", "9c"]  # piranha.txt Article 4, example
    value_a, value_b = piranha_best(a, board), piranha_best(b, board)
    assert value_a.name == "kings full of sevens" and value_b.name == "sevens full of threes"
    assert value_a > value_b
    assert sum(1 for c in value_b.cards if c in b) == 3  # three hole cards: not an Omaha hand
    # the best fives the page draws are the engine's
    assert drawn(html, "best-A") == list(value_a.cards) and drawn(html, "best-B") == list(value_b.cards)
    assert "kings full of sevens" in html and "with 3 of B" in html


@pytest.mark.django_db
def test_piles_four_jacks_high_and_the_wheel_low_from_one_holding(club_setup, client_for) -> None:
    html = client_for(club_setup.members[0]).get(f"/clubs/{club_setup.club.pk}/how-to-play/piles/").content.decode()
    hole, sq1, sq2, row = (drawn(html, n) for n in ("hole", "square1", "square2", "row"))
    assert len(hole) == 5 and len(sq1) == len(sq2) == 4 and len(row) == 5
    high, low = piles_best_high(hole, sq1, sq2, row), piles_best_low(hole, sq1, sq2, row)
    assert high is not None and high.name == "four jacks" and high.full_name == "four jacks with a nine"
    assert low is not None and low.name == "5-4-3-2-A low"
    assert drawn(html, "high") == list(high.cards) and drawn(html, "low") == list(low.cards)
    # the legal shape: two from the hand, two from one square, one from the row (piles.txt 2.3)
    for five in (high.cards, low.cards):
        assert sum(c in hole for c in five) == 2 and sum(c in row for c in five) == 1
        assert sorted([sum(c in sq1 for c in five), sum(c in sq2 for c in five)]) == [0, 2]


@pytest.mark.django_db
def test_the_house_rules_stand_beside_the_rules_and_every_table_links_its_game(club_setup, client_for) -> None:
    a, b = club_setup.members[:2]
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    client = client_for(a)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert f'href="/clubs/{club_setup.club.pk}/how-to-play/piles/"' in page
    rules = client.get(f"/clubs/{club_setup.club.pk}/how-to-play/piles/").content.decode()
    assert f"/clubs/{club_setup.club.pk}/rules/versions/{table.rule_version_id}/" in rules
    assert 'class="rules-words"' in rules
    other = client.get(f"/clubs/{club_setup.club.pk}/how-to-play/piranha/").content.decode()
    assert "No house rules for Piranha yet" in other


@pytest.mark.django_db
def test_piles_says_where_the_odd_cent_of_a_split_goes(club_setup, client_for) -> None:
    """docs/design.md: an odd cent between the halves goes to high; both the plain rules and the house rules say so."""
    make_table(club_setup.club, club_setup.organiser, engine.PilesRules())
    html = client_for(club_setup.members[0]).get(f"/clubs/{club_setup.club.pk}/how-to-play/piles/").content.decode()
    plain, house = html.split('id="house-heading"')
    assert "the odd cent goes to the high half" in plain
    assert "When high and low split the pot, an odd cent goes to the high half" in house
