"""CPU of a version's frames (games/live/render.py): the public frame and the members' private frames, by the
site's renders as they were at ``BEFORE`` and by today's, alternated in one process over the versions of real
games.

    nice .venv/bin/python bench/public_frame.py                       # 150 actions a game, 5 rounds
    nice .venv/bin/python bench/public_frame.py --actions 300 --rounds 9

Uses a database ``bench_public_frame`` on the embedded PostgreSQL (made afresh, dropped at the end). A club's
Piranha table (with its betting round, as bench/load.py plays it) and Piles table are played through the real
services as bench/live_parts.py plays them, and every version the publisher rendered frames for is kept with the
members it rendered private frames for. Each round then renders, for every kept version in order, its public
context (``presenters.public_context``, built once a version and shared by its frames), its public frame and
those members' private frames by the old path and by the new, in turn (which goes first alternates from version
to version), each on a fresh copy of the snapshot. Every frame of the two paths must be byte-equal.

The old path is the site's at ``BEFORE``: games/live/render.py, games/presentation/ (presenters, area, jinja,
shared) and the templates of templates/jinja2/, all read from git at that commit (``_before``), the templates in
an environment of their own made by that commit's ``environment``; the modules they import from outside those are
today's (``_rebound``: games/presentation/reasons.py and words.py among them). Each path keeps its own process
caches (``ProcessCache``) of presenters and area (its kept seat rows, last hands, hand logs), emptied at each
round's start so that each version finds kept what the versions before it left, as in the publisher; the rest (a
card's markup, an amount's words, a log line's words, the Piles helper's words) are warm. The collector is
settled as in the server (``kernel.pools.collector_settle``) once the games are played. Printed per round: ms of
CPU a version by each path for the context and the public frame, and a frame for the private frames; at the end
the medians by game. Not a timed test.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_public_frame"
BEFORE = "b3fb376c47a1a579ae1923793864c516978627b0"  # the tree at the start of this round of cuts of the frames
PARTS = ("context", "public", "private")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=ROOT).stdout


def _before(path: str, name: str) -> types.ModuleType:
    """The site's module at ``path`` as it was at ``BEFORE``, read from git and loaded as ``name`` beside the
    site's own (its imports are the site's modules of today until ``_rebound``)."""
    module = types.ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module  # its dataclasses look their module up
    exec(compile(_git("show", f"{BEFORE}:{path}"), f"{path}@BEFORE", "exec"), module.__dict__)  # noqa: S102
    return module


def _rebound(module: types.ModuleType, olds: dict[str, types.ModuleType]) -> None:
    """``module``'s names imported from today's modules of ``olds`` (by module name) made those of the old."""
    for name, value in list(vars(module).items()):
        old = olds.get(getattr(value, "__module__", None) or "")
        if old is not None and hasattr(old, name):
            setattr(module, name, getattr(old, name))


@dataclasses.dataclass
class FramePath:
    """One path's renders: the public context, the public frame, a member's private frame."""

    context: Callable[..., Any]
    public: Callable[..., str]
    private: Callable[..., str]
    caches: list[Any]  # its rendered markup kept by process (kernel.pools.ProcessCache), emptied at each round

    def start_round(self) -> None:
        for cache in self.caches:
            cache._entries.clear()


def old_path() -> FramePath:
    """The renders at ``BEFORE``, with that commit's templates in an environment of their own."""
    from django.template import engines
    from jinja2 import DictLoader

    from kernel.pools import ProcessCache

    site_env = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend's
    presenters = _before("games/presentation/presenters.py", "games.presentation.presenters_before")
    area = _before("games/presentation/area.py", "games.presentation.area_before")
    jinja = _before("games/presentation/jinja.py", "games.presentation.jinja_before")
    shared = _before("games/presentation/shared.py", "games.presentation.shared_before")
    render = _before("games/live/render.py", "games.live.render_before")
    olds = {"games.presentation.presenters": presenters, "games.presentation.area": area}
    for module in (area, jinja, render):
        _rebound(module, olds)
    jinja.area = area  # type: ignore[attr-defined]  # its filters and globals: the old area's
    jinja.shared = shared  # type: ignore[attr-defined]  # and the old money and cards
    folder = "templates/jinja2/"
    names = _git("ls-tree", "-r", "--name-only", BEFORE, folder).split()
    env = jinja.environment(
        loader=DictLoader({name[len(folder) :]: _git("show", f"{BEFORE}:{name}") for name in names}),
        autoescape=site_env.autoescape,
        undefined=site_env.undefined,
        extensions=list(site_env.extensions),
        auto_reload=False,
    )
    area.engines = {"jinja2": types.SimpleNamespace(env=env)}  # type: ignore[attr-defined]  # its jinja_template's
    caches = [
        value for module in (presenters, area) for value in vars(module).values() if isinstance(value, ProcessCache)
    ]
    return FramePath(presenters.public_context, render.public_frame, render.private_frame, caches)


def new_path() -> FramePath:
    from games.live.render import private_frame, public_frame
    from games.presentation import area, presenters
    from kernel.pools import ProcessCache

    caches = [
        value for module in (presenters, area) for value in vars(module).values() if isinstance(value, ProcessCache)
    ]
    return FramePath(presenters.public_context, public_frame, private_frame, caches)


def record(actions: int) -> list[tuple[str, Any, list[Any]]]:
    """Play both tables; every version the publisher rendered: (game, snapshot, members of its private frames)."""
    from bench.live_parts import play, setup_tables
    from games.live import publish

    kept: dict[int, tuple[str, Any, list[Any]]] = {}
    public, private = publish.public_frame, publish.private_frame

    def keep_public(snapshot: Any, *, at: int = 0, full: bool = False) -> str:
        kept.setdefault(id(snapshot), (snapshot.table.rule_version.rule_set.game, snapshot, []))
        return public(snapshot, at=at, full=full)

    def keep_private(snapshot: Any, user: Any, *, at: int = 0) -> str:
        kept.setdefault(id(snapshot), (snapshot.table.rule_version.rule_set.game, snapshot, []))[2].append(user)
        return private(snapshot, user, at=at)

    publish.public_frame, publish.private_frame = keep_public, keep_private
    try:
        for table, users in setup_tables(betting_round=True):
            play(table, users, actions, defaultdict(list), [], defaultdict(list))
    finally:
        publish.public_frame, publish.private_frame = public, private
    return list(kept.values())


def frames_of(path: FramePath, snapshot: Any, users: list[Any]) -> tuple[list[float], list[str]]:
    """CPU seconds of the version's context, public frame and ``users``' private frames by ``path``, and them."""
    fresh = dataclasses.replace(snapshot, derived={})
    started = time.thread_time()
    path.context(fresh, fresh.table.club.currency)
    built = time.thread_time()
    frames = [path.public(fresh)]
    public = time.thread_time()
    frames += [path.private(fresh, user) for user in users]
    done = time.thread_time()
    return [built - started, public - built, done - public], frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=150, help="actions played at each table")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every kept version by each path")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from kernel.pools import collector_settle

    try:
        kept = record(args.actions)
        paths = {True: old_path(), False: new_path()}
        collector_settle()  # as the server does once started: what is loaded and kept aside from full passes
        privates = sum(len(users) for _, _, users in kept)
        print(f"{len(kept)} versions, {privates} private frames; ms of CPU, old / new path, alternated:")
        # by game, then part: per round, [old seconds, new seconds]; and the count of versions and private frames
        medians: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for game, _, users in kept:
            for name in (game, "all"):
                counts[name][0] += 1
                counts[name][1] += len(users)
        for round_no in range(args.rounds):
            for path in paths.values():
                path.start_round()
            spent: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
            for i, (game, snapshot, users) in enumerate(kept):
                got: dict[bool, list[str]] = {}
                for old in (True, False) if (i + round_no) % 2 else (False, True):
                    seconds, got[old] = frames_of(paths[old], snapshot, users)
                    for name in (game, "all"):
                        for part, s in zip(PARTS, seconds, strict=True):
                            spent[(name, part)][0 if old else 1] += s
                assert got[True] == got[False], f"the paths' frames differ at {game} hand {snapshot.hand.pk}"
            line = []
            for (name, part), (old_s, new_s) in spent.items():
                per = counts[name][1] if part == "private" else counts[name][0]
                medians[(name, part)].append((old_s / per * 1000, new_s / per * 1000))
                if name == "all":
                    line.append(f"{part} {old_s / per * 1000:.4f} / {new_s / per * 1000:.4f}")
            print(f"  round {round_no + 1}: " + "; ".join(line))
        print("medians over the rounds: ms of CPU a version (context, public) or a frame (private), old / new:")
        for (name, part), values in sorted(medians.items()):
            old_ms = statistics.median(v[0] for v in values)
            new_ms = statistics.median(v[1] for v in values)
            ratio = statistics.median(v[1] / v[0] for v in values)
            print(f"  {name:<8}{part:<9}{old_ms:8.4f}{new_ms:8.4f}  new/old {ratio:.3f}")
        print(f"private frames a version: {privates / len(kept):.2f}")
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
