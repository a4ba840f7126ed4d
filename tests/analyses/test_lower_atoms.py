"""The lower discretisation of a loss law with atoms and a continuous part (subsampled
Laplace) against an independent truth: δ of the one- and two-fold composition by mpmath
quadrature in x-space, the pair written out by hand from seed 002 Thm 11(1) (not from
certdp's loss laws).  The engine's one-step measures are composed here by exact
integer convolution and evaluated in mpmath, so only the discretisation is under test.

The atoms of a subsampled Laplace step (68 % of its mass at rate 1/10) are merged with
continuous mass beside them so that the merged loss lands just above a grid point
(discretise._atom_region); before, each atom moved down by up to h per step and the
2000-fold composition's ε enclosure was 0.31 wide at h = 1/2048.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from certdp.analyses.accountants.discretise import law_source, one_step
from certdp.analyses.accountants.pld import PLDAccountant
from certdp.mechanisms import parse_spec
from refs import mpf

BITS = 90


class _Mix:
    """A mixture Σ w·Lap(μ, b): density and exact mass of an interval (Laplace CDF)."""

    def __init__(self, b, comps):
        self.b, self.comps = b, comps

    def __call__(self, x):
        return mpmath.fsum(w * mpmath.exp(-abs(x - m) / self.b) / (2 * self.b) for w, m in self.comps)

    def cdf(self, x):
        if x == mpmath.inf:
            return mpmath.mpf(1)
        if x == -mpmath.inf:
            return mpmath.mpf(0)
        return mpmath.fsum(w * (mpmath.exp((x - m) / self.b) / 2 if x < m else 1 - mpmath.exp(-(x - m) / self.b) / 2)
                           for w, m in self.comps)

    def mass(self, a, c):
        return self.cdf(c) - self.cdf(a)


def _pair(b, g, relation):
    """x-space pair of the Poisson-subsampled Laplace mechanism (seed 002 Thm 11(1)):
    remove (γ·Lap(1) + (1−γ)·Lap(0), Lap(0)); add (Lap(0), (1−γ)Lap(0) + γLap(1)),
    mirrored to (Lap(0), (1−γ)Lap(0) + γLap(−1)).  The ratio is constant outside
    (0, 1) (remove) or (−1, 0) (add) and monotone inside."""
    if relation == "remove":
        return _Mix(b, [(g, 1), (1 - g, 0)]), _Mix(b, [(1, 0)]), (0, 1)
    return _Mix(b, [(1, 0)]), _Mix(b, [(1 - g, 0), (g, -1)]), (-1, 0)


def _root(fn, lo, hi):
    """The sign change of a monotone function on (lo, hi) (bisection to the working precision)."""
    a, c = mpmath.mpf(lo), mpmath.mpf(hi)
    fa = fn(a)
    for _ in range(mpmath.mp.prec + 4):
        m = (a + c) / 2
        if (fn(m) > 0) == (fa > 0):
            a = m
        else:
            c = m
    return (a + c) / 2


def _delta1(f, q, lo_hi, t):
    """∫ (f − e^t q)⁺ dx: constant ratio outside (lo, hi), one sign change inside;
    every piece integrated exactly (Laplace CDFs)."""
    lo, hi = lo_hi
    et = mpmath.exp(t)
    out = mpmath.mpf(0)
    for a, b, x in ((-mpmath.inf, lo, lo - 1), (hi, mpmath.inf, hi + 1)):
        r = f(x) / q(x)
        if r > et:
            out += (1 - et / r) * f.mass(a, b)
    d = lambda x: f(x) - et * q(x)  # noqa: E731
    ends = [lo, hi]
    if d(mpmath.mpf(lo)) * d(mpmath.mpf(hi)) < 0:
        ends.insert(1, _root(d, lo, hi))
    for a, b in zip(ends, ends[1:]):
        if d((mpmath.mpf(a) + b) / 2) > 0:
            out += f.mass(a, b) - et * q.mass(a, b)
    return out


def _delta2(f, q, lo_hi, eps):
    """δ of the two-fold composition: ∫ f(x) δ1(ε − L(x)) dx (quadrature, split at the
    integrand's kinks)."""
    lo, hi = lo_hi
    L = lambda x: mpmath.log(f(x) / q(x))  # noqa: E731
    d1 = lambda t: _delta1(f, q, lo_hi, t)  # noqa: E731
    out = d1(eps - L(lo - 1)) * f.mass(-mpmath.inf, lo) + d1(eps - L(hi + 1)) * f.mass(hi, mpmath.inf)
    cuts = [mpmath.mpf(lo), mpmath.mpf(hi)]
    for c in (L(lo - 1), L(hi + 1)):
        k = lambda x, c=c: eps - L(x) - c  # noqa: E731
        if k(mpmath.mpf(lo)) * k(mpmath.mpf(hi)) < 0:
            cuts.append(_root(k, lo, hi))
    cuts.sort()
    return out + mpmath.quad(lambda x: f(x) * d1(eps - L(x)), cuts)


def _measure(spec, relation, kind, h):
    src = law_source(parse_spec(spec))
    coeffs, offset, inf = one_step(src.law(relation, h, 1e-30), h, BITS, kind, 1e-30, 1 << 22)
    return [int(c) for c in coeffs], offset, int(inf)


def _square(m):
    c, off, inf = m
    out = [0] * (2 * len(c) - 1)
    for i, a in enumerate(c):
        if a:
            for j, b in enumerate(c):
                out[i + j] += a * b
    tot = sum(c)
    return out, 2 * off, inf * (tot + inf) + tot * inf  # masses in units 2^(-2 BITS)


def _F(m, h, eps, unit_bits):
    c, off, inf = m
    s = mpmath.fsum(a * (1 - mpmath.exp(mpf(eps) - mpf((off + k) * h))) for k, a in enumerate(c) if (off + k) * h > eps)
    return (s + inf) / mpf(2) ** unit_bits


@pytest.mark.parametrize("spec,b,g", [
    ("subsample(laplace(scale=1), rate=1/10)", 1, Fraction(1, 10)),
    ("subsample(laplace(scale=1/2), rate=1/4)", Fraction(1, 2), Fraction(1, 4)),
])
@pytest.mark.parametrize("relation", ["remove", "add"])
def test_one_and_two_fold_lower_and_upper_contain_the_quadrature(spec, b, g, relation):
    h = Fraction(1, 100)
    with mpmath.workdps(34):
        f, q, lh = _pair(mpf(b), mpf(g), relation)
        lo1, up1 = _measure(spec, relation, "lower", h), _measure(spec, relation, "upper", h)
        lo2, up2 = _square(lo1), _square(up1)
        for eps in (Fraction(0), Fraction(1, 7)):
            t1 = _delta1(f, q, lh, mpf(eps))
            assert _F(lo1, h, eps, BITS) <= t1 <= _F(up1, h, eps, BITS)
        for eps in (Fraction(1, 40),):
            t2 = _delta2(f, q, lh, mpf(eps))
            lo, hi = _F(lo2, h, eps, 2 * BITS), _F(up2, h, eps, 2 * BITS)
            assert lo <= t2 <= hi
            # the lower end is tight: within a few h of the truth's slope (the atoms moved
            # down alone lose up to h per step and step)
            assert t2 - lo <= 4 * mpf(h) * t2


@settings(max_examples=12, deadline=None)
@given(b=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2)]),
       g=st.sampled_from([Fraction(1, 20), Fraction(1, 5), Fraction(1, 2)]),
       n=st.integers(50, 700), relation=st.sampled_from(["remove", "add"]),
       eps=st.fractions(Fraction(0), Fraction(1, 2)))
def test_lower_one_step_never_exceeds_the_quadrature(b, g, n, relation, eps):
    """Random grids (h = 1/n, not dyadic) and rates: the merged atoms stay below the truth."""
    h = Fraction(1, n)
    spec = f"subsample(laplace(scale={b}), rate={g})"
    with mpmath.workdps(34):
        f, q, lh = _pair(mpf(b), mpf(g), relation)
        lo1, up1 = _measure(spec, relation, "lower", h), _measure(spec, relation, "upper", h)
        t1 = _delta1(f, q, lh, mpf(eps))
        assert _F(lo1, h, eps, BITS) <= t1 <= _F(up1, h, eps, BITS)


def test_long_composition_is_narrow_on_the_first_grid():
    """The 2000-fold subsampled Laplace at h = 1/2048: 0.31 wide before the atoms were
    merged; its lower end stays below the upper end of a 4x finer grid (certified by the
    other, connect-the-dots construction)."""
    spec = parse_spec("subsample(laplace(scale=1), rate=1/10)")
    e = PLDAccountant(h=Fraction(1, 2048)).compose(spec, 2000).epsilon(Fraction(1, 10**5))
    fine = PLDAccountant(h=Fraction(1, 8192), lower=False).compose(spec, 2000).epsilon(Fraction(1, 10**5))
    assert e.lo_exact <= fine.hi_exact
    assert e.hi_exact - e.lo_exact < Fraction(3, 100)
