"""The README's test command runs the suite on every core (pytest-xdist, one worker more than the cores), and
the tests a developer names in one process."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _dev():
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_whole_suite_and_a_selection_run_on_every_core_whole_files_the_longest_first():
    dev = _dev()
    workers = (os.cpu_count() or 1) + 1  # one more than the cores: it fills the long tests' waits
    spread = ["-n", str(workers), "--dist", "loadfile", "--no-loadscope-reorder"]
    assert dev.on_every_core([]) == spread
    assert dev.on_every_core(["-q", "-x", "-p", "no:randomly"]) == [*spread, "-q", "-x", "-p", "no:randomly"]
    assert dev.on_every_core(["-k", "ledger"]) == [*spread, "-k", "ledger"]


def test_named_tests_and_a_chosen_count_run_as_asked():
    dev = _dev()
    named = ["tests/test_architecture.py::test_no_import_circle", "-q"]
    assert dev.on_every_core(named) == named
    assert dev.on_every_core(["-n", "4"]) == ["-n", "4"]
    assert dev.on_every_core(["--dist", "load"]) == ["--dist", "load"]
    assert dev.on_every_core(["-p", "no:xdist"]) == ["-p", "no:xdist"]
