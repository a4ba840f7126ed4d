"""One-step PLDs of the Poisson-subsampled Gaussian: the float-vector constructions
(certdp.analyses.accountants.mixture_vec, the default) against the arb ones, same grid,
same coarse tails (theta = 1e-16, as the accountant uses at tau = 1e-14), best of REPEAT
runs each.  Prints a Markdown table: grid points, seconds, and the relative gap of
F_eps (the float one is the looser bound by construction; the gap is what its
float cell ends and radii cost).  Run: python benchmarks/one_step.py"""
import os, time
from fractions import Fraction as F
from flint import arb
from certdp.analyses.accountants.pld import SubsampledGaussian, lower_one_step, upper_one_steps

REPEAT = int(os.environ.get("REPEAT", "2"))
CASES = [(F(1, 2), F(1, 100), F(1, 4096)), (F(1, 2), F(1, 1000), F(1, 8192)),
         (F(11, 10), F(1, 1000), F(1, 4096)), (F(2), F(32768, 100000), F(1, 1024)), (F(1), F(1), F(1, 1000))]


def best(f):
    out = None
    ts = []
    for _ in range(REPEAT):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return out, min(ts)


def gap(a, b, e="0.5"):
    da, db = a.delta_ball(arb(e)), b.delta_ball(arb(e))
    return float(((da - db) / db).mid()) if db > 0 else float("nan")


upper_one_steps(SubsampledGaussian(F(1), F(1, 100)), F(1, 1024), 77, 8.5)  # warm-up: the anchor table
print("| σ | q | h | points (remove + add) | upper: float / arb | F_0.5 gap | lower (remove): float / arb | F_0.5 gap |")
print("|---|---|---|---|---|---|---|---|")
for s, q, h in CASES:
    sg = SubsampledGaussian(s, q)
    v, tv = best(lambda: upper_one_steps(sg, h, 77, 8.5, 1e-16))
    a, ta = best(lambda: upper_one_steps(sg, h, 77, 8.5, 1e-16, vectorised=False))
    lv, tlv = best(lambda: lower_one_step(sg.pair("remove"), h, 77, 8.5, 1e-16))
    la, tla = best(lambda: lower_one_step(sg.pair("remove"), h, 77, 8.5, 1e-16, vectorised=False))
    n = v["remove"].length + v["add"].length
    print(f"| {s} | {q} | {h} | {n} | {tv:.3f} s / {ta:.3f} s (x{ta / tv:.1f}) | {gap(v['remove'], a['remove']):.1e} "
          f"| {tlv:.3f} s / {tla:.3f} s (x{tla / tlv:.1f}) | {gap(lv, la):.1e} |", flush=True)
