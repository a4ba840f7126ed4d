"""Φ at many points for the mpmath kernel's PLD (``certdp verify --kernel mpmath``): Taylor
expansions around the base points k/4 in fixed-point interval arithmetic on Python
integers, with a proved remainder — instead of one rigorous erfc (a continued fraction
of hundreds of ``iv`` operations) per point.

Numbers are pairs of integers (lo, hi) standing for [lo·2^-P, hi·2^-P]; every product is
rounded outward (floor / ceil shifts), so each result encloses the exact value.

* Taylor: Φ(x0 + d) = Φ(x0) + Σ_{n<K} c_n d^{n+1} + R, c_n = φ^{(n)}(x0)/(n+1)! =
  (−1)^n He_n(x0) φ(x0)/(n+1)! (He_n the probabilists' Hermite polynomials, exact
  rationals at the dyadic x0), |R| <= sup|φ^{(K)}| |d|^{K+1}/(K+1)!.
* Cramér's inequality (Abramowitz & Stegun 1964, 22.14.17, for H_n; He_n(x) =
  2^{−n/2} H_n(x/√2)): |He_n(x)| e^{−x²/4} <= 1.086435 √(n!), so
  |φ^{(n)}(x)| = |He_n(x)| φ(x) <= 1.086435 √(n!)/√(2π) for every x.
* Φ(0) = 1/2 exactly; Φ at the next base point by the same expansion with d = 1/4
  (a chain: each step adds its remainder and roundings to the enclosure); φ(x0) by
  mpmath's interval exp; Φ(−x) = 1 − Φ(x).
* Beyond |x| >= 40: Φ(−|x|) <= φ(40)/40 < 2^−1150, inside one unit when P <= 1100.

Nothing here uses python-flint.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, isqrt
from typing import Any

from mpmath import iv, libmp

from certdp.verifier.errors import PrecisionError

#: Cramér's constant rounded up, and √(2π) rounded down.
K_CRAMER = Fraction(1086436, 10**6)
SQRT_2PI_LOW = Fraction(2506628, 10**6)
#: Base points are k·STEP; an evaluation point is within STEP/2 (+ slack) of its base.
STEP = Fraction(1, 4)
EVAL_DMAX = STEP / 2 + Fraction(1, 2**16)
#: Largest |x| with a base point; beyond it Φ(−|x|) is below one unit.
X_MAX = 40
MAX_P = 1100

Pair = tuple[int, int]


def _ceil_frac(v: Fraction) -> int:
    return -((-v.numerator) // v.denominator)


def remainder_units(k: int, dmax: Fraction, p: int) -> int:
    """An upper bound, in units of 2^-p, of the Taylor remainder after ``k`` terms for |d| <= dmax."""
    v = K_CRAMER / SQRT_2PI_LOW * (isqrt(factorial(k)) + 1) * dmax ** (k + 1) / factorial(k + 1)
    return _ceil_frac(v * 2**p)


def terms_for(dmax: Fraction, p: int) -> tuple[int, int]:
    """(K, remainder units): the fewest terms whose remainder is at most one unit."""
    k = 2
    while remainder_units(k, dmax, p) > 1:
        k += 1
    return k, remainder_units(k, dmax, p)


def _mul(a: Pair, b: Pair, p: int) -> Pair:
    ps = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(ps) >> p, -((-max(ps)) >> p)


def _scale(a: Pair, r: Fraction) -> Pair:
    """a·r for an exact rational r, outward."""
    lo, hi = (a[0], a[1]) if r >= 0 else (a[1], a[0])
    return (lo * r.numerator) // r.denominator, -((-hi * r.numerator) // r.denominator)


def _fixed(m: tuple, p: int, up: bool) -> int:
    """floor (ceil when ``up``) of the raw mpf ``m`` times 2^p."""
    sign, man, exp, _ = m
    if not man and m not in (libmp.fzero, libmp.fnzero):
        raise PrecisionError("a non-finite value reached the fixed-point Φ")
    v = -man if sign else man
    s = exp + p
    if s >= 0:
        return v << s
    return -((-v) >> -s) if up else v >> -s


def to_pair(x: Any, p: int) -> Pair:
    """The fixed-point enclosure of an mpmath interval."""
    a, b = x._mpi_
    return _fixed(a, p, False), _fixed(b, p, True)


def to_iv(a: Pair, p: int) -> Any:
    """The mpmath interval of a fixed-point pair (exact ends)."""
    return iv.make_mpf((libmp.from_man_exp(a[0], -p), libmp.from_man_exp(a[1], -p)))


class PhiTable:
    """Φ in fixed point at precision ``p`` (bits after the point), bases built on demand."""

    def __init__(self, p: int) -> None:
        if p > MAX_P:
            raise PrecisionError(f"the fixed-point Φ is written for at most {MAX_P} bits")
        self.p = p
        self.k_chain, self.r_chain = terms_for(STEP, p + 16)
        self.k_eval, self.r_eval = terms_for(EVAL_DMAX, p + 16)
        self.one = 1 << p
        self.bases: list[tuple[Pair, list[Pair]]] = []  # k -> (Φ(kSTEP), [c_0, ..., c_{K-1}])

    def _coefficients(self, k: int, q: int) -> list[Pair]:
        """c_n = (−1)^n He_n(x0) φ(x0)/(n+1)! at x0 = k·STEP, in fixed point at q bits."""
        x0 = k * STEP
        old = iv.prec
        iv.prec = q + 20
        try:
            phi = iv.exp(-iv.mpf(x0.numerator) ** 2 / (2 * x0.denominator ** 2)) / iv.sqrt(2 * iv.pi)
        finally:
            iv.prec = old
        phi_p = to_pair(phi, q)
        out, h_prev, h = [], Fraction(0), Fraction(1)
        for n in range(max(self.k_chain, self.k_eval)):
            out.append(_scale(phi_p, (-1) ** n * h / factorial(n + 1)))
            h_prev, h = h, x0 * h - n * h_prev
        return out

    def _base(self, k: int) -> tuple[Pair, list[Pair]]:
        q = self.p + 16  # guard bits for the chain
        while len(self.bases) <= k:
            j = len(self.bases)
            coeffs = self._coefficients(j, q)
            if j == 0:
                value: Pair = (1 << (q - 1), 1 << (q - 1))
            else:
                prev, pc = self.bases[j - 1]
                lo, hi = prev
                for n in range(self.k_chain):  # d = STEP = 2^-2 exactly
                    c0, c1 = pc[n]
                    lo += c0 >> (2 * (n + 1))
                    hi += -((-c1) >> (2 * (n + 1)))
                value = (lo - self.r_chain, hi + self.r_chain)
            self.bases.append((value, coeffs))
        return self.bases[k]

    def _nonneg(self, z: Pair) -> Pair:
        """Φ on an interval of z >= 0 (in p-bit fixed point)."""
        q, p = self.p + 16, self.p
        zl, zh = z[0] << 16, z[1] << 16
        if zl >= X_MAX << q:
            return self.one - 1, self.one
        unit = (1 << q) // 4  # STEP in q-bit units
        k = (zl + zh + unit) // (2 * unit)  # the nearest base
        value, coeffs = self._base(k)
        d = (zl - k * unit, zh - k * unit)
        lim = _ceil_frac(EVAL_DMAX * 2**q)
        if d[0] < -lim or d[1] > lim:
            raise PrecisionError("an argument of the fixed-point Φ is too wide")
        acc = coeffs[self.k_eval - 1]
        for n in range(self.k_eval - 2, -1, -1):
            m = _mul(acc, d, q)
            acc = (coeffs[n][0] + m[0], coeffs[n][1] + m[1])
        m = _mul(acc, d, q)
        lo, hi = value[0] + m[0] - self.r_eval, value[1] + m[1] + self.r_eval
        lo, hi = lo >> 16, -((-hi) >> 16)
        return max(lo, 0), min(hi, self.one)

    def phi_cdf(self, z: Pair) -> Pair:
        """Φ over the fixed-point interval z (Φ is increasing: the ends' enclosures)."""
        if z[0] >= 0:
            return self._point_hull(z, False)
        if z[1] <= 0:
            lo, hi = self._point_hull((-z[1], -z[0]), False)
            return self.one - hi, self.one - lo
        a = self.one - self._nonneg((-z[0], -z[0]))[1]
        b = self._nonneg((z[1], z[1]))[1]
        return max(a, 0), b

    def _point_hull(self, z: Pair, _: bool) -> Pair:
        if z[1] - z[0] <= (1 << self.p) >> 12:
            return self._nonneg(z)
        return self._nonneg((z[0], z[0]))[0], self._nonneg((z[1], z[1]))[1]
