"""The bench's bots choose through the engine's computer players (engine/players/), so that the
load plays hands that look like real play: bets, raises, calls, folds, drops and declarations as the
beginner (by default) or the solid player makes them.

A decision runs in a process of its own (one ``ProcessPoolExecutor`` worker), away from the bots' event
loop and from the server, so its CPU is neither the server's measured time nor a delay of the screens'
reading. The worker reads the hand's state as committed (one statement, its own connection), makes the
seat's view (``engine.view``: what that member sees, nothing more) and asks the player. The choice is used
when the screen offers it at the version the screen shows; otherwise (the state moved on, or the bench
keeps two players in: bench/play.py) the screen's own weighted choice is taken, and counted.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench import play
from bench.screens import Turn

# The seats' strengths by default (--players): the beginner plays by its hand's face value, about 0.1 ms a
# decision, so the one worker process keeps up with any load the server takes; the solid player simulates
# (3 to 5 ms a decision), and on a shared two-core machine its worker became the bench's own bottleneck.
STRENGTHS = ("beginner",)
_HAND_SQL = (
    "SELECT h.version, h.players, h.state, v.rules FROM games_hand h "
    "JOIN games_rulesetversion v ON v.id = h.rule_version_id WHERE h.id = %s"
)

_connection: Any = None


def _worker_start(url: str) -> None:
    global _connection
    import psycopg

    _connection = psycopg.connect(url, autocommit=True)


def value_of(action: Any) -> str:
    """The button value of an engine action, as games/presentation/presenters.py ``action_value`` writes it (that module
    needs Django; the bench's worker does not load it)."""
    if action.type == "declare":
        return f"declare:{action.choice}"
    return f"{action.type}:{action.amount}" if action.amount is not None else action.type


def decide(hand_id: int, version: int, user_id: int, strength: str, seed: int) -> str | None:
    """The value the ``strength`` player at ``user_id``'s seat would press in hand ``hand_id`` at
    ``version``; None when the hand is at another version, or the seat is not awaited."""
    import engine
    from engine.players import player

    row = _connection.execute(_HAND_SQL, [hand_id]).fetchone()
    if row is None or row[0] != version:
        return None
    seat = next((int(s) for s, u in row[1].items() if int(u) == user_id), None)
    state = engine.state_from_json(row[2])
    if seat is None or seat not in engine.to_act(state):
        return None
    view = engine.view(state, seat)
    return value_of(player(strength).act(view, engine.rules_from_dict(row[3]), random.Random(seed)))


class Chooser:
    """The bots' decisions: the engine's player of each seat's strength, through one worker process."""

    def __init__(self, database_url: str, strengths: tuple[str, ...], seed: int) -> None:
        self.strengths = strengths
        self.rng = random.Random(seed)
        self.pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_start, initargs=(database_url,))
        self.by_player = 0
        self.fallbacks = 0

    def strength_of(self, user_id: int) -> str:
        return self.strengths[user_id % len(self.strengths)]

    async def choose(self, turn: Turn, user_id: int, *, may_leave: bool) -> str | None:
        """The player's choice among the turn's offers; the screen's weighted choice when it is not offered
        or would take a player out that the bench keeps in."""
        loop = asyncio.get_running_loop()
        try:
            value = await loop.run_in_executor(
                self.pool,
                decide,
                turn.hand,
                turn.version,
                user_id,
                self.strength_of(user_id),
                self.rng.randrange(1 << 30),
            )
        except Exception:  # noqa: BLE001 - a decision lost is the screen's choice instead, counted
            value = None
        if value is not None and value in turn.offers and (may_leave or not play.leaves(value)):
            self.by_player += 1
            return value
        self.fallbacks += 1
        return play.choose(turn, self.rng, may_leave=may_leave)

    def share(self) -> float:
        """The share of decisions the engine's players made."""
        return self.by_player / max(self.by_player + self.fallbacks, 1)

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
