"""Independent truth for Poisson-subsampled Laplace: the pair written by hand in x-space
(seed 002 Thm 11(1)), δ of one step with every piece integrated exactly (Laplace CDFs) and
of the two-fold composition by mpmath quadrature.  Shared by the engine's and the
checker's tests."""

from __future__ import annotations

import mpmath


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


def pair(b, g, relation):
    """x-space pair of the Poisson-subsampled Laplace mechanism (seed 002 Thm 11(1)):
    remove (γ·Lap(1) + (1−γ)·Lap(0), Lap(0)); add (Lap(0), (1−γ)Lap(0) + γLap(1)),
    mirrored to (Lap(0), (1−γ)Lap(0) + γLap(−1)).  The ratio is constant outside
    (0, 1) (remove) or (−1, 0) (add) and monotone inside."""
    if relation == "remove":
        return _Mix(b, [(g, 1), (1 - g, 0)]), _Mix(b, [(1, 0)]), (0, 1)
    return _Mix(b, [(1, 0)]), _Mix(b, [(1 - g, 0), (g, -1)]), (-1, 0)


def root(fn, lo, hi):
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


def delta1(f, q, lo_hi, t):
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
        ends.insert(1, root(d, lo, hi))
    for a, b in zip(ends, ends[1:]):
        if d((mpmath.mpf(a) + b) / 2) > 0:
            out += f.mass(a, b) - et * q.mass(a, b)
    return out


def delta2(f, q, lo_hi, eps):
    """δ of the two-fold composition: ∫ f(x) δ1(ε − L(x)) dx (quadrature, split at the
    integrand's kinks)."""
    lo, hi = lo_hi
    L = lambda x: mpmath.log(f(x) / q(x))  # noqa: E731
    d1 = lambda t: delta1(f, q, lo_hi, t)  # noqa: E731
    out = d1(eps - L(lo - 1)) * f.mass(-mpmath.inf, lo) + d1(eps - L(hi + 1)) * f.mass(hi, mpmath.inf)
    cuts = [mpmath.mpf(lo), mpmath.mpf(hi)]
    for c in (L(lo - 1), L(hi + 1)):
        k = lambda x, c=c: eps - L(x) - c  # noqa: E731
        if k(mpmath.mpf(lo)) * k(mpmath.mpf(hi)) < 0:
            cuts.append(root(k, lo, hi))
    cuts.sort()
    return out + mpmath.quad(lambda x: f(x) * d1(eps - L(x)), cuts)
