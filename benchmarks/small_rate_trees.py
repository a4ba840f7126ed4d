"""Issue 37 item 2: one certdp tree's CPU time on DP-SGD cells (default two-sided answer,
ε at δ 1e-5), to compare trees (run it once per tree, alternating, with PYTHONPATH).

Run: PYTHONPATH=<tree> python benchmarks/small_rate_trees.py σ:q:T [σ:q:T ...] [--repeat 5]
Prints one line per cell: the cell, the enclosure, the best CPU time of ``--repeat`` calls
(after one warm-up answer).
"""
from __future__ import annotations

import argparse
import time
from fractions import Fraction

from certdp.analyses.accountants.dpsgd import dpsgd


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cells", nargs="+", help="σ:q:T, e.g. 9.4:1/1000:10000")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    dpsgd(Fraction(1), Fraction(1, 100), 10, delta=Fraction(1, 10**5))  # warm-up
    for cell in a.cells:
        s, q, T = cell.split(":")
        best, enc = float("inf"), None
        for _ in range(a.repeat):
            t = time.process_time()
            enc = dpsgd(Fraction(s), Fraction(q), int(T), delta=Fraction(1, 10**5)).eps
            best = min(best, time.process_time() - t)
        print(cell, enc, f"{best:.4f}", flush=True)


if __name__ == "__main__":
    main()
