"""The order the suite runs in: the longest test files first.

`scripts/dev.py test` hands whole files to the xdist workers (`--dist loadfile`) in this order, so the
long files (browser tests, real workers, property tests) start early and the short ones fill the end,
instead of one long file starting last and keeping a single worker busy alone. A file's length is its
seconds in `tests/durations.json`; a file not listed there counts a second per test. Tests inside a
file keep their order.

`--store-durations` writes the files measured by a run back into `tests/durations.json`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DURATIONS = Path(__file__).with_name("durations.json")
SECONDS_PER_UNLISTED_TEST = 1.0

_measured: Counter[str] = Counter()


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def known_seconds() -> dict[str, float]:
    if not DURATIONS.exists():
        return {}
    return {str(path): float(seconds) for path, seconds in json.loads(DURATIONS.read_text()).items()}


def longest_files_first(items: list[pytest.Item]) -> None:
    known = known_seconds()
    tests_per_file = Counter(file_of(item.nodeid) for item in items)
    seconds = {path: known.get(path, count * SECONDS_PER_UNLISTED_TEST) for path, count in tests_per_file.items()}
    items.sort(key=lambda item: -seconds[file_of(item.nodeid)])  # a stable sort keeps each file's own order


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help="write each test file's seconds in this run into tests/durations.json (the order of the suite)",
    )


def storing(config: pytest.Config) -> bool:
    """Only the process that sees every report stores: xdist's controller, or the one process of a plain run."""
    return bool(config.getoption("--store-durations")) and not hasattr(config, "workerinput")


def measure(report: pytest.TestReport) -> None:
    _measured[file_of(report.nodeid)] += report.duration


def store() -> None:
    durations: dict[str, Any] = {**known_seconds(), **{path: round(s, 1) for path, s in _measured.items()}}
    DURATIONS.write_text(json.dumps(dict(sorted(durations.items())), indent=1) + "\n")
