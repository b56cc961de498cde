"""A Celery task named by its registered name, for the service that sends it: the task's module imports the
service, so the service must not import the task's module back (no import circle, counting imports inside
functions: tests/test_architecture.py). The message is the one ``apply_async`` sends: the same name, routes
and options; tests/test_tasks.py checks that each name is a registered task."""

from __future__ import annotations

from typing import Any

from celery import current_app
from celery.result import AsyncResult


class TaskRef:
    """``TaskRef("games.tasks.hand_alarm").apply_async(kwargs=..., eta=...)``: sends that task's message."""

    def __init__(self, name: str) -> None:
        self.name = name

    def apply_async(
        self, args: tuple[Any, ...] | list[Any] = (), kwargs: dict[str, Any] | None = None, **options: Any
    ) -> AsyncResult:
        return current_app.send_task(self.name, args=args, kwargs=kwargs, **options)

    def __repr__(self) -> str:
        return f"TaskRef({self.name!r})"
