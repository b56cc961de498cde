"""Uniformity of the cut's public shuffle (engine/verify.py ``cut_order``): a benchmark, not a test.

Deals N permutations of scheme "merkle-sha256-cut-v2" (docs/fairness.md) from random roots, table ids and deal
numbers, each with zero to three cuts that are SHA-256 of random 256-byte signatures (a cut's value is the hash of
its signature: random bytes stand in for the signatures of keys nobody knows), counts where each committed
position was dealt (a 52 x 52 table), and prints Pearson's chi-squared statistic beside its 99% bound for
(52 - 1) * (52 - 1) = 2601 degrees of freedom (both margins fixed) (Wilson-Hilferty). The engine's own
implementation is checked to deal the same order on the first permutations.

    python bench/cut_uniformity.py [N]   (default 100000)
"""

from __future__ import annotations

import math
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hashlib  # noqa: E402

import engine  # noqa: E402
from engine import verify  # noqa: E402

DECK = 52
Z99 = 2.3263478740408408  # the standard normal's 99% quantile


def chi_squared_bound(dof: int, z: float = Z99) -> float:
    """Wilson-Hilferty: the chi-squared quantile with ``dof`` degrees of freedom at the normal quantile ``z``."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def main(n: int) -> None:
    counts = [[0] * DECK for _ in range(DECK)]  # committed position -> dealt index
    started = time.perf_counter()
    for k in range(n):
        cuts = sorted(hashlib.sha256(secrets.token_bytes(256)).hexdigest()[:32] for _ in range(secrets.randbelow(4)))
        root, table_id, deal = secrets.token_hex(32), secrets.randbelow(2**20), 1 + secrets.randbelow(2**20)
        order = verify.cut_order(root, cuts, verify.SCHEME_CUT_V2, table_id, deal)
        if k < 1000:
            same = engine.cut_order(root, cuts, scheme=engine.SCHEME_CUT_V2, table_id=table_id, deal=deal)
            assert list(same) == order, "engine and verify.py disagree"
        for dealt, position in enumerate(order):
            counts[position][dealt] += 1
    seconds = time.perf_counter() - started
    expected = n / DECK
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    dof = (DECK - 1) * (DECK - 1)  # every row sums to N and every column to N: (52 - 1)(52 - 1) = 2601 free cells
    bound = chi_squared_bound(dof)
    print(f"permutations: {n} ({seconds:.1f} s, {n / seconds:.0f} a second)")
    print(
        f"chi-squared over the 52 x 52 dealt-position counts: {chi2:.1f}  (99% bound for {dof} degrees "
        f"of freedom: {bound:.1f}; mean {dof})  -> {'uniform at 99%' if chi2 < bound else 'ABOVE the bound'}"
    )
    lo = min(min(r) for r in counts)
    hi = max(max(r) for r in counts)
    print(f"each cell expected {expected:.1f}; seen from {lo} to {hi}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
