"""CPU of a member's private frame (games/live/render.py ``private_frame``): the path as it was before its cuts,
against the site's, alternated in one process over the versions of real games.

    nice .venv/bin/python bench/private_frame.py                       # 150 actions a game, 5 rounds
    nice .venv/bin/python bench/private_frame.py --actions 300 --rounds 9

Uses a database ``bench_private_frame`` on the embedded PostgreSQL (made afresh, dropped at the end). A club's
Piranha table (with its betting round, as bench/load.py plays it) and Piles table are played through the real
services as bench/live_parts.py plays them, and every version the publisher rendered private frames for is kept
with the members it rendered them for. Each round then renders, for every kept version in order, those members'
frames by the old path and by the new, in turn (which goes first alternates from version to version), each on a
fresh copy of the snapshot whose public context (``presenters.public_context``, shared with the version's public
frame and built once a version either way) is built before the clock starts; its time is printed apart. The two
paths' frames must be byte-equal. Each path keeps its own Piles hand helper's words (``words._helper_words``),
emptied at each round's start, so each searches what cards still face down may give once per seat and card
turned, as the site does; the other process caches (a card's markup) are warm and shared. The collector is
settled as in the server (``kernel.pools.collector_settle``) once the games are played, so a full pass over all
that is loaded does not land on one path's round.

The old path is the site's as it was at ``BEFORE``: its ``private_frame`` and the search of engine/reach.py, both
read from git at that commit (``_before``), and each template's globals as Jinja makes them (a ChainMap over the
environment's, ``_jinja_globals``). Printed per round: ms of CPU a frame by each path and new/old; at
the end the medians, by game and for the versions that render six frames (a hand's end with the next deal, a
Piles stage turn: the dear actions). Not a timed test.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import subprocess
import sys
import time
import types
from collections import ChainMap, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_private_frame"
BEFORE = "69325ac2fdf403efe00256c3db0bf01038bd4998"  # the tree before the private frame's cuts


def _jinja_globals(old: bool) -> None:
    """Every loaded template's globals as Jinja makes them (``old``: a ChainMap over the environment's) or as the
    site's environment does (a plain dict, games/presentation/jinja.py ``make_globals``)."""
    from django.template import engines

    env = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend's
    for template in env.cache.values():
        template.globals = ChainMap({}, env.globals) if old else env.make_globals(None)


def _before(path: str, name: str) -> types.ModuleType:
    """The site's module at ``path`` as it was at ``BEFORE``, read from git and loaded as ``name`` beside the
    site's own (its imports are the site's modules of today, which that commit's code shares)."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:{path}"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    module = types.ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module  # its dataclasses look their module up
    exec(compile(source, f"{path}@BEFORE", "exec"), module.__dict__)  # noqa: S102 - the repo's own file
    return module


@dataclasses.dataclass
class RenderPath:
    """One path: its render, whether its templates' globals are Jinja's own, its search and its helper's words."""

    render: Callable[..., str]
    old_globals: bool
    search: Callable[..., Any]
    words: Any = None

    def __post_init__(self) -> None:
        from games.presentation import words

        self.words = functools.lru_cache(maxsize=4096)(words._helper_words.__wrapped__)

    def use(self) -> None:
        from games.presentation import words

        _jinja_globals(self.old_globals)
        words.piles_reach = self.search  # read by the helper's words at each call
        words._helper_words = self.words


def record(actions: int) -> list[tuple[str, Any, list[Any]]]:
    """Play both tables; every version private frames were rendered for: (game, snapshot, members)."""
    from bench.live_parts import play, setup_tables
    from games.live import publish

    kept: dict[int, tuple[str, Any, list[Any]]] = {}
    game = [""]
    rendered = publish.private_frame

    def keep(snapshot: Any, user: Any, *, at: int = 0) -> str:
        kept.setdefault(id(snapshot), (game[0], snapshot, []))[2].append(user)
        return rendered(snapshot, user, at=at)

    publish.private_frame = keep
    try:
        for table, users in setup_tables(betting_round=True):
            game[0] = table.name
            play(table, users, actions, defaultdict(list), [], defaultdict(list))
    finally:
        publish.private_frame = rendered
    return list(kept.values())


def frames_of(path: Callable[..., str], snapshot: Any, users: list[Any]) -> tuple[float, list[str]]:
    """CPU seconds of ``users``' frames of ``snapshot`` by ``path`` (their public context built first), and them."""
    from games.presentation.presenters import public_context

    fresh = dataclasses.replace(snapshot, derived={})
    public_context(fresh, fresh.table.club.currency)
    started = time.thread_time()
    frames = [path(fresh, user) for user in users]
    return time.thread_time() - started, frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=150, help="actions played at each table")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every kept version by each path")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from games.live.render import private_frame
    from games.presentation.presenters import public_context
    from kernel.pools import collector_settle

    try:
        kept = record(args.actions)
        collector_settle()  # as the server does once started: what is loaded and kept aside from full passes
        count = sum(len(users) for _, _, users in kept)
        print(f"{len(kept)} versions, {count} private frames; ms of CPU a frame, old / new path, alternated:")
        groups = {
            "all": lambda game, users: True,
            "Piranha": lambda game, users: game == "Piranha",
            "Piles": lambda game, users: game == "Piles",
            "six-frame versions": lambda game, users: len(users) == 6,
            "Piles, six frames": lambda game, users: game == "Piles" and len(users) == 6,
        }
        ratios: dict[str, list[float]] = defaultdict(list)
        means: dict[str, list[tuple[float, float]]] = defaultdict(list)
        from games.presentation import words

        site = (words.piles_reach, words._helper_words)
        paths = {
            True: RenderPath(
                _before("games/live/render.py", "games.live.render_before").private_frame,
                True,
                _before("engine/reach.py", "engine.reach_before").piles_reach,
            ),
            False: RenderPath(private_frame, False, site[0]),
        }
        context = 0.0
        for round_no in range(args.rounds):
            for path in paths.values():
                path.words.cache_clear()
            spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
            for i, (game, snapshot, users) in enumerate(kept):
                got: dict[bool, list[str]] = {}
                for old in (True, False) if (i + round_no) % 2 else (False, True):
                    paths[old].use()
                    seconds, got[old] = frames_of(paths[old].render, snapshot, users)
                    for name, member in groups.items():
                        if member(game, users):
                            spent[name][0 if old else 1] += seconds
                            spent[name][2] += len(users) if old else 0
                assert got[True] == got[False], f"the paths' frames differ at {game} hand {snapshot.hand.pk}"
            fresh = [dataclasses.replace(s, derived={}) for _, s, _ in kept]
            started = time.thread_time()
            for snapshot in fresh:
                public_context(snapshot, snapshot.table.club.currency)
            context += time.thread_time() - started
            for name, (old_s, new_s, frames) in spent.items():
                ratios[name].append(new_s / old_s)
                means[name].append((old_s / frames * 1000, new_s / frames * 1000))
            print(
                f"  round {round_no + 1}: old {means['all'][-1][0]:.4f}  new {means['all'][-1][1]:.4f}  "
                f"new/old {ratios['all'][-1]:.3f}"
            )
        _jinja_globals(False)
        words.piles_reach, words._helper_words = site
        print("medians over the rounds (ms of CPU a frame, old / new, new/old):")
        for name, values in means.items():
            old_ms = statistics.median(v[0] for v in values)
            new_ms = statistics.median(v[1] for v in values)
            print(f"  {name:<20}{old_ms:8.4f}{new_ms:8.4f}{statistics.median(ratios[name]):8.3f}")
        print(
            f"a version's public context, built once for its frames and its public frame: "
            f"{context / args.rounds / len(kept) * 1000:.3f} ms"
        )
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
