"""The live wing's own counts, read from the site's ``GET /metrics`` (operations/scrape.py; loopback is
allowed by default) before and after a phase: what the server did per version and per socket, which the
bots cannot see. With several uvicorn workers the bench sets ``PROMETHEUS_MULTIPROC_DIR`` so that a scrape
adds up every worker's counts.

``LIVE`` names the counters the bench looks for, in one place (the live wing counts them in kernel/metrics.py;
docs/live.md "Counters"); a counter the site does not expose is printed as "not exposed". A socket's own full
render on connect or ``sync`` counts as ``kind="sync"``, which the bench does not read.
"""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families

Sample = tuple[str, tuple[tuple[str, str], ...]]  # (sample name, its labels sorted)

APPLIED: Sample = ("club_actions_total", (("outcome", "applied"),))
# What the bench reads, by sample name and the labels a sample must carry (summed over any others). A
# labelled counter counts as exposed once its name is there: a label never used reads 0.
LIVE: dict[str, Sample] = {
    "versions": ("club_live_versions_total", ()),  # versions published (one public frame each)
    "public renders": ("club_live_renders_total", (("kind", "public"),)),  # by the publisher
    "private renders": ("club_live_renders_total", (("kind", "private"),)),  # by the publisher
    "socket renders": ("club_live_renders_total", (("kind", "socket"),)),  # by a socket for a group message
    "socket statements": ("club_live_socket_statements_total", ()),  # statements a socket ran for one
}


def scrape(port: int) -> dict[Sample, float]:
    """Every sample of the site's /metrics on 127.0.0.1:``port``; {} when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=20) as response:  # noqa: S310 - loopback
            text = response.read().decode()
    except OSError:
        return {}
    return parse(text)


def parse(text: str) -> dict[Sample, float]:
    """The samples of a Prometheus exposition text."""
    out: dict[Sample, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = float(s.value)
    return out


def difference(before: dict[Sample, float], after: dict[Sample, float]) -> dict[str, float | None]:
    """Each counter of ``LIVE`` and the actions applied, counted between two scrapes; None for a counter
    the site does not expose."""
    names = {name for name, _ in after}

    def counted(wanted: Sample) -> float | None:
        name, labels = wanted
        if name not in names:
            return None
        return sum(
            value - before.get(sample, 0.0)
            for sample, value in after.items()
            if sample[0] == name and set(labels) <= set(sample[1])
        )

    out = {key: counted(wanted) for key, wanted in LIVE.items()}
    out["applied"] = counted(APPLIED)
    return out


def per_version(counts: dict[str, float | None], actions: int, sockets_per_table: int) -> dict[str, float | None]:
    """The issue's figures: public renders per table per version, private renders per action, and
    statements and renders per socket per version (None where the site exposes no count)."""
    applied = counts.get("applied") or float(actions)
    versions = counts.get("versions") or applied

    def ratio(key: str, per: float) -> float | None:
        value = counts.get(key)
        return None if value is None or not per else value / per

    return {
        "public renders per version": ratio("public renders", versions),
        "private renders per action": ratio("private renders", applied),
        "statements per socket per version": ratio("socket statements", versions * sockets_per_table),
        "renders per socket per version": ratio("socket renders", versions * sockets_per_table),
    }
