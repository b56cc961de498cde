"""The CPU of ``hand_act`` in this process, the path as it is now against the same path at an earlier commit,
drawn action by action in one process so that drift in the machine's speed falls on both.

    nice -n 10 .venv/bin/python bench/action_path.py                  # 300 actions a game
    nice -n 10 .venv/bin/python bench/action_path.py --before <commit> --actions 600

Plays bench/live_parts.py's tables (Piranha with its betting round, as bench/load.py plays it, and Piles) on a
database of its own (made afresh, dropped at the end) through the real services, each action followed by the
publisher's read and renders as the site does them. Each action is taken, drawn at random, by ``hand_act`` as
it is or as it was at ``--before``: the action's own modules (``BEFORE_MODULES``) read from git at that commit
and loaded beside the site's, each importing the others' old forms (the modules they import outside that list
are today's, shared by both). The actions that finish their hand (``Hand.is_finished`` on the hand returned)
are the hand ends, the rest ordinary actions; for each kind and each path: ms of this thread's CPU an action
(mean and median), the statements it sent and those of the publisher's read and renders after it, and
PostgreSQL's CPU an action (the time its backend ran on a CPU, /proc/PID/schedstat, in ns). ``--late``:
each sealed decision is made against the version its seat's turn in it began at, as when every seat decides at
once (most are then late: games/services/locking.py), those that do not end their hand counted apart. Not a
timed test: the machine is shared.
"""

from __future__ import annotations

import argparse
import random
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
from bench.live_parts import setup_tables  # noqa: E402

DB_NAME = "bench_action_path"
# The action's modules, in the order each is loaded (each after those it imports).
BEFORE_MODULES = (
    ("kernel/statements.py", "kernel.statements"),
    ("games/selectors/rows.py", "games.selectors.rows"),
    ("games/selectors/hands.py", "games.selectors.hands"),
    ("games/services/locking.py", "games.services.locking"),
    ("games/services/hands.py", "games.services.hands"),
)


def backend_cpu(pid: int) -> float:
    """Seconds PostgreSQL's backend ``pid`` has run on a CPU (the scheduler's count in ns, not /proc/PID/stat's
    10 ms ticks: one action's share is exact)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def before_path(commit: str) -> Callable[..., Any]:
    """``hand_act`` as it was at ``commit``: ``BEFORE_MODULES`` read from git, each loaded under a name of its
    own while the names of those loaded before it point at their old forms (so its imports find them)."""
    old: dict[str, types.ModuleType] = {}
    for path, name in BEFORE_MODULES:
        source = subprocess.run(
            ["git", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
        module = types.ModuleType(f"{name}_before")
        module.__package__ = name.rpartition(".")[0]
        sys.modules[module.__name__] = module  # its dataclasses look their module up
        today = {n: sys.modules[n] for n in old}
        sys.modules.update(old)
        try:
            exec(compile(source, f"{path}@{commit}", "exec"), module.__dict__)  # noqa: S102 - the repo's own file
        finally:
            sys.modules.update(today)
        old[name] = module
    return old["games.services.hands"].hand_act  # type: ignore[no-any-return]


def _seen(hand_id: int, user: Any, version: int) -> int:
    """The version a player deciding at once with the others saw: in a sealed decision, the one their turn in it
    began at (the others' decisions since make theirs late, as under load); else ``version``."""
    import engine
    from games.models import Hand
    from games.selectors.hands import hand_seat_of
    from games.selectors.states import hand_state

    hand = Hand.objects.get(pk=hand_id)
    seat = hand_seat_of(hand=hand, user=user)
    began = hand.turn_began(seat) if seat is not None else None
    return began if began is not None and engine.is_sealed(hand_state(hand)) else version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300, help="actions at each table")
    parser.add_argument("--before", default="40d8fcd", help="the commit of the path compared with")
    parser.add_argument("--seed", type=int, default=1, help="of the draw of the path taking each action")
    parser.add_argument(
        "--late",
        action="store_true",
        help="each sealed decision made against the version its seat's turn began at, as players deciding at once",
    )
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    from django.db import connection

    from bench.live_parts import play
    from games.services import hands

    paths = {"before": before_path(args.before), "now": hands.hand_act}
    taken: list[
        tuple[str, str, float, int, float]
    ] = []  # per action in turn: path, kind, CPU, statements, PostgreSQL's
    # Which path takes an action: drawn, not every other one, since with six seats every other action is
    # always the same three seats' (a sealed decision's first to decide is never late, the others may be).
    draw = random.Random(args.seed)

    def acting(*a: Any, **kw: Any) -> Any:
        label = draw.choice(("before", "now"))
        current = kw["version"]
        if args.late:
            kw["version"] = _seen(kw["hand_id"], kw["user"], current)
        sent = [0]

        def counting(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            sent[0] += 1
            return execute(sql, params, many, context)

        connection.ensure_connection()
        backend = connection.connection.info.backend_pid
        with connection.execute_wrapper(counting):
            server, started = backend_cpu(backend), time.thread_time()
            hand = paths[label](*a, **kw)
            spent, server = time.thread_time() - started, backend_cpu(backend) - server
        kind = "hand ends" if hand.is_finished else "late decisions" if kw["version"] != current else "ordinary"
        taken.append((label, kind, spent, sent[0], server))
        return hand

    hands.hand_act = acting  # type: ignore[assignment]
    try:
        published: list[int] = []  # per action in turn: the statements of its publisher's read and renders
        for table, users in setup_tables(betting_round=True):
            counts: dict[str, list[int]] = defaultdict(list)
            play(table, users, args.actions, defaultdict(list), [], counts)
            published += counts["statements"]
        # (path, kind): (CPU, statements, the publisher's statements after it, PostgreSQL's CPU)
        found: dict[tuple[str, str], list[tuple[float, int, int, float]]] = defaultdict(list)
        for (label, kind, spent, sent, server), after in zip(taken, published, strict=True):
            found[label, kind].append((spent, sent, after, server))
        print(
            f"hand_act, ms of CPU an action, mean / median (statements; the publisher's after it; PostgreSQL's CPU, "
            f"ms, mean), {args.before} against now:"
        )
        for kind in ("ordinary", "late decisions", "hand ends"):
            if not found["now", kind] or not found["before", kind]:
                continue
            cells = []
            for label in ("before", "now"):
                rows = found[label, kind]
                cpu = [c * 1000 for c, _, _, _ in rows]
                cells.append(
                    f"{label} ({len(rows)}) {statistics.mean(cpu):.3f} / {statistics.median(cpu):.3f} "
                    f"({statistics.mean(n for _, n, _, _ in rows):.2f}; {statistics.mean(p for _, _, p, _ in rows):.2f}; "
                    f"{statistics.mean(s for _, _, _, s in rows) * 1000:.3f})"
                )
            ratio = [
                f(c for c, _, _, _ in found["now", kind]) / f(c for c, _, _, _ in found["before", kind])
                for f in (statistics.mean, statistics.median)
            ]
            print(f"  {kind}: {'; '.join(cells)}; now/before {ratio[0]:.3f} / {ratio[1]:.3f}")
    finally:
        connection.close()
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
