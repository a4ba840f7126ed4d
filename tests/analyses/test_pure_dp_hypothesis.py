"""Hypothesis search for inputs where the engine's eps enclosure of a k-fold pure-DP
composition misses the exact value (binomial closed form, Kairouz et al. 2015 /
seed 002 Lemma 32), including eps0 so large that the negative losses are truncated."""

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.analyses.dispatch import eps_of
from certdp.mechanisms.spec import parse_spec


def _delta(eps, eps0, k):
    p = mpmath.exp(eps0) / (1 + mpmath.exp(eps0))
    return mpmath.fsum(mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i
                       * max(1 - mpmath.exp(eps - (k - 2 * i) * eps0), 0) for i in range(k + 1))


def _eps_star(delta, eps0, k):
    lo, hi = mpmath.mpf(0), mpmath.mpf(k) * eps0
    if _delta(lo, eps0, k) <= delta:
        return lo
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _delta(mid, eps0, k) <= delta else (mid, hi)
    return hi


@settings(max_examples=25, deadline=None)
@given(eps0=st.sampled_from(["1/10", "1/2", "1", "3", "10", "30", "50", "80"]), k=st.integers(1, 6),
       delta=st.sampled_from(["1e-12", "1e-6", "1e-3", "0.1"]))
def test_engine_contains_the_exact_eps(eps0, k, delta):
    with mpmath.workdps(60):
        e0 = mpmath.mpf(Fraction(eps0).numerator) / Fraction(eps0).denominator
        truth = _eps_star(mpmath.mpf(delta), e0, k)
        enc = eps_of(parse_spec(f"compose(pure_dp(eps={eps0}), k={k})" if k > 1 else f"pure_dp(eps={eps0})"),
                     delta).enclosure
        lo, hi = mpmath.mpf(enc.lo_str(50)), mpmath.mpf(enc.hi_str(50))
        assert lo - mpmath.mpf(10) ** -40 <= truth <= hi + mpmath.mpf(10) ** -40, (eps0, k, delta, enc, truth)
