"""Certified float vectors: midpoint-radius ball arithmetic on numpy ``float64`` arrays.

A :class:`FVec` is a pair of arrays (mid, rad) and stands for the sets
[mid − rad, mid + rad], elementwise.  Every operation returns a vector that
contains the exact result for every choice of inputs in the operands' balls.
It is a fast, vectorised sibling of ``arb`` for the one-step discretisation of
the PLD accountant, where ~10⁵ masses are needed at ~10⁻¹³ relative accuracy.

Proof model (IEEE 754 binary64, round to nearest, no FMA contraction — numpy's
elementwise ``+ − × ÷`` are the IEEE operations).  With u = 2⁻⁵³ and η = 2⁻¹⁰⁷⁴:

* fl(a∘b) = (a∘b)(1 + δ) + e, |δ| <= u, |e| <= η (e = 0 for + and −), hence
  |fl(a∘b) − a∘b| <= 2u|fl(a∘b)| + 2η;
* a radius formula is a sum of products of non-negative floats (at most 12
  operations); its computed value v satisfies  true <= v(1 + 2u)¹² + 24η, and
  :func:`_up` returns fl(fl(v·(1 + 2⁻⁴⁰)) + 2⁻¹⁰⁶⁰), which is larger
  (2⁻⁴⁰ > 30u and 2⁻¹⁰⁶⁰ > 26η); the same argument bounds a sum of
  non-negative terms.
* Transcendental functions are never taken from the platform's libm: e^x is a
  Taylor polynomial of degree :data:`EXP_TERMS` evaluated in this arithmetic
  after an argument reduction by n·log 2 (log 2 enclosed from ``arb``), with
  the Lagrange remainder added to the radius; the normal tail Φ̄ comes from
  :mod:`certdp.numerics.fnormal`.

Anything that leaves the proved range (overflow, a radius above a guard, NaN)
is reported by :meth:`FVec.finite` / :meth:`FVec.narrow` and the caller falls
back to ``arb``: floats may guide, never silently decide.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from certdp.numerics.ball import upper_bound, working_precision

U2 = 2.0**-52  # 2u: the midpoint's rounding error, relative
U4 = 2.0**-51
UP = 1.0 + 2.0**-40  # the radius inflation factor of _up
TINY = 2.0**-1060  # the radius's absolute inflation (covers underflow: > 26η)
DOWN = 1.0 - 2.0**-40


def ipow(x: np.ndarray, n: int) -> np.ndarray:
    """An upper bound of x**n for x >= 0 (n - 1 IEEE products, each rounded by at most u:
    the result times (1 + 2⁻⁴⁰) covers n <= 4096 of them; no libm pow)."""
    out = np.ones_like(np.asarray(x, dtype=np.float64))
    for _ in range(n):
        out = out * x
    return out * UP + TINY


def _up(v: np.ndarray) -> np.ndarray:
    """An upper bound of the exact value of a radius formula computed as ``v``
    (see the module doc)."""
    return v * UP + TINY


class FVec:
    """Elementwise balls mid ± rad (numpy float64 arrays, or scalars broadcast)."""

    __slots__ = ("mid", "rad")

    def __init__(self, mid: np.ndarray | float, rad: np.ndarray | float) -> None:
        self.mid = np.asarray(mid, dtype=np.float64)
        self.rad = np.asarray(rad, dtype=np.float64)

    # -- construction -------------------------------------------------------
    @staticmethod
    def exact(x: np.ndarray | float) -> "FVec":
        """Floats taken as exact points."""
        x = np.asarray(x, dtype=np.float64)
        return FVec(x, np.zeros_like(x))

    @staticmethod
    def of_fraction(q: Fraction | int) -> "FVec":
        """A scalar ball holding the exact rational q (float(q) is correctly rounded)."""
        m = float(q)
        if Fraction(m) == q:
            return FVec(m, 0.0)
        return FVec(m, abs(m) * U2 + TINY)

    @staticmethod
    def of_arb(x: arb) -> "FVec":
        """A scalar ball holding the arb ball x."""
        m = float(x.mid())
        with working_precision(128):
            d = upper_bound(abs(x - arb(m)))
        return FVec(m, float(d) * UP + TINY)

    # -- endpoints ----------------------------------------------------------
    def hi(self) -> np.ndarray:
        """A rigorous upper end (mid + rad, then up by 4u relative: the sum's
        rounding and the correction's own)."""
        s = self.mid + self.rad
        return s + np.abs(s) * U4 + TINY

    def lo(self) -> np.ndarray:
        """A rigorous lower end (mid − rad rounded down the same way)."""
        s = self.mid - self.rad
        return s - np.abs(s) * U4 - TINY

    def finite(self) -> np.ndarray:
        return np.isfinite(self.mid) & np.isfinite(self.rad)

    def narrow(self, rel: float) -> np.ndarray:
        """Elementwise: finite and rad <= rel·|mid|."""
        return self.finite() & (self.rad <= rel * np.abs(self.mid))

    def __getitem__(self, key: object) -> "FVec":
        return FVec(np.broadcast_to(self.mid, np.broadcast(self.mid, self.rad).shape)[key],
                    np.broadcast_to(self.rad, np.broadcast(self.mid, self.rad).shape)[key])

    # -- arithmetic ---------------------------------------------------------
    def __neg__(self) -> "FVec":
        return FVec(-self.mid, self.rad)

    def __add__(self, o: "FVec | float") -> "FVec":
        o = _as(o)
        c = self.mid + o.mid
        return FVec(c, _up(self.rad + o.rad + np.abs(c) * U2))

    __radd__ = __add__

    def __sub__(self, o: "FVec | float") -> "FVec":
        return self + (-_as(o))

    def __rsub__(self, o: "FVec | float") -> "FVec":
        return _as(o) + (-self)

    def __mul__(self, o: "FVec | float") -> "FVec":
        o = _as(o)
        c = self.mid * o.mid
        r = np.abs(self.mid) * o.rad + self.rad * np.abs(o.mid) + self.rad * o.rad + np.abs(c) * U2
        return FVec(c, _up(r))

    __rmul__ = __mul__

    def __truediv__(self, o: "FVec | float") -> "FVec":
        """Division; elements whose divisor ball touches 0 get rad = inf."""
        o = _as(o)
        c = self.mid / o.mid
        den = (np.abs(o.mid) - o.rad) * DOWN  # a lower bound of |divisor| (when > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (self.rad + (np.abs(c) * UP + TINY) * o.rad) / den
        r = np.where(den > 2.0**-900, r, np.inf)
        return FVec(c, _up(r + np.abs(c) * U2))

    def scaled(self, k: float) -> "FVec":
        """self / k for an exact nonzero float k."""
        c = self.mid / k
        return FVec(c, _up(self.rad / abs(k) + np.abs(c) * U2))

    def abs_hi(self) -> np.ndarray:
        """An upper bound of |x| over the ball (the sum and the correction each rounded
        by at most u: 4u covers both)."""
        s = np.abs(self.mid) + self.rad
        return s * (1 + U4) + TINY


def _as(x: "FVec | float | int") -> FVec:
    if isinstance(x, FVec):
        return x
    return FVec.exact(float(x)) if float(x) == x else FVec.of_fraction(Fraction(x))


class Guide(FVec):
    """The same interface on plain floats, radius always 0: a float *guide* for the
    searches that choose cells (never a proof).  The algorithms of
    :mod:`certdp.numerics.fnormal` run unchanged in both contexts (``type(x).exact``,
    :func:`exp`), as mpmath runs one algorithm in several number contexts."""

    __slots__ = ()

    def __init__(self, mid: np.ndarray | float, rad: np.ndarray | float = 0.0) -> None:
        self.mid = np.asarray(mid, dtype=np.float64)
        self.rad = np.zeros(())

    @staticmethod
    def exact(x: np.ndarray | float) -> "Guide":
        return Guide(x)

    @staticmethod
    def of_fraction(q: Fraction | int) -> "Guide":
        return Guide(float(q))

    def __neg__(self) -> "Guide":
        return Guide(-self.mid)

    def __add__(self, o: "FVec | float") -> "Guide":
        return Guide(self.mid + (o.mid if isinstance(o, FVec) else float(o)))

    __radd__ = __add__

    def __sub__(self, o: "FVec | float") -> "Guide":
        return Guide(self.mid - (o.mid if isinstance(o, FVec) else float(o)))

    def __rsub__(self, o: "FVec | float") -> "Guide":
        return Guide((o.mid if isinstance(o, FVec) else float(o)) - self.mid)

    def __mul__(self, o: "FVec | float") -> "Guide":
        return Guide(self.mid * (o.mid if isinstance(o, FVec) else float(o)))

    __rmul__ = __mul__

    def __truediv__(self, o: "FVec | float") -> "Guide":
        return Guide(self.mid / (o.mid if isinstance(o, FVec) else float(o)))

    def scaled(self, k: float) -> "Guide":
        return Guide(self.mid / k)

    def abs_hi(self) -> np.ndarray:
        return np.abs(self.mid)

    def __getitem__(self, key: object) -> "Guide":
        return Guide(self.mid[key])


def exp(x: FVec) -> FVec:
    """e^x in the context of x: :func:`fexp` for balls, numpy's exp for a guide."""
    if isinstance(x, Guide):
        return Guide(np.exp(x.mid))
    return fexp(x)


def union(a: FVec, b: FVec, take_b: np.ndarray) -> FVec:
    """Elementwise choice: b where ``take_b``, else a."""
    return type(a)(np.where(take_b, b.mid, a.mid), np.where(take_b, b.rad, a.rad))


def interval(lo: np.ndarray, hi: np.ndarray) -> FVec:
    """The ball holding [lo, hi] (lo <= hi, finite floats)."""
    m = 0.5 * (lo + hi)
    r = np.maximum(hi - m, m - lo)
    return FVec(m, _up(r + np.abs(m) * U2))


# ---------------------------------------------------------------------------
# exp and expm1
# ---------------------------------------------------------------------------

#: Degree of the Taylor polynomial of e^r, |r| <= 0.36: remainder < 1e-25.
EXP_TERMS = 20
_INV_FACT = [FVec.of_fraction(Fraction(1, math.factorial(k))) for k in range(EXP_TERMS + 1)]
with working_precision(128):
    _LN2 = FVec.of_arb(arb(2).log())
#: |remainder| of the degree-EXP_TERMS Taylor polynomial of e^r for |r| <= 0.36:
#: |r|^{N+1}/(N+1)! · e^{|r|} <= 0.36^{N+1}/(N+1)! · 1.44 (Lagrange; e^{0.36} < 1.44),
#: in exact rationals, doubled.
_EXP_REM = float(Fraction(36, 100)**(EXP_TERMS + 1) / math.factorial(EXP_TERMS + 1) * Fraction(144, 100) * 2)
#: The largest |argument| exp takes (beyond: rad = inf, the caller falls back).
EXP_MAX_ARG = 700.0


def _poly_exp(r: FVec) -> FVec:
    """e^r for balls with |r| <= 0.36 (Horner on the Taylor polynomial, remainder added)."""
    acc = _INV_FACT[EXP_TERMS]
    for k in range(EXP_TERMS - 1, -1, -1):
        acc = acc * r + _INV_FACT[k]
    return FVec(acc.mid, _up(acc.rad + _EXP_REM))


def fexp(x: FVec) -> FVec:
    """e^x, elementwise, for balls with |mid| <= 700 and rad <= 2⁻¹⁰ (else rad = inf).

    e^x = 2^n e^{m − n log 2} e^{x − m} with m = mid, n = round(m / log 2):
    |m − n log 2| <= 0.35 (+ the ball of n·log 2), and e^{x−m} ∈ 1 ± rad·e^{rad}."""
    m, rad = x.mid, x.rad
    ok = np.isfinite(m) & np.isfinite(rad) & (np.abs(m) <= EXP_MAX_ARG) & (rad <= 2.0**-10)
    m0 = np.where(ok, m, 0.0)
    n = np.rint(m0 / 0.6931471805599453)
    r = FVec.exact(m0) - _LN2 * FVec.exact(n)
    ok &= np.abs(r.mid) + r.rad <= 0.36  # the remainder's range (|m − n log 2| <= 0.35 + tiny)
    e = _poly_exp(r)
    mid = np.ldexp(e.mid, n.astype(np.int64))
    erad = np.ldexp(e.rad, n.astype(np.int64))
    # the input's radius: e^{x} = e^{m} e^{d}, |d| <= rad, |e^d − 1| <= rad·e^{rad} <= 1.001·rad
    grow = np.where(ok, rad, 0.0) * 1.001
    out_rad = _up(erad * (1.0 + grow) + np.abs(mid) * grow * UP)
    return FVec(mid, np.where(ok & np.isfinite(mid), out_rad, np.inf))


def fexpm1(x: FVec) -> FVec:
    """e^x − 1 without cancellation for small |x| (series), e^x − 1 otherwise."""
    small = np.abs(x.mid) + x.rad <= 0.125
    # series Σ_{k>=1} x^k/k!, degree 16: remainder <= |x|^17/17!·e^{|x|}·2
    xs = union(x, FVec.exact(0.0 * x.mid), ~small)
    acc = _INV_FACT[16]
    for k in range(15, 0, -1):
        acc = acc * xs + _INV_FACT[k]
    ser = acc * xs
    a = np.abs(xs.mid) + xs.rad
    ser = FVec(ser.mid, _up(ser.rad + ipow(a, 17) / math.factorial(17) * 2.3))
    big = fexp(union(x, FVec.exact(0.0 * x.mid), small)) - 1.0
    return union(ser, big, ~small)
