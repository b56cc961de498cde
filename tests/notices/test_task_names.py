"""The notices' Celery tasks moved to notices/tasks.py under the names they had in games/tasks.py: messages
queued before a deploy, beat's schedule and the routes still find them. A service that sends a task by name
(kernel/task_ref.py) names a registered one."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

from config.celery import app

ROOT = Path(__file__).resolve().parents[2]

# Every task the site registered before the notices moved out of games (commit a2c0763).
NAMES = {
    "clubdata.tasks.club_import_run",  # added later: an organiser's club import, on its own queue
    "games.tasks.computer_turn",
    "games.tasks.deal_after_cut_wait",
    "games.tasks.hand_alarm",
    "games.tasks.push_notice",
    "games.tasks.send_daily_digests",
    "games.tasks.sweep_due_notices",
    "games.tasks.sweep_overdue_turns",
    "operations.tasks.nightly_backup",
    "operations.tasks.verify_books",
}
MOVED = {"games.tasks.push_notice", "games.tasks.send_daily_digests", "games.tasks.sweep_due_notices"}


def _registered() -> dict[str, str]:
    app.loader.import_default_modules()  # what a worker imports at its start (autodiscovery)
    return {name: task.__module__ for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_the_task_names_are_unchanged() -> None:
    registered = _registered()
    assert set(registered) == NAMES
    assert {name for name, module in registered.items() if module == "notices.tasks"} == MOVED


def test_beat_and_the_routes_name_registered_tasks() -> None:
    registered = _registered()
    assert {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} <= set(registered)
    assert set(getattr(settings, "CELERY_TASK_ROUTES", {})) <= set(registered)


def _sent_by_name() -> set[str]:
    names = set()
    for app_dir in ("kernel", "games", "notices", "clubhouse", "clubdata", "operations", "ledger", "accounts"):
        for path in (ROOT / app_dir).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "TaskRef" and node.args:
                    arg = node.args[0]
                    assert isinstance(arg, ast.Constant), f"{path}: a task is named by a string"
                    names.add(str(arg.value))
    return names


def test_each_task_sent_by_name_is_registered() -> None:
    sent = _sent_by_name()
    assert "games.tasks.push_notice" in sent
    assert sent <= set(_registered())
