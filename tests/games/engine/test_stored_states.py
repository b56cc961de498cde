"""Finished hands stored before the outcome became read-only still load and print the same JSON."""

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from games import engine

# One finished Piranha hand and one finished Piles hand (showdowns), as the database holds them.
STORED = [json.loads(line) for line in (Path(__file__).parent / "stored_states.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_a_stored_hand_loads_and_prints_the_same_json(stored: dict) -> None:
    state = engine.state_from_json(stored)
    assert engine.is_over(state)
    assert json.dumps(engine.state_to_json(state), sort_keys=True) == json.dumps(stored, sort_keys=True)
    assert engine.state_from_json(engine.state_to_json(state)) == state


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_the_outcome_of_a_stored_hand_cannot_be_changed(stored: dict) -> None:
    state = engine.state_from_json(stored)
    outcome = state.outcome
    assert isinstance(outcome, MappingProxyType)
    with pytest.raises(TypeError):
        outcome["pot"] = 0  # type: ignore[index]
    assert isinstance(outcome["winners"], tuple)
    assert all(isinstance(h, MappingProxyType) and isinstance(h["hole"], tuple) for h in outcome["hands"])


@pytest.mark.parametrize("stored", STORED, ids=lambda s: s["game"])
def test_the_result_is_a_plain_copy_of_the_stored_outcome(stored: dict) -> None:
    result = engine.result(engine.state_from_json(stored))
    assert result == {"game": stored["game"], **stored["outcome"]}
    result["winners"].append(99)
    assert engine.result(engine.state_from_json(stored))["winners"] == stored["outcome"]["winners"]
