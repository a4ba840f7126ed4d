"""Independent reference values computed with mpmath at high precision.

Nothing here imports certdp: these are the "truth" the tests compare with.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

#: Relative slack allowed when checking that an mpmath value lies in an
#: enclosure: far below the 1e-15 widths under test, so it cannot hide an
#: error, yet above mpmath's own rounding at the precisions used here.
REF_SLACK = mpmath.mpf(10) ** -45


def mpf(q: Fraction | int | str) -> mpmath.mpf:
    """q as an mpf with 200 significant digits (enough for every test here)."""
    q = Fraction(q) if not isinstance(q, Fraction) else q
    with mpmath.workdps(200):
        return mpmath.mpf(q.numerator) / q.denominator


def dps_for(mu: Fraction, eps: Fraction) -> int:
    """Digits for δ_μ(ε): 60 plus the cancellation log10(ε/μ²) plus the
    magnitude of the Φ argument."""
    extra = math.log10(1 + float(eps) / float(mu) ** 2) + 2 * math.log10(1 + float(eps) / float(mu))
    return 60 + int(extra) + 10


def delta_mu_ref(mu, eps) -> mpmath.mpf:
    mu, eps = Fraction(mu), Fraction(eps)
    with mpmath.workdps(dps_for(mu, eps)):
        m, e = mpf(mu), mpf(eps)
        return +(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


def Phi_ref(x) -> mpmath.mpf:
    with mpmath.workdps(80):
        return +mpmath.ncdf(mpf(x))


def Phi_inv_ref(p) -> mpmath.mpf:
    """Φ⁻¹(p) = √2 erfinv(2p - 1), with enough digits that 2p - 1 keeps p's."""
    q = Fraction(p)
    extra = int(-math.log10(float(min(q, 1 - q)))) if min(q, 1 - q) > 0 else 0
    with mpmath.workdps(80 + extra):
        return +(mpmath.sqrt(2) * mpmath.erfinv(2 * mpf(q) - 1))


def tradeoff_ref(mu, alpha) -> mpmath.mpf:
    z = Phi_inv_ref(alpha)
    with mpmath.workdps(120):
        return +mpmath.ncdf(-z - mpf(mu))  # Φ(Φ⁻¹(1-α) - μ), Φ⁻¹(1-α) = -Φ⁻¹(α)


def mu_pure_ref(eps) -> mpmath.mpf:
    """-2Φ⁻¹(1/(1+e^ε)): solve log Φ(x) = -log(1+e^ε) by Newton at 80 digits
    (working in logs avoids the ε/ln10 digits that 2p - 1 would need)."""
    with mpmath.workdps(80):
        e = mpf(eps)
        target = -(e + mpmath.log1p(mpmath.exp(-e)))  # log p, p = 1/(1+e^ε)
        x = -mpmath.sqrt(-2 * target)  # start below the root
        x = mpmath.findroot(lambda t: mpmath.log(mpmath.ncdf(t)) - target, x, tol=mpmath.mpf(10) ** -70)
        return -2 * x


def in_enclosure(enc, value: mpmath.mpf) -> bool:
    """lo <= value <= hi up to the negligible relative slack REF_SLACK."""
    with mpmath.workdps(200):
        lo = _to_mpf(enc.lo)
        hi = _to_mpf(enc.hi)
        slack = abs(value) * REF_SLACK
        return lo - slack <= value <= hi + slack


def _to_mpf(v) -> mpmath.mpf:
    man, exp = v.man_exp()
    return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


# -- helpers at the caller's mpmath precision ---------------------------------
# (the modules that use them pin mp.dps with the `mp_digits` fixture below)


def mpq(x) -> mpmath.mpf:
    """An exact number (Fraction, int, ``"p/q"`` or decimal string, mpf) as an
    mpf at the current mpmath precision."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, str) and "/" in x:
        p, q = x.split("/")
        return mpmath.mpf(p) / mpmath.mpf(q)
    if isinstance(x, str):
        return mpmath.mpf(x)
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def mp_delta_mu(mu, eps) -> mpmath.mpf:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at the current precision."""
    mu, eps = mpq(mu), mpq(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def mp_mu_gdp(eps, delta, lo="1e-9", hi=60, steps: int = 90) -> mpmath.mpf:
    """μ with δ_μ(ε) = δ by bisection in mpmath (δ_μ(ε) increases with μ)."""
    eps, delta = mpq(eps), mpq(delta)
    a, b = mpmath.mpf(lo), mpmath.mpf(hi)
    for _ in range(steps):
        mid = (a + b) / 2
        if mp_delta_mu(mid, eps) > delta:
            b = mid
        else:
            a = mid
    return (a + b) / 2


def mp_digits(dps: int):
    """A pytest fixture body pinning mpmath to ``dps`` digits for one test module
    (restored afterwards: a module-level assignment would leak into others)."""
    def fixture():
        with mpmath.workdps(dps):
            yield
    return fixture


def rr_delta_ref(p, eps) -> mpmath.mpf:
    """δ(ε) of randomized response from the definition: the hockey-stick divergence
    Σ_y (P(y) − e^ε Q(y))⁺ of its output laws P = (p, 1−p), Q = (1−p, p) on
    neighbouring bits (both orders give the same sum), 60 digits."""
    with mpmath.workdps(60):
        p, e = mpq(p), mpmath.exp(mpq(eps))
        return sum(max(mpmath.mpf(0), a - e * b) for a, b in ((p, 1 - p), (1 - p, p)))
