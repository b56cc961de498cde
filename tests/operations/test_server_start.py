"""What the web server's application does once at start-up (config/asgi.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_start_up_objects_are_kept_out_of_the_collectors_full_passes() -> None:
    code = "import gc, config.asgi; print(gc.get_freeze_count())"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    assert int(out.stdout.strip().splitlines()[-1]) > 50_000  # Django, the apps and the views
