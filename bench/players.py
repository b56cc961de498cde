"""Computer players benchmark: each strength against the others and against a random player.

    .venv/bin/python bench/players.py                 # the default run (about eight minutes on one core)
    .venv/bin/python bench/players.py --hands 2000    # hands per game
    .venv/bin/python bench/players.py --seed 7

Plays whole hands with the engine alone (new_hand, view, apply, result; no Django) at tables of
four: the strong, the solid and the beginner player (engine/players) and the random one,
the button moving each hand. Each decision is the player's policy on its seat's view. A Piranha
game runs until one player alone stays in (the pot carries from hand to hand, piranha.txt 3.3,
4.3); a Piles game is one hand (more while the pot carries). Each deal is played in duplicate:
four games from the same seed (the same cards hand by hand), the players' order around the table
rotated so each sits in each seat once. Decks are shuffled from a seeded source, so a run can be
repeated.

Prints each player's net per hand (cents) with a 95% interval, and the strong player's margin
over the beginner and over the random player (the interval must not cross zero), from the deals
as independent samples (the net of a deal over its hands, a ratio estimate with its delta-method
standard error). Then the CPU time of one decision at each strength, mean and 95th percentile
(the strong player must stay under 50 ms). Not a timed test.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PilesRules, PiranhaRules, Rules, apply, is_over, new_hand, result, to_act, view  # noqa: E402
from engine.cards import FULL_DECK  # noqa: E402
from engine.players import PLAYERS, RANDOM, Player  # noqa: E402

SEED = 20261202
TABLE: tuple[Player, ...] = (*reversed(PLAYERS), RANDOM)  # strong, solid, beginner, random
#: Piranha with a 5.00 cap on what a loser pays: without one a pot multiplies by the losers each hand
GAMES: dict[str, Rules] = {
    "piranha": PiranhaRules(match_cap=500),
    "piles": PilesRules(),
}
# Piranha's edge of the strong player over the beginner is about 0.11 a hand (one sealed decision a hand against a
# sound rule of thumb): 4,000 hands left its interval about +-0.13 wide, which crossed zero on some seeds; 12,000
# narrow it to about +-0.08 (bench/RESULTS.md, "Computer players").
DEFAULT_HANDS = {"piranha": 12000, "piles": 1500}
LIMIT_MS = 50.0


@dataclass
class Tally:
    """Per player: the net and the hands of each deal (four games); the CPU time of each decision."""

    nets: dict[str, list[int]] = field(default_factory=dict)
    hands: list[int] = field(default_factory=list)
    cpu_ns: dict[str, list[int]] = field(default_factory=dict)


def shuffled(rng: random.Random) -> list[str]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


def play_game(rules: Rules, order: Sequence[Player], seed: int) -> tuple[dict[str, int], int, dict[str, list[int]]]:
    """One game with the players seated in ``order``: hands until the pot no longer carries
    (Piranha: until one player alone is in). The decks, the first button and the players' sources
    of randomness all come from ``seed``. Returns each player's net, the hands played and the CPU
    nanoseconds of each decision by strength."""
    rng = random.Random(seed)
    seats = list(range(1, len(order) + 1))
    at = dict(zip(seats, order, strict=True))
    rngs = {s: random.Random(rng.getrandbits(64)) for s in seats}
    net = {p.strength: 0 for p in order}
    cpu: dict[str, list[int]] = {p.strength: [] for p in order}
    carry, number, button = 0, 1, rng.choice(seats)
    while True:
        state, _ = new_hand(rules, seats=seats, button=button, deck=shuffled(rng), carry_pot=carry, hand_number=number)
        while not is_over(state):
            seat = to_act(state)[0]
            player = at[seat]
            seen = view(state, seat)
            start = time.process_time_ns()
            action = player.act(seen, rules, rngs[seat])
            cpu[player.strength].append(time.process_time_ns() - start)
            state, _ = apply(state, seat, action)
        outcome = result(state)
        assert outcome is not None
        paid_out = {p.seat: p.amount for p in outcome.payouts}
        for k, seat in enumerate(state.seats):
            net[at[seat].strength] += paid_out.get(seat, 0) - state.paid[k]
        carry = outcome.next_pot
        if outcome.game_over or not carry:
            break
        number += 1
        button = seats[(seats.index(button) + 1) % len(seats)]
    assert sum(net.values()) == 0, "chips are conserved over a game"
    return net, number, cpu


def play_deal(rules: Rules, rng: random.Random, tally: Tally) -> None:
    """One deal played in duplicate: the same cards (the same seed) once with each player in
    each seat, the players' order around the table rotated; the four games count as one sample,
    so the luck of the cards largely cancels out of the differences between players."""
    order = list(TABLE)
    rng.shuffle(order)
    seed = rng.getrandbits(64)
    nets = {p.strength: 0 for p in order}
    hands = 0
    for turn in range(len(order)):
        net, played, cpu = play_game(rules, order[turn:] + order[:turn], seed)
        hands += played
        for strength, value in net.items():
            nets[strength] += value
            tally.cpu_ns.setdefault(strength, []).extend(cpu[strength])
    tally.hands.append(hands)
    for strength, value in nets.items():
        tally.nets.setdefault(strength, []).append(value)


def per_hand(nets: Sequence[float], hands: Sequence[int]) -> tuple[float, float]:
    """Net per hand over the deals and the half-width of its 95% interval (ratio estimate,
    delta method: the deals are the independent samples)."""
    n = len(nets)
    ratio = sum(nets) / sum(hands)
    mean_hands = sum(hands) / n
    residuals = [x - ratio * h for x, h in zip(nets, hands, strict=True)]
    variance = sum(r * r for r in residuals) / (n - 1) if n > 1 else math.inf
    return ratio, 1.96 * math.sqrt(variance / n) / mean_hands


def p95(values: Sequence[int]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] / 1e6


def report(game: str, rules: Rules, tally: Tally, seconds: float) -> bool:
    """Print the game's table; True when the strong player's margins are both above zero."""
    total = sum(tally.hands)
    print(
        f"\n## {game.capitalize()}: {total:,} hands in {len(tally.hands):,} deals of four games, {seconds:.0f} s of CPU"
    )
    print(f"rules: {rules.to_dict()}\n")
    print(f"{'player':<22}{'net per hand (cents)':>22}{'95% interval':>24}")
    for p in TABLE:
        ratio, half = per_hand(tally.nets[p.strength], tally.hands)
        print(f"{p.strength + ' (' + p.name + ')':<22}{ratio:>22.1f}{f'[{ratio - half:.1f}, {ratio + half:.1f}]':>24}")
    ok = True
    print()
    for other in ("beginner", "random", "solid"):
        diffs = [a - b for a, b in zip(tally.nets["strong"], tally.nets[other], strict=True)]
        ratio, half = per_hand(diffs, tally.hands)
        above = ratio - half > 0
        if other != "solid":
            ok = ok and above
        verdict = "above zero" if above else "CROSSES ZERO" if other != "solid" else "not separated"
        print(
            f"strong over {other:<10}{ratio:>+12.1f} cents per hand, 95% [{ratio - half:+.1f}, {ratio + half:+.1f}]"
            f"  {verdict}"
        )
    print(f"\n{'CPU per decision':<22}{'decisions':>12}{'mean ms':>10}{'p95 ms':>10}")
    for p in TABLE:
        times = tally.cpu_ns[p.strength]
        print(f"{p.strength:<22}{len(times):>12,}{sum(times) / len(times) / 1e6:>10.2f}{p95(times):>10.2f}")
    strong = tally.cpu_ns["strong"]
    fast = sum(strong) / len(strong) / 1e6 < LIMIT_MS and p95(strong) < LIMIT_MS
    print(f"strong player under {LIMIT_MS:.0f} ms: {'yes' if fast else 'NO'}")
    return ok and fast


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--hands",
        type=int,
        help="hands per game (default: " + ", ".join(f"{g} {n:,}" for g, n in DEFAULT_HANDS.items()) + ")",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="one game only (repeatable)")
    args = parser.parse_args()
    ok = True
    for game in args.game or list(GAMES):
        rules = GAMES[game]
        rng = random.Random(f"{args.seed}:{game}")
        tally = Tally()
        target = args.hands or DEFAULT_HANDS[game]
        start = time.process_time()
        while sum(tally.hands) < target:
            play_deal(rules, rng, tally)
        ok = report(game, rules, tally, time.process_time() - start) and ok
    print("\nall margins above zero and the strong player fast enough" if ok else "\nFAILED: see above")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
