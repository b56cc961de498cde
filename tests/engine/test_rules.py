"""House-rule agreements: defaults, validation and JSON (docs/design.md "Rulings")."""

from __future__ import annotations

import json

import pytest

from engine import EngineError, PilesRules, PiranhaRules, rules_from_dict


def test_defaults_are_design_md_defaults():
    piranha = PiranhaRules()
    assert (
        piranha.ante,
        piranha.ante_each_hand,
        piranha.match_cap,
        piranha.betting_round,
        piranha.nobody_in,
        piranha.turn_seconds,
    ) == (25, True, None, False, "carry", 86400)
    piles = PilesRules()
    assert (
        piles.forced,
        piles.ante,
        piles.stage_bets,
        piles.max_raises,
        piles.low_variant,
        piles.pig_tie_counts,
        piles.declare_timeout,
    ) == ("ante", 25, (25, 25, 25, 25, 25, 25, 50, 50, 100), 3, False, False, "fold")
    assert piranha.validate() == [] and piles.validate() == []


@pytest.mark.parametrize(
    "rules",
    [
        PiranhaRules(),
        PiranhaRules(match_cap=200, betting_round=True, nobody_in="split", ante_each_hand=False),
        PilesRules(),
        PilesRules(
            forced="blinds",
            small_blind=5,
            big_blind=10,
            low_variant=True,
            pig_tie_counts=True,
            declare_timeout="high",
            stage_bets=(1,) * 9,
        ),
    ],
)
def test_rules_round_trip_json(rules):
    data = json.loads(json.dumps(rules.to_dict()))
    assert type(rules).from_dict(data) == rules
    assert rules_from_dict(data) == rules


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (PiranhaRules(ante=-1), "ante"),
        (PiranhaRules(match_cap=0), "match cap"),
        (PiranhaRules(nobody_in="keep"), "nobody stays in"),
        (PiranhaRules(turn_seconds=5), "turn clock"),
        (PilesRules(forced="straddle"), "Forced bets"),
        (PilesRules(small_blind=50, big_blind=25), "small blind"),
        (PilesRules(stage_bets=(25,) * 8), "nine bet sizes"),
        (PilesRules(max_raises=-1), "raise cap"),
        (PilesRules(declare_timeout="low"), "times out"),
        (PilesRules(turn_seconds=8 * 24 * 3600), "turn clock"),
    ],
)
def test_validate_gives_member_readable_errors(rules, message):
    errors = rules.validate()
    assert any(message in e for e in errors), errors


def test_unknown_rule_names_are_refused():
    with pytest.raises(EngineError, match="Unknown rule"):
        PilesRules.from_dict({"wild_cards": True})
    with pytest.raises(EngineError, match="name their game"):
        rules_from_dict({"ante": 25})


def test_a_states_rules_print_as_their_own_dict_every_time():
    """The printed rules are worked out once per rules and copied: rules equal in value but not in type
    (1 and True, a list and a tuple) print as their own, and changing one printed state changes no other."""
    from engine import new_hand, state_to_json

    deck = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"]
    state, _ = new_hand(PilesRules(), seats=[1, 2, 3], button=1, deck=deck)
    printed = state_to_json(state)
    assert printed["rules"] == PilesRules().to_dict()
    printed["rules"]["stage_bets"].append(1)
    printed["rules"]["ante"] = 0
    assert state_to_json(state)["rules"] == PilesRules().to_dict()
    one, true = PiranhaRules(betting_round=True), PiranhaRules(betting_round=1)  # type: ignore[arg-type]
    assert one == true
    from engine.plain import to_plain

    assert json.dumps(to_plain(one)) != json.dumps(to_plain(true))
    assert to_plain(true) == true.to_dict() and to_plain(one) == one.to_dict()
    listed = PilesRules(stage_bets=[25] * 9)  # type: ignore[arg-type]
    assert to_plain(PilesRules(stage_bets=(25,) * 9))["stage_bets"] == to_plain(listed)["stage_bets"] == [25] * 9
