"""The README's test command runs the suite on every core (pytest-xdist), and the tests a developer names
in one process."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _dev():
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_whole_suite_and_a_selection_run_on_every_core():
    dev = _dev()
    assert dev.on_every_core([]) == ["-n", "auto"]
    assert dev.on_every_core(["-q", "-x", "-p", "no:randomly"]) == ["-n", "auto", "-q", "-x", "-p", "no:randomly"]
    assert dev.on_every_core(["-k", "ledger"]) == ["-n", "auto", "-k", "ledger"]


def test_named_tests_and_a_chosen_count_run_as_asked():
    dev = _dev()
    named = ["tests/test_architecture.py::test_no_import_circle", "-q"]
    assert dev.on_every_core(named) == named
    assert dev.on_every_core(["-n", "4"]) == ["-n", "4"]
    assert dev.on_every_core(["-p", "no:xdist"]) == ["-p", "no:xdist"]
