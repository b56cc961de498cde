"""The production image builds: `collectstatic` under the production settings (as the Dockerfile
runs it) collects every static file with hashed names and a manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
import django
from django.core.management import call_command
from django.test.utils import override_settings

django.setup()
with override_settings(STATIC_ROOT=sys.argv[1]):
    call_command("collectstatic", "--noinput", verbosity=0)
"""


def test_collectstatic_under_the_production_settings(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "build-only-" * 6,
        "DATABASE_URL": "postgresql://build@localhost/build",
        "REDIS_URL": "redis://localhost:6379/0",
    }
    env.pop("DATABASE_OWNER_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    for source in (ROOT / "static").rglob("*"):
        if source.is_file():
            name = source.relative_to(ROOT / "static").as_posix()
            assert name in manifest, name
            assert (tmp_path / manifest[name]).is_file(), name
    chart = (tmp_path / manifest["vendor/chartjs/chart.umd.min.js"]).read_text()
    assert "window.Chart" in chart
    assert (tmp_path / (manifest["vendor/chartjs/chart.umd.min.js"] + ".gz")).is_file()  # whitenoise compressed it
