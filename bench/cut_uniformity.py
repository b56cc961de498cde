"""Uniformity of the cut's public shuffle (engine/verify.py ``cut_order``): a benchmark, not a test.

Deals N permutations from random roots and one to three random cuts each, counts where each committed
position was dealt (a 52 x 52 table), and prints Pearson's chi-squared statistic beside its 99% bound for
(52 - 1) * (52 - 1) = 2601 degrees of freedom (both margins fixed) (Wilson-Hilferty), and the same for the engine's implementation.

    python bench/cut_uniformity.py [N]   (default 100000)
"""

from __future__ import annotations

import math
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import verify  # noqa: E402

DECK = 52
Z99 = 2.3263478740408408  # the standard normal's 99% quantile


def chi_squared_bound(dof: int, z: float = Z99) -> float:
    """Wilson-Hilferty: the chi-squared quantile with ``dof`` degrees of freedom at the normal quantile ``z``."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def main(n: int) -> None:
    counts = [[0] * DECK for _ in range(DECK)]  # committed position -> dealt index
    started = time.perf_counter()
    for _ in range(n):
        cuts = [secrets.token_hex(16) for _ in range(1 + secrets.randbelow(3))]
        for dealt, position in enumerate(verify.cut_order(secrets.token_hex(32), cuts)):
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
