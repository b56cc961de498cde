"""The hand's results written at the commit that ends it (``clubhouse_hand_finished``): its statement as clubhouse
migration 0002 wrote it (each seat's decision and money read once a seat) and as migration 0004 does (once a hand),
each with its plan left to PostgreSQL's choice and kept (``plan_cache_mode = force_generic_plan``, 0004's setting),
alternated in one process on one database.

    .venv/bin/python bench/hand_results.py --rounds 5 --actions 120 --history 600

Plays bench/live_parts.py's tables (Piranha with its betting round, Piles) through the real services, first
``--history`` actions a table unmeasured (the members' accounts then have postings of earlier hands, which 0002's
money read scanned), then a round of each form unmeasured (its first plans), then ``--rounds`` rounds of
``--actions`` actions a table a form, the order of the forms turned each round. Each form is a function of the
hand's id that the trigger's function calls as a setting chooses, so a switch is no DDL and no form is compiled or
planned again by it. Per form: the hand ends' commits, PostgreSQL's CPU for each (its backend's
/proc/<pid>/schedstat), and its function's calls and self time (``track_functions = 'pl'``). Then in PostgreSQL
alone: each form for every finished hand, looped in PL/pgSQL in a transaction rolled back: the backend's CPU a
hand. Not a timed test; its database is dropped at the end.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_hand_results"


def backend_ns(pid: int) -> int:
    """Nanoseconds PostgreSQL's backend ``pid`` has spent on a CPU (the scheduler's own count)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def body(function: str) -> str:
    """The statement a trigger function's SQL runs, between its BEGIN and its RETURN NULL."""
    return function.split("BEGIN", 1)[1].split("RETURN NULL;", 1)[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--actions", type=int, default=150, help="actions a table a form a round")
    parser.add_argument("--history", type=int, default=600, help="actions a table played first, unmeasured")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    try:
        run_bench(args.rounds, args.actions, args.history)
    finally:
        from django.db import connections

        connections.close_all()
        drop_bench_database(DB_NAME)


def run_bench(rounds: int, actions: int, history: int) -> None:
    from django.db import connection

    from bench.live_parts import play, setup_tables
    from clubhouse.migrations import _week_sql as week_sql
    from games.services import hands

    new = importlib.import_module("clubhouse.migrations.0004_hand_results_read_once")
    kept = " SET plan_cache_mode = force_generic_plan"
    forms = {  # each form as a function of the hand's id, with its trigger function's settings
        "0002": week_sql.FINISHED_FUNCTION_0002,
        "0002, plan kept": week_sql.FINISHED_FUNCTION_0002.replace("pg_temp AS", "pg_temp" + kept + " AS"),
        "0004, plan chosen": new.FINISHED_FUNCTION_0004.replace(kept, ""),
        "0004": new.FINISHED_FUNCTION_0004,
    }
    assert kept in new.FINISHED_FUNCTION_0004
    names = {name: f"bench_fill_{number}" for number, name in enumerate(forms)}

    def run(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall()) if cursor.description else []

    tables = setup_tables(betting_round=True)
    for table, users in tables:
        play(table, users, history, defaultdict(list), [], defaultdict(list))
    # Each form a function of the hand's id, called by the trigger's function as a setting chooses: switching
    # form is no DDL, so no form's statement is compiled or planned again at a switch (as the site's is not).
    for name, function in forms.items():
        run(
            function.replace("clubhouse_hand_finished() RETURNS trigger", f"{names[name]}(hand bigint) RETURNS void")
            .replace("NEW.id", "hand")
            .replace("RETURN NULL;", "RETURN;")
        )
    run(
        "CREATE OR REPLACE FUNCTION clubhouse_hand_finished() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        + " ".join(
            f"{'IF' if number == 0 else 'ELSIF'} current_setting('bench.form') = '{name}' THEN "
            f"PERFORM {names[name]}(NEW.id);"
            for number, name in enumerate(forms)
        )
        + " END IF; RETURN NULL; END $$"
    )
    run("SET track_functions = 'pl'")  # the bench's superuser may; the connection stays this process's

    real_act, real_commit = hands.hand_act, connection.commit
    form = [""]
    commits: dict[str, list[int]] = defaultdict(list)  # a hand end's commit: PostgreSQL's CPU, ns

    def acting(*a: Any, **kw: Any) -> Any:
        pid = connection.connection.info.backend_pid if connection.connection else 0
        spent: list[int] = []

        def committing() -> None:
            started = backend_ns(pid)
            real_commit()
            spent.append(backend_ns(pid) - started)

        connection.commit = committing  # type: ignore[method-assign]
        try:
            hand = real_act(*a, **kw)
        finally:
            del connection.commit
        if pid and hand.is_finished and len(spent) == 1 and form[0]:
            commits[form[0]].append(spent[0])
        return hand

    def function_stats(name: str) -> tuple[int, float]:
        run("SELECT pg_stat_force_next_flush()")
        time.sleep(0.05)
        run("SELECT pg_stat_clear_snapshot()")
        rows = run("SELECT calls, self_time FROM pg_stat_user_functions WHERE funcname = %s", [names[name]])
        return (int(rows[0][0]), float(rows[0][1])) if rows else (0, 0.0)

    calls: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    hands.hand_act = acting  # type: ignore[assignment]
    order = list(forms)
    try:
        for name in order:  # each form's first hand ends plan its statement afresh: not counted
            run(f"SET bench.form = '{name}'")
            for table, users in tables:
                play(table, users, actions, defaultdict(list), [], defaultdict(list))
        for number in range(rounds):
            for name in order if number % 2 == 0 else order[::-1]:
                run(f"SET bench.form = '{name}'")
                form[0] = name
                before = function_stats(name)
                for table, users in tables:
                    play(table, users, actions, defaultdict(list), [], defaultdict(list))
                after = function_stats(name)
                calls[name][0] += after[0] - before[0]
                calls[name][1] += after[1] - before[1]
                form[0] = ""
            print(f"round {number + 1} of {rounds} done", flush=True)
    finally:
        hands.hand_act = real_act  # type: ignore[assignment]

    print("Hand ends played: PostgreSQL's CPU for the commit (us, mean / median); the function's self time a call")
    for name in forms:
        rows = [ns / 1000 for ns in commits[name]]
        n, self_ms = calls[name]
        print(
            f"  {name:18} {len(rows):4} hand ends, commit {statistics.mean(rows):7.1f} / {statistics.median(rows):7.1f}"
            f"; the statement's function {int(n)} calls, {self_ms / max(n, 1) * 1000:7.1f} us a call"
        )
    in_server(forms, names, run, rounds)
    run(new.FINISHED_FUNCTION_0004)


def in_server(forms: dict[str, str], names: dict[str, str], run: Any, rounds: int) -> None:
    """Each form's function for every finished hand, looped in PL/pgSQL in a transaction rolled back, the forms
    alternated (the first round, whose plans are new, not counted): PostgreSQL's CPU a hand."""
    from django.db import connection, transaction

    finished = [int(h) for (h,) in run("SELECT id FROM games_hand WHERE finished_at IS NOT NULL ORDER BY finished_at")]
    ids = ",".join(map(str, finished))
    order = list(forms)
    spent: dict[str, list[float]] = defaultdict(list)
    for number in range(rounds + 1):
        for name in order if number % 2 == 0 else order[::-1]:
            with transaction.atomic():
                run("DELETE FROM clubhouse_weekresult")
                run("DELETE FROM clubhouse_handresult")
                pid = connection.connection.info.backend_pid
                started = backend_ns(pid)
                run(
                    f"DO $$ DECLARE hand bigint; BEGIN FOREACH hand IN ARRAY ARRAY[{ids}]::bigint[] LOOP "
                    f"PERFORM {names[name]}(hand); END LOOP; END $$"
                )
                if number:
                    spent[name].append((backend_ns(pid) - started) / len(finished) / 1000)
                transaction.set_rollback(True)
    print(f"In PostgreSQL alone, {len(finished)} finished hands a round, {rounds} rounds: us of its CPU a hand")
    for name in forms:
        rows = spent[name]
        print(f"  {name:18} median {statistics.median(rows):7.1f}  ({', '.join(f'{r:.0f}' for r in rows)})")


if __name__ == "__main__":
    main()
