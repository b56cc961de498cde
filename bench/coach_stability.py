"""The coach's stability: does a reload keep its advice? (``bench/players.py --coach``)

A fixed set of positions: seeded hands at tables of two to six, played by the engine's players until the
decision in front of seat 1 (Piles: declarations and betting rounds; Piranha: drops), POSITIONS in all. Each
position is asked RELOADS times three ways:

- the coach as the site asks it (``advise(view, rules)``: its deals seeded by the position);
- the coach's deals with fresh randomness each time (what its number of deals alone gives);
- the strong computer player's own estimate with fresh randomness (what the coach said before: 33 deals at
  a Piles declaration of six, 600 in Piranha).

For each way it prints the share of reloads whose advice is the position's most frequent one, over all
positions and over the clear ones (those whose best choice beats the next by more than the coach's own 95%
error: the target there is 100%), and the coach's CPU time per question.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import HandView, PilesRules, PiranhaRules, Rules, apply, is_over, new_hand, to_act, view  # noqa: E402
from engine.actions import Action  # noqa: E402
from engine.cards import FULL_DECK  # noqa: E402
from engine.players import BEGINNER, STRONG, advise  # noqa: E402
from engine.players import piles as piles_players  # noqa: E402
from engine.players import piranha as piranha_players  # noqa: E402

POSITIONS = {"piles-declare": 10, "piles-betting": 6, "piranha-drop": 8}
RELOADS = 8


def _positions(seed: int) -> list[tuple[str, HandView, Rules]]:
    """Seeded hands stopped at a decision of seat 1 of each kind."""
    rng = random.Random(seed)
    found: list[tuple[str, HandView, Rules]] = []
    wanted = dict(POSITIONS)
    while any(wanted.values()):
        kind = next(k for k, n in wanted.items() if n)
        rules: Rules = PiranhaRules(match_cap=500) if kind.startswith("piranha") else PilesRules()
        players = rng.randint(3, 6)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        state, _ = new_hand(rules, seats=list(range(1, players + 1)), button=players, deck=deck)
        stop_stage = rng.randint(3, 9)
        while not is_over(state):
            seat = to_act(state)[0]
            seen = view(state, seat)
            if seat == 1:
                here = (
                    "piranha-drop"
                    if seen.phase == "drop"
                    else "piles-declare"
                    if seen.phase == "declare"
                    else "piles-betting"
                    if seen.stage == stop_stage
                    else None
                )
                if here is not None and wanted.get(here):
                    found.append((here, seen, rules))
                    wanted[here] -= 1
                    break
            player = BEGINNER if seen.phase == "betting" else STRONG
            state, _ = apply(state, seat, player.act(seen, rules, rng))
    return found


def _strong_own(seen: HandView, rules: Rules, rng: random.Random) -> Action:
    if seen.game == "piranha":
        return piranha_players.decide(seen, piranha_players.SAMPLES["strong"], rng)[0]
    return piles_players.decide(seen, piles_players.BUDGET["strong"], rng)[0]


def main(seed: int) -> bool:
    positions = _positions(seed)
    rng = random.Random(seed + 1)
    ways: dict[str, Callable[[HandView, Rules], Action]] = {
        "coach, seeded by the position": lambda v, r: advise(v, r).action,
        "coach's deals, fresh randomness": lambda v, r: advise(v, r, random.Random(rng.getrandbits(64))).action,
        "strong player's own estimate": lambda v, r: _strong_own(v, r, random.Random(rng.getrandbits(64))),
    }
    clear = []
    cpu = []
    for _kind, seen, rules in positions:
        start = time.process_time()
        advice = advise(seen, rules)
        cpu.append(time.process_time() - start)
        clear.append(not advice.close)
    print(
        f"\n## The coach's stability: {len(positions)} positions ({', '.join(f'{n} {k}' for k, n in POSITIONS.items())}), "
        f"{RELOADS} reloads each, seed {seed}"
    )
    print(f"clear positions (best choice ahead by more than the coach's 95% error): {sum(clear)} of {len(clear)}\n")
    print(f"{'way':<36}{'all positions':>16}{'clear positions':>18}")
    ok = True
    for name, ask in ways.items():
        kept_all = kept_clear = total_clear = 0
        for (_kind, seen, rules), is_clear in zip(positions, clear, strict=True):
            answers = [ask(seen, rules) for _ in range(RELOADS)]
            usual = Counter(answers).most_common(1)[0][1]
            kept_all += usual
            if is_clear:
                kept_clear += usual
                total_clear += RELOADS
        share_all = kept_all / (RELOADS * len(positions))
        share_clear = kept_clear / total_clear if total_clear else 1.0
        print(f"{name:<36}{share_all:>15.1%}{share_clear:>17.1%}")
        if name == "coach, seeded by the position":  # the coach as the site asks it
            ok = ok and share_clear == 1.0
    print(f"\ncoach CPU per question: mean {sum(cpu) / len(cpu) * 1000:.0f} ms, max {max(cpu) * 1000:.0f} ms")
    print("\nthe coach keeps its advice on every clear position" if ok else "\nFAILED: see above")
    return ok
