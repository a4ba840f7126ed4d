"""Φ at a few points for the mpmath kernel (``certdp verify --kernel mpmath``): the
everywhere-convergent series in fixed-point interval arithmetic on Python integers,
cheaper than an interval continued fraction (hundreds of ``iv`` operations) or the
Taylor table of :mod:`certdp.verifier.phi_fixed` (whose base points cost more to build
than a closed-form certificate needs).

* Φ(x) = 1/2 + φ(x) S(x), S(s) = Σ_{n>=0} s^{2n+1}/(1·3···(2n+1)) (Marsaglia 2004, "Evaluating
  the normal distribution", eq. 2; term_{n+1} = term_n s²/(2n+3)), S odd, so
  Φ(−s) = 1/2 − φ(s) S(s).
* For s >= 0 every term is positive; once s²/(2N+5) <= 1/2 the terms after term_N fall at
  least geometrically with ratio 1/2, so the remainder is at most 2·term_{N+1}.
* The terms reach about e^{s²/2}; they are summed with Q = p + ⌈s²·log2(e)/2⌉ + 16 bits
  after the point, so φ(s)·(error of S) <= 2^−p.  Products and quotients are rounded
  outward (floor / ceil), φ(s) = e^{−s²/2}/√(2π) by mpmath's interval exp at Q bits.

Nothing here uses python-flint.  Arguments beyond |x| > S_MAX go to the continued fraction
of erfc (:func:`_far_tail`), which needs few terms there.
"""

from __future__ import annotations

import math
from typing import Any

from mpmath import iv, libmp

from certdp.verifier import iv as kernel

#: Largest |x| summed by the series (beyond it the continued fraction is as quick: at |x| = 30 the
#: series costs 1.7–2.6 ms against the interval continued fraction's 2.4–8.8 ms at 128–300 bits).
S_MAX = 32


def _square(man: int, exp: int) -> float:
    """s² as a float, s = man·2^exp (for the stopping rule and the guard bits: the rule keeps
    a margin of 1 against its rounding)."""
    k = max(man.bit_length() - 60, 0)
    if man.bit_length() + exp > 8:
        return math.inf
    return math.ldexp(float(man >> k), exp + k) ** 2


def _series(man: int, exp: int, q: int) -> tuple[int, int]:
    """[lo, hi]·2^−q ∋ S(s) for s = man·2^exp >= 0."""
    m2, e2 = man * man, 2 * exp  # s² = m2·2^e2
    sh = q + exp
    t_lo = t_hi = (man << sh) if sh >= 0 else None
    if t_lo is None:
        t_lo, t_hi = man >> -sh, -((-man) >> -sh)
    s_lo, s_hi = t_lo, t_hi
    s2 = _square(man, exp)
    n = 0
    while True:
        d = 2 * n + 3
        if e2 >= 0:
            t_lo, t_hi = (t_lo * m2 << e2) // d, -((-(t_hi * m2 << e2)) // d)
        else:
            t_lo = ((t_lo * m2) >> -e2) // d
            t_hi = -((-(-((-(t_hi * m2)) >> -e2))) // d)
        n += 1
        if 2 * n + 5 >= 2 * s2 + 2 and t_hi <= 1:  # ratio s²/(2n+5) < 1/2 and the term below one unit
            return s_lo, s_hi + 2 * t_hi + 2
        s_lo += t_lo
        s_hi += t_hi


_INV_SQRT_2PI: dict[int, Any] = {}


def _inv_sqrt_2pi() -> Any:
    """1/√(2π) at the current precision (made once per precision: it sits on every Φ)."""
    v = _INV_SQRT_2PI.get(iv.prec)
    if v is None:
        v = _INV_SQRT_2PI[iv.prec] = 1 / iv.sqrt(2 * iv.pi)
    return v


def phi_point(x: Any, p: int) -> Any:
    """An interval containing Φ(x) for the exact mpf ``x``, absolute accuracy about 2^−p."""
    x = x._mpf_ if hasattr(x, "_mpf_") else x
    if x in (libmp.finf, libmp.fninf, libmp.fnan):
        return iv.mpf([0, 1])
    sign, man, exp, _ = x
    if man == 0:
        return iv.mpf(0.5)
    s2 = _square(man, exp)
    if s2 > S_MAX * S_MAX:  # e^{−t²} amplifies t's rounding by 2t²: that many more bits
        old = iv.prec
        iv.prec = p + 16 + (man.bit_length() + exp) * 2 if s2 != math.inf else p + 16
        try:
            tail = _far_tail(iv.make_mpf((x, x)) if not sign else -iv.make_mpf((x, x)))
            return tail if sign else 1 - tail
        finally:
            iv.prec = old
    q = p + int(s2 * 0.7213475204444817) + 16
    lo, hi = _series(man, exp, q)
    old = iv.prec
    iv.prec = q + 16
    try:
        t = libmp.from_man_exp(man, exp)
        s = iv.make_mpf((t, t))
        phi = iv.exp(-s * s / 2) * _inv_sqrt_2pi()
        big_s = iv.make_mpf((libmp.from_man_exp(lo, -q), libmp.from_man_exp(hi, -q)))
        out = 0.5 - phi * big_s if sign else 0.5 + phi * big_s
    finally:
        iv.prec = old
    return iv.mpf([max(out.a, 0), min(out.b, 1)])


def _far_tail(s: Any) -> Any:
    """Φ(−s) for s > S_MAX: erfc(t)/2, t = s/√2, by the continued fraction
    erfc(t) = e^{−t²}/√π · 1/(t + (1/2)/(t + 1/(t + (3/2)/(t + …)))), whose consecutive convergents
    bracket it (positive elements: Jones & Thron 1980 Thm 4.7, as :func:`certdp.numerics.iv.erfc`);
    far out few terms suffice, so the depth starts at 4 and doubles until the hull is tight."""
    t = s / iv.sqrt(2)
    terms = 4
    while True:
        def convergent(n: int) -> Any:
            f = t
            for k in range(n, 0, -1):
                f = t + iv.mpf(k) / 2 / f
            return 1 / f
        k = kernel.hull(convergent(terms), convergent(terms + 1))
        if (k.b - k.a) <= k.a * iv.mpf(2) ** (-iv.prec + 8) or terms > 100_000:
            return iv.exp(-t * t) / iv.sqrt(iv.pi) * k / 2
        terms *= 2


def ncdf(x: Any, p: int | None = None) -> Any:
    """Φ over the interval ``x`` (increasing: the ends' enclosures), absolute accuracy
    about 2^−p (default: the working precision + 8)."""
    p = iv.prec + 8 if p is None else p
    a, b = x._mpi_
    if a == b:
        return phi_point(a, p)
    lo, hi = phi_point(a, p), phi_point(b, p)
    return iv.mpf([lo.a, hi.b])
