"""The live wing's own counts, read from the site's ``GET /metrics`` (operations/metrics.py; loopback is
allowed by default) before and after a phase: what the server did per version and per socket, which the
bots cannot see. With several uvicorn workers the bench sets ``PROMETHEUS_MULTIPROC_DIR`` so that a scrape
adds up every worker's counts.

``LIVE`` names the counters the bench looks for, in one place; a counter the site does not expose is
printed as "not exposed".
"""

from __future__ import annotations

import urllib.request
from collections import defaultdict

from prometheus_client.parser import text_string_to_metric_families

APPLIED = ("club_actions_total", (("outcome", "applied"),))
LIVE = {
    "versions": "club_live_versions_total",  # versions published (one public frame each, to a table's group)
    "public renders": "club_live_public_renders_total",
    "private renders": "club_live_private_renders_total",
    "socket statements": "club_live_socket_statements_total",  # database statements a socket ran for a frame
    "socket renders": "club_live_socket_renders_total",  # renders a socket did for a frame
}

Sample = tuple[str, tuple[tuple[str, str], ...]]


def scrape(port: int) -> dict[Sample, float]:
    """Every sample of the site's /metrics on 127.0.0.1:``port``; {} when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=20) as response:  # noqa: S310 - loopback
            text = response.read().decode()
    except OSError:
        return {}
    out: dict[Sample, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = float(s.value)
    return out


def difference(before: dict[Sample, float], after: dict[Sample, float]) -> dict[str, float | None]:
    """Each counter of ``LIVE`` (summed over its labels) and the actions applied, counted between two
    scrapes; None for a counter not exposed."""
    totals: dict[str, float] = defaultdict(float)
    seen: set[str] = set()
    for (name, labels), value in after.items():
        seen.add(name)
        totals[name] += value - before.get((name, labels), 0.0)
    out: dict[str, float | None] = {key: (totals[name] if name in seen else None) for key, name in LIVE.items()}
    out["applied"] = after.get(APPLIED, 0.0) - before.get(APPLIED, 0.0) if APPLIED in after else None
    return out


def per_version(counts: dict[str, float | None], actions: int, sockets_per_table: int) -> dict[str, float | None]:
    """The issue's figures: public renders per table per version, private renders per action, and
    statements and renders per socket per version (None where the site exposes no count)."""
    versions = counts.get("versions") or counts.get("applied") or float(actions)

    def ratio(key: str, per: float) -> float | None:
        value = counts.get(key)
        return None if value is None or not per else value / per

    return {"public renders per version": ratio("public renders", versions),
            "private renders per action": ratio("private renders", float(actions)),
            "statements per socket per version": ratio("socket statements", versions * sockets_per_table),
            "renders per socket per version": ratio("socket renders", versions * sockets_per_table)}
