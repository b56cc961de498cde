"""Finished hands as the database holds them still load and print the same JSON; what loads is
typed and frozen all the way down (no list, dict or set anywhere in a state)."""

import dataclasses
import json
from pathlib import Path

import pytest

import engine
from tests.engine.helpers import mutable_parts

# One finished Piranha hand and one finished Piles hand (showdowns), as the database holds them.
STORED = [json.loads(line) for line in (Path(__file__).parent / "stored_states.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_a_stored_hand_loads_and_prints_the_same_json(stored: dict) -> None:
    state = engine.state_from_json(stored)
    assert engine.is_over(state)
    assert json.dumps(engine.state_to_json(state), sort_keys=True) == json.dumps(stored, sort_keys=True)
    assert engine.state_from_json(engine.state_to_json(state)) == state


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_every_stored_event_loads_as_its_kind_and_prints_the_same_json(stored: dict) -> None:
    for data in stored["events"]:
        event = engine.event_from_json(data)
        assert event.kind == data["kind"]
        assert engine.event_to_json(event) == data


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_a_stored_hand_is_frozen_all_the_way_down(stored: dict) -> None:
    state = engine.state_from_json(stored)
    assert mutable_parts(state) == []
    outcome = state.outcome
    assert isinstance(outcome, (engine.PiranhaOutcome, engine.PilesOutcome))
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.pot = 0  # type: ignore[misc]
    assert isinstance(outcome.winners, tuple)
    assert all(isinstance(h.hole, tuple) for h in outcome.hands)


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_the_result_prints_as_the_stored_outcome_with_its_game(stored: dict) -> None:
    result = engine.result(engine.state_from_json(stored))
    assert result is not None and result.game == stored["game"]
    printed = engine.result_to_json(result)
    assert printed == {"game": stored["game"], **stored["outcome"]}
    printed["winners"].append(99)  # a printed copy is the caller's own
    assert engine.result_to_json(result)["winners"] == stored["outcome"]["winners"]


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "ante", "seat": 1},  # an ante moves an amount
        {"kind": "ante", "seat": 1, "amount": 25, "note": "x"},  # nothing unknown is dropped
        {"kind": "award", "seat": 1, "amount": "25", "share": "pot"},
        {"kind": "shuffle"},
        {"seat": 1},
        ["ante"],
    ],
)
def test_an_event_that_is_not_one_is_refused(bad: object) -> None:
    with pytest.raises(engine.EngineError):
        engine.event_from_json(bad)


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_a_stored_state_with_an_unknown_outcome_field_is_refused(stored: dict) -> None:
    with pytest.raises(engine.EngineError):
        engine.state_from_json({**stored, "outcome": {**stored["outcome"], "bonus": 1}})


# Views of hands as the socket JSON showed them before the views were typed: a Piranha hand with its
# betting round and a Piles hand with blinds, each after the deal, during the betting, with the sealed
# decision half made, and over; for a spectator and for seat 2.
VIEWS = [json.loads(line) for line in (Path(__file__).parent / "stored_views.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("stored", VIEWS, ids=lambda s: f"{s['view']['game']}-{s['view']['phase']}-{s['seat']}")
def test_the_json_view_prints_exactly_as_before(stored: dict) -> None:
    view = engine.view(engine.state_from_json(stored["state"]), stored["seat"])
    assert json.dumps(engine.view_to_json(view)) == json.dumps(stored["view"])  # same keys, same order
