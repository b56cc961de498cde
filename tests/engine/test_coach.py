"""The coach (engine/players/advice.py) says the same thing twice: its deals are seeded by the position the
member sees (never by a card they cannot see), it deals enough that positions whose choices differ by more
than its error keep their advice whatever the seed, a pig's chance counts only outright wins (unless the
house rule counts a tie), chances are whole percentages only where the deals support them, and money is
said in the club's currency. Plain pytest, no database; bench/players.py --coach measures the stability."""

from __future__ import annotations

import random
from dataclasses import replace

from engine import PilesRules, PiranhaRules, replay, to_act, view
from engine.players import advise
from engine.players.advice import COACH_SAMPLES, position_seed, share_words
from engine.players.estimate import piles_estimate
from tests.engine.test_players import (
    EXAMPLE_HOLE,
    EXAMPLE_PILES,
    KQ_BOARD,
    NOTHING,
    _hidden_shuffled,
    piles_at_stage_nine,
    piranha_deal,
    to_declaration,
)


def _same_view_other_cards(state, seat, seed):
    """The same hand with every card ``seat`` cannot see dealt again: the view is the same."""
    rng = random.Random(seed)
    other = replay(
        state.rules,
        seats=state.seats,
        button=state.button,
        deck=_hidden_shuffled(state, seat, rng),
        carry_pot=state.carry_pot,
        hand_number=state.hand_number,
        log=[],
    )
    assert other.hole[0] == state.hole[0] and other.hole != state.hole
    return other


def test_a_reload_gives_the_same_advice_and_the_seed_reads_only_the_members_view() -> None:
    state = piranha_deal("9c 9d 5h 4s", KQ_BOARD, players=5)
    seen = view(state, 1)
    first = advise(seen, state.rules)
    assert advise(seen, state.rules) == first
    other = _same_view_other_cards(state, 1, seed=4)
    assert view(other, 1) == seen
    assert position_seed(view(other, 1)) == position_seed(seen)  # the others' cards change nothing
    assert advise(view(other, 1), other.rules) == first
    assert position_seed(view(state, 2)) != position_seed(seen)  # another seat, another position


def test_a_clear_declaration_keeps_its_advice_whatever_the_seed() -> None:
    """Enough deals: where the best declaration beats the next by more than the estimate's error, fresh
    randomness (not only the position's seed) gives the same advice every time."""
    state = to_declaration(piles_at_stage_nine(EXAMPLE_HOLE, EXAMPLE_PILES, players=3))
    seen = view(state, 1)
    advice = advise(seen, state.rules)
    assert not advice.close
    assert {advise(seen, state.rules, random.Random(seed)).action for seed in range(5)} == {advice.action}


def test_a_declaration_closer_than_the_error_is_called_close_and_still_said_the_same_on_a_reload() -> None:
    """Six at the table: pig (it must win the low outright, about 58%) and high are worth about the same."""
    state = to_declaration(piles_at_stage_nine(EXAMPLE_HOLE, EXAMPLE_PILES, players=6))
    seen = view(state, 1)
    advice = advise(seen, state.rules)
    assert advice.close and ", a close call:" in advice.sentence
    assert all(advise(seen, state.rules) == advice for _ in range(3))


def test_the_pig_counts_only_outright_wins_unless_the_house_rule_counts_a_tie() -> None:
    state = to_declaration(piles_at_stage_nine(EXAMPLE_HOLE, EXAMPLE_PILES, players=6))
    seen = view(state, 1)
    outright = piles_estimate(seen, COACH_SAMPLES["piles"], random.Random(9))
    assert outright.low_outright <= outright.low and outright.high_outright <= outright.high
    assert outright.pig_wins <= min(outright.high_outright, outright.low_outright)
    assert outright.declare_pig == outright.pig_wins  # a pig wins the whole pot or nothing
    ties = replace(seen, rules=PilesRules(pig_tie_counts=True))
    counted = piles_estimate(ties, COACH_SAMPLES["piles"], random.Random(9))
    assert counted.pig_wins >= outright.pig_wins
    assert "a pig, which must win both halves outright, wins" in advise(seen, state.rules).sentence
    assert "a pig, which must win or tie both halves, wins" in advise(ties, ties.rules).sentence
    advice = advise(seen, state.rules)
    assert advice.low == outright.low_outright or abs(advice.low - outright.low) > 0  # the outright chance
    assert f"the low half {share_words(advice.low, COACH_SAMPLES['piles'])}" in advice.sentence


def test_a_percentage_only_where_the_deals_support_one() -> None:
    assert share_words(0.58, 5000) == "about 58%"
    assert share_words(0.58, 33) == "between 40% and 75%"
    assert share_words(0.9, 10) == "between 70% and 100%"
    assert share_words(1.0, 600) == "about 100%"
    assert share_words(0.0, 600) == "about 0%"


def test_an_early_stage_says_ranges_not_a_whole_percentage_from_few_deals() -> None:
    state = piles_at_stage_nine(NOTHING, EXAMPLE_PILES, players=4)
    advice = advise(view(state, to_act(state)[0]), state.rules)
    assert advice.sentence.count("%") >= 2


def test_money_is_said_in_the_clubs_currency() -> None:
    state = piranha_deal("9c 9d 5h 4s", KQ_BOARD, rules=PiranhaRules(match_cap=500), players=5)
    sentence = advise(view(state, 1), state.rules, money=lambda cents: f"€{cents / 100:.2f}").sentence
    assert "€" in sentence and "worth" in sentence or "cost" in sentence
