"""Why each hand ended as it did, in words, from the engine's own results (games/presentation/reasons.py)."""

from __future__ import annotations

from engine import PilesRules, PiranhaRules, result
from engine.actions import FOLD, HIGH, IN, LOW, OUT, PIG
from games.presentation.reasons import outcome_reasons
from tests.engine import test_piles as piles
from tests.engine import test_piranha as piranha

NAMES = {1: "Ann", 2: "Ben", 3: "Cy"}


def piranha_reasons(choices, rules=None, **kw):
    state, _ = piranha.deal(rules, **kw)
    state = piranha.drop(state, choices)
    return outcome_reasons(
        result(state), names=NAMES, currency="USD", rules={"match_cap": getattr(rules, "match_cap", None)}
    )


def piles_reasons(choices, **kw):
    state, _ = piles.deal(**kw)
    state = piles.declare(piles.check_down(state), choices)
    return outcome_reasons(result(state), names=NAMES, currency="USD")


def test_piranha_uncontested():
    assert piranha_reasons({1: OUT, 2: IN, 3: OUT}) == [
        "Only Ben stayed in: Ben takes the pot of $0.75 uncontested, and the game is over."
    ]


def test_piranha_best_high_and_the_loser_matches_the_pot():
    assert piranha_reasons({1: IN, 2: IN, 3: OUT}) == [
        "Ann has the best high hand (kings full of sevens) and takes the pot of $0.75.",
        "Ben lost and matches the pot: $0.75 into the next hand's pot.",
    ]


def test_piranha_a_loser_pays_the_cap():
    reasons = piranha_reasons({1: IN, 2: IN, 3: IN}, PiranhaRules(match_cap=50))
    assert reasons[1:] == [
        "Ben lost and pays the cap of $0.50 (the pot was $0.75) into the next hand's pot.",
        "Cy lost and pays the cap of $0.50 (the pot was $0.75) into the next hand's pot.",
    ]


def test_piranha_nobody_in_so_the_pot_carries():
    assert piranha_reasons({1: OUT, 2: OUT, 3: OUT}, carry_pot=30) == [
        "Nobody stayed in, so the pot carries: $1.05 goes into a fresh deal."
    ]


def test_piranha_nobody_in_split_option():
    assert piranha_reasons({1: OUT, 2: OUT, 3: OUT}, PiranhaRules(nobody_in="split")) == [
        "Nobody stayed in: the game ends and the pot is split among those dealt in."
    ]


def test_piles_pig_won_both_halves():
    assert piles_reasons({1: PIG, 2: HIGH, 3: LOW}) == ["Ann declared pig and won both halves: $0.75."]


def test_piles_best_high_and_best_low_split():
    assert piles_reasons({1: FOLD, 2: HIGH, 3: LOW}) == [
        "Ben has the best high (kings full of jacks): $0.38.",
        "Cy has the best low (8-6-4-2-A low): $0.37.",
    ]


def test_piles_pig_failed_so_it_is_out():
    reasons = piles_reasons({1: PIG, 2: HIGH, 3: LOW}, hole=(piles.EXAMPLE_HOLE, piles.KINGS_FULL, piles.SAME_LOW))
    assert reasons[0] == "Ann declared pig but did not win both halves outright, so Ann is out of the pot."
    assert reasons[1:] == [
        "Ben has the best high (kings full of jacks): $0.38.",
        "Cy has the best low (5-4-3-2-A low): $0.37.",
    ]


def test_piles_pig_with_no_qualifying_low_fails():
    """The ruling: with no low qualifying nobody wins the low half, so a pig cannot win both and fails."""
    reasons = piles_reasons(
        {1: PIG, 2: HIGH, 3: FOLD},
        piles="3d 8s Jh Jc  Ac 4s 9h Qd  Ts Jd Qc Ks 9d",
        hole=(piles.EXAMPLE_HOLE, piles.KINGS_FULL, "2h 3c 4d 5s 6c"),
    )
    assert reasons[0] == (
        "Ann declared pig, but no low qualified, so nobody wins the low half: the pig fails and Ann is out of the pot."
    )
    assert reasons[-1] == "No low qualified, so the high takes the whole pot."


def test_piles_no_low_qualified_so_the_high_takes_all():
    reasons = piles_reasons({1: HIGH, 2: FOLD, 3: LOW}, hole=(piles.EXAMPLE_HOLE, piles.KINGS_FULL, "Kh Qc Td Ts 9d"))
    assert reasons == [
        "Ann has the best high (four jacks): $0.75.",
        "No low qualified, so the high takes the whole pot.",
    ]


def test_piles_nobody_wins_a_half_so_the_pot_carries():
    reasons = piles_reasons({1: FOLD, 2: FOLD, 3: LOW}, hole=(piles.EXAMPLE_HOLE, piles.KINGS_FULL, "Kh Qc Td Ts 9d"))
    assert reasons == ["Nobody won a half, so the pot carries: $0.75 goes into the next hand."]


def test_piles_uncontested():
    state, _ = piles.deal()
    while True:
        from engine import apply, to_act

        seat = to_act(state)[0]
        state, _ = apply(state, seat, FOLD)
        if state.phase == "over":
            break
    winner = result(state).winners[0]
    assert outcome_reasons(result(state), names=NAMES, currency="USD") == [
        f"Everyone else folded: {NAMES[winner]} takes the pot of $0.75 uncontested."
    ]


def test_no_result_no_reasons():
    assert outcome_reasons(None, names=NAMES, currency="USD") == []
    assert PilesRules().game == "piles"


def test_piles_nobody_declared_high_so_the_low_takes_all():
    reasons = piles_reasons({1: FOLD, 2: FOLD, 3: LOW})
    assert reasons[-1] == "Nobody declared high, so the low takes the whole pot."


def test_piles_low_variant_high_claimed_but_none_qualified():
    """piles.txt 5.1: two declare high without a full house; the low takes the whole pot, and the
    reason says the high half was claimed (not that nobody claimed it)."""
    state, _ = piles.deal(PilesRules(low_variant=True), hole=("Kd 9s 7s 6s Tc", "Qh Th 8d 6h 4d", "2h 3c 6d Td 9d"))
    state = piles.declare(piles.check_down(state), {1: HIGH, 2: HIGH, 3: LOW})
    assert outcome_reasons(result(state), names=NAMES, currency="USD") == [
        "Cy has the best low (4-3-2-2-A low): $0.75.",
        "Ann and Ben declared high, but neither has a full house or better, which a high needs in the low variant, "
        "so the low takes the whole pot.",
    ]


def test_piles_low_variant_nothing_qualifies_so_the_pot_carries_and_says_why():
    """Nobody declares low and neither high claimant has a full house (piles.txt 5.1): the pot carries, and
    the reasons say why the high half went to nobody."""
    state, _ = piles.deal(PilesRules(low_variant=True), hole=("Kd 9s 7s 6s Tc", "Qh Th 8d 6h 4d", "2h 3c 6d Td 9d"))
    state = piles.declare(piles.check_down(state), {1: HIGH, 2: HIGH, 3: FOLD})
    reasons = outcome_reasons(result(state), names=NAMES, currency="USD")
    assert reasons[0] == (
        "Ann and Ben declared high, but neither has a full house or better, which a high needs in the low variant."
    )
    assert reasons[1].startswith("Nobody won a half, so the pot carries")
