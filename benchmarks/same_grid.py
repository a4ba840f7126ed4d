"""Issue 37 item 1: the certification overhead at the same grid step h.

certdp's PLD accountant at a fixed grid step h (``PLDAccountant(h=h)``: two-sided, i.e.
upper and lower PLDs outward rounded, and ``lower=False``, the upper bound alone) against
dp_accounting's ``PLDAccountant(value_discretization_interval=h)`` (one float PLD), on
DP-SGD (``PoissonSampledDpEvent(q, GaussianDpEvent(σ))`` × T, ε at δ 1e-5).  The runs are
interleaved in one process (per round: dp_accounting, certdp two-sided, certdp upper, in
that order, every h), after one warm-up of each; medians over ``--repeat`` rounds of CPU
time (``process_time``) and wall time (``perf_counter``).  Prefer the CPU ratios: the
machine is shared.  Targets: two-sided <= 1.5x, upper alone <= 1x dp_accounting.

Run: python benchmarks/same_grid.py [--sigma 1.1] [--rate 0.01] [--steps 1000]
     [--grids 256,1024,4096,16384] [--repeat 3]
Prints a Markdown table (docs/bench.md).
"""
from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian


def timed(f):
    c0, w0 = time.process_time(), time.perf_counter()
    v = f()
    return v, time.process_time() - c0, time.perf_counter() - w0


def dpa(sigma: str, q: str, T: int, h: int):
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1 / h)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(float(Fraction(q)), dp_accounting.GaussianDpEvent(float(sigma))), T))
    return f"{acc.get_epsilon(1e-5):.6f}"


def certdp(sigma: str, q: str, T: int, h: int, lower: bool):
    acc = PLDAccountant(h=Fraction(1, h), lower=lower).compose(SubsampledGaussian(Fraction(sigma), Fraction(q)), T)
    e = acc.epsilon(Fraction(1, 10**5))
    return str(e) if lower else f"<= {float(e.hi):.6f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigma", default="1.1")
    ap.add_argument("--rate", default="0.01")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--grids", default="256,1024,4096,16384", help="1/h values")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    grids = [int(x) for x in a.grids.split(",")]
    tools = {"dp_accounting": lambda h: dpa(a.sigma, a.rate, a.steps, h),
             "two-sided": lambda h: certdp(a.sigma, a.rate, a.steps, h, True),
             "upper": lambda h: certdp(a.sigma, a.rate, a.steps, h, False)}
    for f in tools.values():  # warm-up: imports, tables
        f(64)
    runs: dict = {(t, h): [] for t in tools for h in grids}
    for _ in range(a.repeat):
        for h in grids:
            for name, f in tools.items():
                runs[(name, h)].append(timed(lambda: f(h)))
    print(f"σ {a.sigma}, q {a.rate}, T {a.steps}, δ 1e-5; medians of {a.repeat} interleaved rounds\n")
    print("| h | dp_accounting ε (CPU / wall) | certdp two-sided ε (CPU / wall) | ratio CPU (wall) "
          "| certdp upper ε (CPU / wall) | ratio CPU (wall) |")
    print("|---|---|---|---|---|---|")
    for h in grids:
        med = {t: (runs[(t, h)][0][0], statistics.median(r[1] for r in runs[(t, h)]),
                   statistics.median(r[2] for r in runs[(t, h)])) for t in tools}
        d = med["dp_accounting"]
        cells = [f"1/{h}", f"{d[0]} ({d[1]:.3f} / {d[2]:.3f} s)"]
        for t in ("two-sided", "upper"):
            v = med[t]
            cells += [f"{v[0]} ({v[1]:.3f} / {v[2]:.3f} s)", f"**{v[1] / d[1]:.2f}×** ({v[2] / d[2]:.2f}×)"]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
