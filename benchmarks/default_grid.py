"""Issue 37 item 2: at default settings, every cell of the DP-SGD grid against
dp_accounting's default PLD accountant.

Cells: σ × q × T (default σ ∈ {0.3, 0.5, 0.8, 1.1, 2, 9.4, 20}, q ∈ {1e-4, 0.001, 0.01,
0.32768, 1}, T ∈ {10², 10⁴, 10⁵, 10⁶}), ε at δ 1e-5.  Per cell, in one process and
interleaved (dp_accounting, then certdp, ``--repeat`` rounds, medians): dp_accounting's
``PLDAccountant()`` (its default discretisation) on
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``, and certdp's
``dpsgd(σ, q, T, delta=1e-5)`` (two-sided, default width target) and, with ``--upper``,
``two_sided=False``.  CPU time (``process_time``) and wall time; prefer the CPU ratios on a
shared machine.  Target: no cell above 1× (two-sided).

Run: python benchmarks/default_grid.py [--sigmas 0.3,0.5,...] [--rates 1e-4,...] [--steps 100,...]
     [--repeat 1] [--upper]
Prints one Markdown row per cell as it finishes (the T = 10⁶ cells take minutes each).
"""
from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from certdp.analyses.accountants.dpsgd import dpsgd


def timed(f):
    c0, w0 = time.process_time(), time.perf_counter()
    v = f()
    return v, time.process_time() - c0, time.perf_counter() - w0


def dpa(sigma: str, q: str, T: int) -> str:
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(float(Fraction(q)), dp_accounting.GaussianDpEvent(float(sigma))), T))
    return f"{acc.get_epsilon(1e-5):.6g}"


def cd(sigma: str, q: str, T: int, two_sided: bool) -> str:
    r = dpsgd(Fraction(sigma), Fraction(q), T, delta=Fraction(1, 10**5), two_sided=two_sided)
    return str(r.eps) if two_sided else f"<= {float(r.eps.hi):.6g}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigmas", default="0.3,0.5,0.8,1.1,2,9.4,20")
    ap.add_argument("--rates", default="1/10000,1/1000,1/100,0.32768,1")
    ap.add_argument("--steps", default="100,10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--upper", action="store_true", help="also certdp's upper bound alone")
    a = ap.parse_args()
    dpa("1", "0.01", 10)  # warm-up: imports, tables
    cd("1", "0.01", 10, True)
    head = "| σ | q | T | dp_accounting ε (CPU / wall) | certdp ε (CPU / wall) | ratio CPU (wall) |"
    if a.upper:
        head += " certdp upper (CPU / wall) | ratio CPU (wall) |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for T in (int(t) for t in a.steps.split(",")):
        for sigma in a.sigmas.split(","):
            for q in a.rates.split(","):
                tools = {"dpa": lambda: dpa(sigma, q, T), "two": lambda: cd(sigma, q, T, True)}
                if a.upper:
                    tools["upper"] = lambda: cd(sigma, q, T, False)
                runs: dict = {t: [] for t in tools}
                for _ in range(a.repeat):
                    for name, f in tools.items():
                        runs[name].append(timed(f))
                med = {t: (r[0][0], statistics.median(x[1] for x in r), statistics.median(x[2] for x in r))
                       for t, r in runs.items()}
                d = med["dpa"]
                row = [sigma, q, str(T), f"{d[0]} ({d[1]:.3f} / {d[2]:.3f} s)"]
                for t in [t for t in ("two", "upper") if t in med]:
                    v = med[t]
                    row += [f"{v[0]} ({v[1]:.3f} / {v[2]:.3f} s)", f"**{v[1] / d[1]:.2f}×** ({v[2] / d[2]:.2f}×)"]
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
