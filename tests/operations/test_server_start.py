"""What the web server's application does once at start-up (config/asgi.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _after_start(expression: str) -> str:
    """``expression`` printed by a fresh interpreter that has loaded the web server's application."""
    code = f"import gc, config.asgi; print({expression})"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.strip().splitlines()[-1]


def test_the_start_up_objects_are_kept_out_of_the_collectors_full_passes() -> None:
    assert int(_after_start("gc.get_freeze_count()")) > 50_000  # Django, the apps and the views


def test_the_collector_waits_for_many_new_objects_before_a_pass() -> None:
    young, *_ = (int(n) for n in _after_start("' '.join(map(str, gc.get_threshold()))").split())
    assert young >= 10_000
