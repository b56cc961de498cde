"""bench/load.py's own pure parts, without a server: a stalled bare round keeps the median attempt, never the
last nor the best; a bot keeps to the site's limit on a socket's messages and tries again after a refusal for
its pace; the offered loads fit the tables; the soak's verdict says NOT held when actions go undone, a
backlog grows or memory grows; the books' report fails when postings do not sum to zero.
Run: ``python3 scripts/dev.py test bench/test_load.py``."""

from __future__ import annotations

import json
import os
import sys
from collections import deque
from pathlib import Path

import pytest

from bench.load import (
    PACE_COUNT,
    TABLE_RATE,
    Bot,
    Floor,
    Phase,
    SoakSample,
    median_attempt,
    offered_rates,
    pace,
    soak_verdict,
)
from bench.screens import GAME_OVER, Screen
from bench.stack import Books, Procs, proxy_command, server_errors
from games.live.frames import RATE_COUNT, RATE_SECONDS


def test_the_median_attempt_is_kept_not_the_last_nor_the_best() -> None:
    attempts = [("slow", 40.0), ("fast", 90.0), ("middle", 60.0)]
    assert median_attempt(attempts, lambda a: a[1])[0] == "middle"
    assert median_attempt([("one", 5.0)], lambda a: a[1])[0] == "one"
    assert median_attempt([("low", 1.0), ("high", 2.0)], lambda a: a[1])[0] == "low"  # of two, the lower
    with pytest.raises(ValueError):
        median_attempt([], lambda a: a)


def test_a_bot_keeps_within_the_sites_limit_on_a_socket() -> None:
    assert PACE_COUNT < RATE_COUNT
    sends: deque[float] = deque()
    assert pace(sends, 0.0, 3, 10.0) == 0.0
    sends.extend([1.0, 2.0, 3.0])
    assert pace(sends, 4.0, 3, 10.0) == pytest.approx(7.0)  # the send at 1.0 leaves the window at 11.0
    assert pace(sends, 11.5, 3, 10.0) == 0.0
    assert list(sends) == [2.0, 3.0]  # the send older than the window is forgotten
    # However many it sent, no window of RATE_SECONDS holds more than PACE_COUNT of its sends.
    sends.clear()
    now, times = 0.0, []
    for _ in range(100):
        now += pace(sends, now, PACE_COUNT, RATE_SECONDS)
        sends.append(now)
        times.append(now)
    assert max(sum(1 for t in times if start <= t < start + RATE_SECONDS) for start in times) <= PACE_COUNT


def test_a_refusal_for_pace_is_tried_again_a_refusal_of_the_turn_is_not() -> None:
    bot = Bot(Floor(1), {"table": 1, "user": 2, "session": "s"})
    phase = Phase("p", None, 1.0)
    for words, refused_at in (("Too many messages: slow down.", (-1, -1)), ("That is not allowed now.", (5, 3))):
        bot.in_flight, bot.refused_at = (phase, 0.0, "check", (5, 3), 0.0), (-1, -1)
        phase.in_flight += 1
        bot.hear(json.dumps({"type": "error", "message": words}), 1.0)
        assert bot.in_flight is None and bot.refused_at == refused_at
    assert phase.errors == 2 and phase.in_flight == 0


def test_the_offered_loads_fit_the_tables() -> None:
    assert offered_rates([60.0, 100.0], 50) == [60.0, 100.0]
    assert offered_rates([60.0, 100.0], 2) == [2 * TABLE_RATE]  # both capped: run once
    assert offered_rates([30.0, 60.0, 100.0], 20) == [30.0, 60.0]
    # At the cap, a table's two seats heads-up each send within the site's limit.
    assert TABLE_RATE / 2 * RATE_SECONDS <= PACE_COUNT


def test_a_screen_sees_its_game_end_and_the_next_game_begin() -> None:
    screen = Screen()

    def public(hand: int, finished: bool, html: str) -> str:
        frame = {"type": "table.public", "table": 1, "hand": hand, "version": 1, "at": 0, "marks": {}, "html": html}
        return json.dumps({**frame, "finished": finished})

    screen.hear(public(7, True, "<p>Ann won the pot.</p>"))
    assert not screen.game_over  # a hand's end is not the game's
    screen.hear(public(8, True, f"<p>{GAME_OVER}</p>"))
    assert screen.game_over
    screen.hear(public(9, False, "<p>Hand 1</p>"))
    assert not screen.game_over


def samples(backlogs: list[int], rss: list[float]) -> list[SoakSample]:
    return [SoakSample(30.0 * i, m, b) for i, (b, m) in enumerate(zip(backlogs, rss, strict=True))]


def test_the_soak_holds_only_when_every_action_is_done_and_nothing_grows() -> None:
    flat = samples([0, 2, 1, 0, 3, 1, 2], [150, 160, 162, 161, 163, 162, 164])
    assert soak_verdict(flat, 18000, 17990, 0, 0, 30.0)[-1] == "soak: held"
    # Done short of offered (the traced soak's 27.6 of 30/s): NOT held, whatever else.
    assert soak_verdict(flat, 18000, 16560, 0, 0, 30.0)[-1] == "soak: NOT held"
    # A backlog that grows over the last half.
    growing = samples([0, 5, 40, 300, 900, 1400, 1625], [150] * 7)
    verdict = soak_verdict(growing, 18000, 17990, 0, 0, 30.0)
    assert verdict[-1] == "soak: NOT held" and "backlog" in verdict[1] and "NOT held" in verdict[1]
    # A backlog that built up and drained again, 575 actions (19 s of the load) behind at its peak, as a
    # plain soak on a busy machine did (p95 35 s): NOT held, though every action was done in the end.
    drained = samples([0, 49, 325, 510, 547, 575, 457, 196, 2, 0], [150] * 10)
    assert soak_verdict(drained, 18209, 18208, 0, 0, 30.0)[-1] == "soak: NOT held"
    # Memory that grows more than 10% over the last half.
    assert soak_verdict(samples([0] * 7, [150, 160, 170, 180, 190, 200, 210]), 100, 100, 0, 0, 30.0)[-1] == (
        "soak: NOT held"
    )
    # An error or a lost update.
    assert soak_verdict(flat, 100, 100, 1, 0, 30.0)[-1] == "soak: NOT held"
    assert soak_verdict(flat, 100, 100, 0, 1, 30.0)[-1] == "soak: NOT held"
    # Too short to judge is not held.
    assert soak_verdict(flat[:2], 100, 100, 0, 0, 30.0)[-1] == "soak: NOT held (not judged)"


def test_the_books_report_fails_when_postings_do_not_sum_to_zero() -> None:
    good = Books((("ante", 120, 3000), ("award", 20, 3000)), 260, 0, 0, 0, 0)
    assert good.whole and "the books balance" in good.lines()[-1]
    assert "ante" in good.lines()[0] and "30.00" in good.lines()[0]
    for broken in (
        Books(good.by_kind, 260, 25, 0, 25, 0),  # a posting too many
        Books(good.by_kind, 260, 0, 1, 0, 0),  # an entry that does not balance, the total by chance zero
        Books(good.by_kind, 260, 0, 0, 0, 2),  # balances that are not their postings' sum
    ):
        assert not broken.whole and "do NOT balance" in broken.lines()[-1]
    assert "no entry" in Books((), 0, 0, 0, 0, 0).lines()[0]


def test_the_proxy_balances_the_web_processes_by_fewest_connections(tmp_path: Path) -> None:
    command = proxy_command(8000, [8001, 8002], tmp_path)
    config = (tmp_path / "Caddyfile").read_text()
    assert command[:2] == ["caddy", "run"] and str(tmp_path / "Caddyfile") in command
    assert "http://127.0.0.1:8000 {" in config and "reverse_proxy 127.0.0.1:8001 127.0.0.1:8002 {" in config
    assert "lb_policy least_conn" in config and "admin off" in config


def test_a_server_that_logs_much_is_not_blocked_and_its_errors_are_read() -> None:
    procs = Procs()
    try:
        script = f"import sys; sys.stderr.write('INFO:     connection open\\n' * 8000); sys.stderr.write({LOGGED!r})"
        proc = procs.start("web", [sys.executable, "-c", script], dict(os.environ))
        assert proc.wait(timeout=30) == 0  # 200 KiB to stderr: a pipe nobody reads would block it at 64 KiB
        log = procs.stop("web")
    finally:
        procs.stop_all()
    assert len(log) > 200_000 and not procs.logs
    assert server_errors(log) == {
        "ERROR:    Exception in ASGI application": 1,
        "psycopg.errors.DeadlockDetected: deadlock detected": 1,
        "django.db.utils.OperationalError: deadlock detected": 1,
    }


LOGGED = """ERROR:    Exception in ASGI application
Traceback (most recent call last):
  File "games/services/locking.py", line 58, in table_lock_with_rules
psycopg.errors.DeadlockDetected: deadlock detected
DETAIL:  Process 16644 waits for AccessExclusiveLock on tuple (0,3) of relation 19805 of database 19471.

The above exception was the direct cause of the following exception:

django.db.utils.OperationalError: deadlock detected
"""
