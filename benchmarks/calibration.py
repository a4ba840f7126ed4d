"""Issue 37 item 3: calibration against dp_accounting's ``calibrate_dp_mechanism``.

σ of DP-SGD (``dpsgd(noise=x, rate=q, steps=T)``) for a target (ε, δ 1e-5) on the grid
resolution·Z: certdp's ``calibrate`` (optimal on the grid, both neighbouring facts
certified) against ``mechanism_calibration.calibrate_dp_mechanism`` with dp_accounting's
PLD accountant (default discretisation) and ``tol`` = the resolution, starting from the
bracket guess (0, 1).  Both run in one process, interleaved, ``--repeat`` rounds; CPU time
(``process_time``) and wall time, and how many default (narrowed) certdp answers were
needed.  Default cases: ε 1, q 0.01, T 1000; and the 60-epoch MNIST case (ε 3,
q 256/60000, T 14063).  Run with ``PYTHONPATH=<tree>`` to measure another certdp tree.

Run: python benchmarks/calibration.py [--cases "eps,q,T;..."] [--resolution 0.001] [--repeat 1]
"""
from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction

import dp_accounting
from dp_accounting import mechanism_calibration as mc
from dp_accounting.pld import pld_privacy_accountant

import certdp.analyses.calibrate as cal


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="1,0.01,1000;3,256/60000,14063")
    ap.add_argument("--resolution", default="0.001")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    calls = [0]
    real = cal.delta_of

    def counting(*args, **kw):
        calls[0] += 1
        return real(*args, **kw)

    cal.delta_of = counting
    print("| ε | q | T | certdp σ (optimal) | default answers | certdp CPU / wall | dp_accounting σ "
          "| dp_accounting CPU / wall | ratio CPU (wall) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in a.cases.split(";"):
        eps, q, T = case.split(",")
        rows = []
        for _ in range(a.repeat):
            calls[0] = 0
            c0, w0 = time.process_time(), time.perf_counter()
            r = cal.calibrate(f"dpsgd(noise=x, rate={q}, steps={T})", "x", eps=eps, delta="1e-5",
                              resolution=a.resolution)
            c1, w1 = time.process_time(), time.perf_counter()
            d = mc.calibrate_dp_mechanism(
                pld_privacy_accountant.PLDAccountant,
                lambda s: dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(
                    float(Fraction(q)), dp_accounting.GaussianDpEvent(s)), int(T)),
                float(eps), 1e-5, mc.LowerEndpointAndGuess(0, 1), tol=float(Fraction(a.resolution)))
            c2, w2 = time.process_time(), time.perf_counter()
            rows.append((r, calls[0], c1 - c0, w1 - w0, d, c2 - c1, w2 - w1))
        r, n = rows[0][0], rows[0][1]
        med = [statistics.median(x[i] for x in rows) for i in (2, 3, 5, 6)]
        print(f"| {eps} | {q} | {T} | {r.value} ({r.optimal}) | {n} | {med[0]:.2f} / {med[1]:.2f} s "
              f"| {rows[0][4]:.5f} | {med[2]:.2f} / {med[3]:.2f} s | **{med[0] / med[2]:.2f}×** "
              f"({med[1] / med[3]:.2f}×) |", flush=True)


if __name__ == "__main__":
    main()
