"""Benchmarks (run with ``certdp bench NAME``); kept apart from the tests.

``gdp``: median wall time per ``delta_mu`` call (default accuracy, relative
width <= 1e-15) and per ``mu_from_eps_delta`` call (width 1e-12) over a fixed
set of inputs spanning the supported range.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

#: Fixed inputs: (μ, ε) for δ_μ(ε), spanning μ ∈ [1e-3, 50], ε ∈ [0, 1e4].
DELTA_MU_INPUTS = [
    ("0.5", "1"), ("1", "1"), ("1", "0"), ("2", "3"), ("6", "100"), ("6", "200"),
    ("0.001", "0.01"), ("0.001", "10000"), ("0.1", "50"), ("50", "0"), ("50", "1000"),
    ("3", "10000"), ("1.5", "7.25"), ("0.27", "1"), ("10", "20"), ("0.05", "2"),
]
#: Fixed inputs: (ε, δ) for μ_GDP(ε, δ) (seed 003 Table 3 grid plus extremes).
MU_INPUTS = [
    (e, d)
    for e in ("0.1", "0.5", "1", "2", "4", "6", "8", "10")
    for d in ("1e-5", "1e-6", "1e-9")
] + [("0", "0.5"), ("100", "1e-30"), ("0.01", "0.9")]


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_gdp(repeat: int = 20) -> list[dict]:
    """Median seconds per call for each input, for delta_mu and mu_from_eps_delta."""
    from certdp.numerics.gdp import delta_mu, mu_from_eps_delta

    rows = []
    for mu, eps in DELTA_MU_INPUTS:
        rows.append({"function": "delta_mu", "args": f"mu={mu}, eps={eps}",
                     "seconds": _median_time(lambda: delta_mu(mu, eps), repeat)})
    for eps, delta in MU_INPUTS:
        rows.append({"function": "mu_from_eps_delta", "args": f"eps={eps}, delta={delta}",
                     "seconds": _median_time(lambda: mu_from_eps_delta(eps, delta), max(3, repeat // 4))})
    return rows


def summarize(rows: list[dict]) -> dict[str, float]:
    """Median over inputs of the per-input median time, per function."""
    out: dict[str, list[float]] = {}
    for r in rows:
        out.setdefault(r["function"], []).append(r["seconds"])
    return {k: statistics.median(v) for k, v in out.items()}


BENCHMARKS: dict[str, Callable[..., list[dict]]] = {"gdp": bench_gdp}
