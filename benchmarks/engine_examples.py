"""The generic engine's examples (issue 16) against dp_accounting's PLD accountant (default grid),
in one process: Laplace compositions, Poisson-subsampled Laplace, the DP-SGD main example through the
router at its default width (narrowing passes included).  Needs dp-accounting.  Run: python benchmarks/engine_examples.py"""
import time
from fractions import Fraction
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
from certdp.analyses.dispatch import narrowed_epsilon
from certdp.mechanisms.spec import parse_spec

def dpa(ev, delta, disc=1e-4):
    t=time.perf_counter(); acc=pld_privacy_accountant.PLDAccountant(value_discretization_interval=disc)
    acc.compose(ev); e=acc.get_epsilon(delta); return e, time.perf_counter()-t
def cd(spec, k, delta):
    """The router's answer at the default width (the narrowing passes included)."""
    t=time.perf_counter(); e,_=narrowed_epsilon([(parse_spec(spec),k)], delta); return e, time.perf_counter()-t
for name, spec, k, ev, delta in [
  ("Laplace(5) x50", "laplace(scale=5)", 50, dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(5),50), 1e-4),
  ("Laplace(5) x1000", "laplace(scale=5)", 1000, dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(5),1000), 1e-4),
  ("Poisson(1/10) Laplace(1) x10", "subsample(laplace(scale=1), rate=1/10)", 10, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1)),10), 1e-5),
  ("Poisson(1/10) Laplace(1) x2000", "subsample(laplace(scale=1), rate=1/10)", 2000, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1)),2000), 1e-5),
  ("DP-SGD 0.6, 256/60000, 7031", "subsample(gaussian(sigma=0.6), rate=256/60000)", 7031, dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(256/60000, dp_accounting.GaussianDpEvent(0.6)),7031), 1e-5),
]:
    e1,t1=dpa(ev,delta); c,tc=cd(spec,k,Fraction(delta).limit_denominator(10**12))
    print(f"| {name} | δ={delta} | {e1:.5f} ({t1:.2f} s) | {c} ({tc:.2f} s, x{tc/t1:.1f}) |", flush=True)
