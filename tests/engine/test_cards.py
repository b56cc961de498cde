"""Cards, the CSPRNG deck and the deck commitment (docs/design.md "Engine contract")."""

from __future__ import annotations

import hashlib

import pytest

from engine import (
    Card,
    CardError,
    deck_commitment,
    format_cards,
    new_salt,
    parse_cards,
    shuffled_deck,
    verify_commitment,
)
from engine.cards import FULL_DECK


def test_parse_accepts_codes_symbols_and_ten_written_as_10():
    assert parse_cards("7c 7\u2666 10h Ks Td") == [
        Card(7, "c"),
        Card(7, "d"),
        Card(10, "h"),
        Card(13, "s"),
        Card(10, "d"),
    ]


def test_parse_is_case_insensitive_and_accepts_commas():
    assert parse_cards("aS, kH,qd") == [Card(14, "s"), Card(13, "h"), Card(12, "d")]


@pytest.mark.parametrize("text", ["1c", "7x", "Kk", "77", "10", "Tc Tc"])
def test_parse_refuses_what_is_not_a_card_list(text):
    with pytest.raises(CardError):
        parse_cards(text)


def test_card_has_code_pretty_and_label():
    seven = parse_cards("7c")[0]
    assert (seven.rank, seven.suit) == (7, "c")
    assert str(seven) == "7c"
    assert seven.pretty == "7\u2663"
    assert seven.label == "seven of clubs"
    assert parse_cards("10h")[0].pretty == "10\u2665"


def test_format_cards_round_trips_parse():
    text = "7c 7d Kh Td As"
    assert format_cards(parse_cards(text)) == text
    assert format_cards(parse_cards(text), pretty=True) == "7\u2663 7\u2666 K\u2665 10\u2666 A\u2660"


def test_piranha_1_1_and_piles_1_1_the_deck_is_a_standard_52_with_no_wild_cards():
    """piranha.txt 1.1, piles.txt 1.1: a standard 52-card deck, no wild cards."""
    deck = shuffled_deck()
    assert len(deck) == 52
    assert sorted(deck) == sorted(FULL_DECK)
    assert len({(c.rank, c.suit) for c in parse_cards(" ".join(deck))}) == 52


def test_shuffled_deck_comes_from_the_os_csprng_and_varies():
    decks = {shuffled_deck() for _ in range(5)}
    assert len(decks) == 5


def test_commitment_is_sha256_of_the_documented_string():
    deck = list(FULL_DECK)
    salt = "abc123"
    expected = hashlib.sha256((" ".join(deck) + ":" + salt).encode()).hexdigest()
    assert deck_commitment(deck, salt) == expected
    assert verify_commitment(deck, salt, expected)
    assert verify_commitment(deck, salt, expected.upper())


def test_commitment_detects_a_changed_order_or_salt():
    deck = list(shuffled_deck())
    salt = new_salt()
    commitment = deck_commitment(deck, salt)
    swapped = [deck[1], deck[0], *deck[2:]]
    assert not verify_commitment(swapped, salt, commitment)
    assert not verify_commitment(deck, salt + "0", commitment)


def test_new_salt_is_fresh_hex():
    a, b = new_salt(), new_salt()
    assert a != b
    assert len(a) == 32
    int(a, 16)
