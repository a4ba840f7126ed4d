"""A second, independent interval kernel: mpmath's ``iv`` arithmetic plus a
rigorous erfc (mpmath.iv has none), for ``certdp verify --kernel mpmath``.

Nothing here uses python-flint, so a bug in one arithmetic library cannot make
a false certificate VALID under both kernels.

erfc on a point t (then by monotonicity on an interval):

* 0 <= t <= 3: erf(t) = (2/√π) Σ_n (−1)^n t^{2n+1}/(n!(2n+1)); once the terms
  decrease (n >= t²) the series alternates with decreasing terms, so the
  remainder after a term lies between 0 and the next term (Leibniz).
* t > 3: the continued fraction erfc(t) = e^{−t²}/√π · 1/(t + (1/2)/(t + 1/(t +
  (3/2)/(t + …)))) has positive elements, so consecutive convergents bracket its
  value (Jones & Thron, "Continued fractions", Thm 4.7 for S-fractions); the hull
  of two consecutive convergents, each in interval arithmetic, encloses erfc(t).
* t < 0: erfc(t) = 2 − erfc(−t).
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import iv, mpf

from certdp.verifier.errors import PrecisionError


def point(q: Fraction) -> "iv.mpf":
    """The interval of an exact rational (outward rounded)."""
    return iv.mpf(q.numerator) / iv.mpf(q.denominator)


def hull(a: "iv.mpf", b: "iv.mpf") -> "iv.mpf":
    return iv.mpf([min(a.a, b.a), max(a.b, b.b)])


def _erf_series(t: "iv.mpf") -> "iv.mpf":
    """erf(t) for 0 <= t <= 3 (point interval), Leibniz remainder."""
    total = iv.mpf(0)
    term = t  # t^{2n+1}/n!
    tt = t * t
    n = 0
    eps = mpf(2) ** (-iv.prec - 8)
    while True:
        c = term / (2 * n + 1)
        total = total + c if n % 2 == 0 else total - c
        n += 1
        term = term * tt / n
        nxt = term / (2 * n + 1)
        if n >= tt.b and nxt.b < eps:
            bound = iv.mpf([-nxt.b, nxt.b])
            return (total + bound) * 2 / iv.sqrt(iv.pi)
        if n > 10_000:  # pragma: no cover - cannot happen for t <= 3
            raise PrecisionError("erf series did not converge")


def _erfc_cf(t: "iv.mpf") -> "iv.mpf":
    """erfc(t) for t > 3 (point interval): hull of two consecutive convergents."""
    terms = 32
    while True:
        def convergent(n: int) -> "iv.mpf":
            f = t
            for k in range(n, 0, -1):
                f = t + iv.mpf(k) / 2 / f
            return 1 / f
        a, b = convergent(terms), convergent(terms + 1)
        k = hull(a, b)
        if (k.b - k.a) <= k.a * mpf(2) ** (-iv.prec + 8) or terms > 100_000:
            return iv.exp(-t * t) / iv.sqrt(iv.pi) * k
        terms *= 2


def erfc_point(t: mpf) -> "iv.mpf":
    """A rigorous interval containing erfc(t) for an exact mpf t."""
    x = iv.mpf(t)
    if t < 0:
        return 2 - erfc_point(-t)
    if t <= 3:
        return 1 - _erf_series(x)
    return _erfc_cf(x)


def erfc(x: "iv.mpf") -> "iv.mpf":
    """erfc over an interval (decreasing: the endpoints' enclosures, hulled)."""
    if x.a == x.b:
        v = erfc_point(x.a)
    else:
        v = hull(erfc_point(x.b), erfc_point(x.a))
    return iv.mpf([max(v.a, 0), v.b])


def erf(x: "iv.mpf") -> "iv.mpf":
    return 1 - erfc(x)


def ncdf(x: "iv.mpf") -> "iv.mpf":
    """Φ(x) = erfc(−x/√2)/2."""
    return erfc(-x / iv.sqrt(2)) / 2


def delta_mu(mu: "iv.mpf", eps: "iv.mpf") -> "iv.mpf":
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022 Cor 2.13)."""
    return ncdf(-eps / mu + mu / 2) - iv.exp(eps) * ncdf(-eps / mu - mu / 2)
