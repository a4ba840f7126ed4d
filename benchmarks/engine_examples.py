"""The generic engine's examples (issue 16) against dp_accounting's PLD accountant (default grid),
in one process: Laplace compositions, Poisson-subsampled Laplace, the DP-SGD main example through the
router at its default width (narrowing passes included).  Needs dp-accounting.  Run: python benchmarks/engine_examples.py (best of REPEAT=2 runs, interleaved; wall and CPU time)"""
import os, time
from fractions import Fraction
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
from certdp.analyses.dispatch import narrowed_epsilon
from certdp.mechanisms.spec import parse_spec

REPEAT = int(os.environ.get("REPEAT", "2"))  # best of REPEAT runs (this machine's times vary by +-30 %)

def dpa(ev, delta, disc=1e-4):
    t=time.perf_counter(); c=time.process_time(); acc=pld_privacy_accountant.PLDAccountant(value_discretization_interval=disc)
    acc.compose(ev); e=acc.get_epsilon(delta); return e, time.perf_counter()-t, time.process_time()-c
def cd(spec, k, delta):
    """The router's answer at the default width (the narrowing passes included)."""
    t=time.perf_counter(); c=time.process_time(); e,_=narrowed_epsilon([(parse_spec(spec),k)], delta)
    return e, time.perf_counter()-t, time.process_time()-c
for name, spec, k, ev, delta in [
  ("Laplace(5) x50", "laplace(scale=5)", 50, dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(5),50), 1e-4),
  ("Laplace(5) x1000", "laplace(scale=5)", 1000, dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(5),1000), 1e-4),
  ("Poisson(1/10) Laplace(1) x10", "subsample(laplace(scale=1), rate=1/10)", 10, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1)),10), 1e-5),
  ("Poisson(1/10) Laplace(1) x2000", "subsample(laplace(scale=1), rate=1/10)", 2000, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1)),2000), 1e-5),
  ("DP-SGD 0.6, 256/60000, 7031", "subsample(gaussian(sigma=0.6), rate=256/60000)", 7031, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(256/60000, dp_accounting.GaussianDpEvent(0.6)),7031), 1e-5),
]:
    runs=[(dpa(ev,delta), cd(spec,k,Fraction(delta).limit_denominator(10**12))) for _ in range(REPEAT)]
    e1,t1=runs[0][0][0], min(r[0][1] for r in runs); c,tc=runs[0][1][0], min(r[1][1] for r in runs)
    u1, uc = min(r[0][2] for r in runs), min(r[1][2] for r in runs)  # CPU: prefer it on a shared machine
    print(f"| {name} | δ={delta} | {e1:.5f} ({t1:.2f} s wall, {u1:.2f} s CPU) | {c} ({tc:.2f} s wall, x{tc/t1:.1f}; "
          f"{uc:.2f} s CPU, x{uc/u1:.1f}) |", flush=True)
