"""Φ at a few points for the mpmath kernel (``certdp verify --kernel mpmath``), computed on
mpmath's raw floating-point tuples (``mpmath.libmp``: the directed-rounding primitives
``mpmath.iv`` itself is built on) and Python integers, so that one Φ costs a few big-integer
operations instead of dozens of ``iv`` objects:

* |x| small (below max(S_MIN, √(0.35·p))): Φ(x) = 1/2 + φ(x) S(x),
  S(s) = Σ_{n>=0} s^{2n+1}/(1·3···(2n+1)) (Marsaglia 2004, "Evaluating the normal
  distribution", eq. 2; term_{n+1} = term_n s²/(2n+3)), S odd, so
  Φ(−s) = 1/2 − φ(s) S(s).  For s >= 0 every term is positive; once s²/(2N+5) <= 1/2 the
  terms after term_N fall at least geometrically with ratio 1/2, so the remainder is at most
  2·term_{N+1}.  The terms reach about e^{s²/2}; they are summed in fixed point with
  Q = p + ⌈s²·log2(e)/2⌉ + 16 bits after the point (floor / ceil), so φ(s)·(error of S) <= 2^−p.
* |x| beyond: Φ(−s) = φ(s) R(s) with Mills' ratio R(s) by Laplace's continued fraction
  R(s) = 1/(s + 1/(s + 2/(s + 3/(s + …)))) (Abramowitz & Stegun 26.2.14).  Its elements are
  positive, so every tail g_k = s + k/g_{k+1} exceeds s and the tail cut at depth n lies in
  [s, s + n/s]; the fraction is evaluated backwards from that enclosure in fixed point with
  outward rounding (:func:`_mills`), deepening until R is known to 2^−(p+16) relatively, so
  the far tail is relatively accurate (δ down to 1e-200 and below).
* φ(s) = e^{−s²/2}/√(2π): s²/2 is exact (a dyadic), e^{·} by ``libmp.mpf_exp`` rounded down
  and up, 1/√(2π) from ``mpmath.iv`` once per precision, every product rounded outward.

Nothing here uses python-flint.
"""

from __future__ import annotations

import math
from typing import Any

from mpmath import iv, libmp

#: The continued fraction needs about 0.14·(p/s)² terms for p bits (its error falls like
#: e^{−2s√n}), the series about s² + p/2: the fraction is taken where s² > max(S_MIN², 0.35·p)
#: (measured crossovers: s ≈ 6.5 at p = 100, 7 at p = 162, 11 at p = 300).
S_MIN = 4

_F, _C = libmp.round_floor, libmp.round_ceiling


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


def _mills(man: int, exp: int, bits: int) -> tuple[tuple, tuple, int]:
    """(lo, hi) mpf bounds of R(s) = Φ(−s)/φ(s) for s = man·2^exp > 0 to about 2^−bits
    relatively, and the depth n used.  Laplace's fraction R = 1/g_1, g_k = s + k/g_{k+1}, every
    g_k > s; cut at depth n, g_n = s + n/g_{n+1} lies in [s, s + n/s], and each step back
    (g_k decreasing in g_{k+1}) maps an enclosure of g_{k+1} to one of g_k: evaluated in fixed
    point with Q bits, the lower end rounded down and the upper up.  The depth starts at an
    estimate (the fraction's error falls like e^{−2s√n}) and grows by half until the
    enclosure is tight."""
    q = bits + 16
    sh = q + exp
    s_lo, s_hi = (man << sh, man << sh) if sh >= 0 else (man >> -sh, -((-man) >> -sh))
    one2 = 1 << (2 * q)
    r = bits / max(s_lo / (1 << q), 1.0)
    n = int(0.14 * r * r + 2 * r) + 28  # measured: the depth needed is 0.13–0.16·(bits/s)² + O(bits/s)
    while True:
        g_lo, g_hi = s_lo, s_hi + -((-n * one2) // s_lo)  # g_n in [s, s + n/s]
        for k in range(n - 1, 0, -1):
            g_lo, g_hi = s_lo + (k * one2) // g_hi, s_hi + -((-k * one2) // g_lo)
        f_lo, f_hi = one2 // g_hi, -((-one2) // g_lo)
        if ((f_hi - f_lo) << bits) <= f_lo or n > 1_000_000:
            return libmp.from_man_exp(f_lo, -q), libmp.from_man_exp(f_hi, -q), n
        n += n // 2


_INV_SQRT_2PI: dict[int, tuple] = {}


def _inv_sqrt_2pi(prec: int) -> tuple:
    """(lo, hi) of 1/√(2π) at ``prec`` bits (made once per precision: it sits on every Φ)."""
    v = _INV_SQRT_2PI.get(prec)
    if v is None:
        old = iv.prec
        iv.prec = prec
        try:
            v = _INV_SQRT_2PI[prec] = (1 / iv.sqrt(2 * iv.pi))._mpi_
        finally:
            iv.prec = old
    return v


def _density(t: tuple, prec: int) -> tuple[tuple, tuple]:
    """(lo, hi) of φ(s) = e^{−s²/2}/√(2π) for the exact mpf s (s²/2 exact)."""
    h = libmp.mpf_neg(libmp.mpf_shift(libmp.mpf_mul(t, t), -1))
    c_lo, c_hi = _inv_sqrt_2pi(prec)
    e_lo, e_hi = libmp.mpf_exp(h, prec, _F), libmp.mpf_exp(h, prec, _C)
    return libmp.mpf_mul(e_lo, c_lo, prec, _F), libmp.mpf_mul(e_hi, c_hi, prec, _C)


_HALF = libmp.from_man_exp(1, -1)


def phi_point(x: Any, p: int) -> Any:
    """An interval containing Φ(x) for the exact mpf ``x``: absolute accuracy about 2^−p, and
    where the continued fraction is taken (the far tails) relative accuracy about 2^−p."""
    x = x._mpf_ if hasattr(x, "_mpf_") else x
    if x in (libmp.finf, libmp.fninf, libmp.fnan):
        return iv.mpf([0, 1])
    sign, man, exp, _ = x
    if man == 0:
        return iv.mpf(0.5)
    t = libmp.from_man_exp(man, exp)  # s = |x|
    s2 = _square(man, exp)
    if s2 > S_MIN * S_MIN and 20 * s2 > 7 * p:
        r_lo, r_hi, _ = _mills(man, exp, p + 16)
        prec = p + 24
        d_lo, d_hi = _density(t, prec)
        lo, hi = libmp.mpf_mul(d_lo, r_lo, prec, _F), libmp.mpf_mul(d_hi, r_hi, prec, _C)  # Φ(−s)
    else:
        q = p + int(s2 * 0.7213475204444817) + 16
        s_lo, s_hi = _series(man, exp, q)
        prec = q + 16
        d_lo, d_hi = _density(t, prec)
        ps_lo = libmp.mpf_mul(d_lo, libmp.from_man_exp(s_lo, -q), prec, _F)  # φ(s)·S(s) >= 0
        ps_hi = libmp.mpf_mul(d_hi, libmp.from_man_exp(s_hi, -q), prec, _C)
        lo, hi = libmp.mpf_sub(_HALF, ps_hi, prec, _F), libmp.mpf_sub(_HALF, ps_lo, prec, _C)  # Φ(−s)
    if not sign:  # Φ(s) = 1 − Φ(−s)
        lo, hi = libmp.mpf_sub(libmp.fone, hi, prec, _F), libmp.mpf_sub(libmp.fone, lo, prec, _C)
    lo = lo if libmp.mpf_ge(lo, libmp.fzero) else libmp.fzero
    hi = hi if libmp.mpf_le(hi, libmp.fone) else libmp.fone
    return iv.make_mpf((lo, hi))


def ncdf(x: Any, p: int | None = None) -> Any:
    """Φ over the interval ``x`` (increasing: the ends' enclosures), absolute accuracy
    about 2^−p (default: the working precision + 8)."""
    p = iv.prec + 8 if p is None else p
    a, b = x._mpi_
    if a == b:
        return phi_point(a, p)
    lo = phi_point(a, p)
    if a not in (libmp.finf, libmp.fninf, libmp.fnan) and b not in (libmp.finf, libmp.fninf, libmp.fnan):
        # a thin interval: Φ(b) <= Φ(a) + (b − a)·max φ on [a, b], the max at the end nearer 0
        # (φ falls with |x|), or 13/32 >= 1/√(2π) when [a, b] holds 0: one Φ and one exp instead
        # of two Φ, as tight as two Φ while (|c| + 1)(b − a) is small (then φ hardly varies)
        w = libmp.mpf_sub(b, a, 53, _C)
        c = b if b[0] else a if not a[0] else None  # b < 0, a > 0, or 0 inside
        size = libmp.fone if c is None else libmp.mpf_add(libmp.mpf_abs(c), libmp.fone, 53, _C)
        if libmp.mpf_le(libmp.mpf_shift(libmp.mpf_mul(size, w, 53, _C), 20), libmp.fone):
            top = _13_32 if c is None else _density(libmp.mpf_abs(c), p + 16)[1]
            lo_a, lo_b = lo._mpi_
            return iv.make_mpf((lo_a, libmp.mpf_add(lo_b, libmp.mpf_mul(w, top, 53, _C), p + 16, _C)))
    hi = phi_point(b, p)
    return iv.mpf([lo.a, hi.b])


_13_32 = libmp.from_man_exp(13, -5)

