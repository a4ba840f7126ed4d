"""DP-SGD certificates (kind ``dp``, evidence ``pld``) under the second kernel
(``certdp verify --kernel mpmath``): the one-step discretisation in mpmath intervals.

The same mathematics as :func:`certdp.verifier.check_pld.one_step` (the
connect-the-dots split of each loss interval between its grid points, Doroshenko
et al. 2022; masses rounded UP to multiples of 2^-bits), recomputed with
mpmath's ``iv`` arithmetic and the rigorous erfc of :mod:`certdp.numerics.iv`
instead of python-flint balls.  The fixed-point integers are then composed by
exact integer polynomial multiplication (:func:`check_pld.compose`: integers only,
no rounding to trust) and F_ε is evaluated in intervals.  So a bug in one
floating-point library cannot make a false DP-SGD certificate VALID under both
kernels; only the integer convolution is shared.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

import mpmath
from mpmath import iv

from certdp.verifier.check_pld import _Pair, compose, parse_evidence, subsampled_gaussians
from certdp.errors import PrecisionError, check_budget
from certdp.numerics import iv as kernel
from certdp.verifier.phi_fixed import PhiTable, to_iv, to_pair


def _x_of_loss(pair: _Pair, w: Any) -> Any:
    """Interval of the x with L(x) = w; None when w is certainly at/below (remove) or
    at/above (add) the loss range."""
    u = w if pair.sign > 0 else -w
    if pair.q == 1:
        t = u
    else:
        q = kernel.point(pair.q)
        arg = iv.exp(u) - 1 + q
        if arg.b <= 0:
            return None
        if not arg.a > 0:
            raise PrecisionError("a grid point's loss could not be placed in intervals")
        t = iv.log(arg / q)
    x = t * kernel.point(pair.sigma) ** 2 + iv.mpf(1) / 2
    return x if pair.sign > 0 else -x


def ceil_mpf(v: Any) -> int:
    """⌈v⌉ of a finite mpf (or of an interval's upper end), exactly.  (``mpmath.ceil``
    rounds its integer result to the working precision ``mp.prec``, 53 bits by default:
    a value near 2^60 could come back up to 2^7 units too small, a mass rounded DOWN
    where it must go up.)"""
    raw = v._mpi_[1] if hasattr(v, "_mpi_") else v._mpf_  # an interval's upper end, or an mpf
    num, den = mpmath.libmp.to_rational(raw)  # exact, signed numerator
    return -((-num) // den)


def one_step(pair: _Pair, h: Fraction, bits: int, z: float) -> tuple[int, list[int], int]:
    """(offset, fixed-point masses on (offset + j)h, mass at +∞), all rounded up, in intervals."""
    lo, hi = pair.grid(h, z)
    n = hi - lo + 1
    hb, s = kernel.point(h), kernel.point(pair.sigma)
    ends: list[Any] = []
    for j in range(n):
        if not j % 256:
            check_budget("re-deriving the one-step PLD in intervals", j, n)
        x = _x_of_loss(pair, (lo + j) * hb)
        ends.append(x if x is not None else ("below" if pair.sign > 0 else "above"))
    cache: dict[tuple[int, int, bool], Any] = {}
    table = PhiTable(iv.prec + 32)

    def phi(j: int, c: int, upper: bool) -> Any:
        """Φ((x_j − c)/σ), or its upper tail Φ(−(x_j − c)/σ): the fixed-point Taylor table
        (:mod:`certdp.verifier.phi_fixed`), or the rigorous erfc where it does not apply."""
        key = (j, c, upper)
        if key not in cache:
            zz = (ends[j] - c) / s
            zz = -zz if upper else zz
            try:
                cache[key] = to_iv(table.phi_cdf(to_pair(zz, table.p)), table.p)
            except PrecisionError:
                cache[key] = kernel.ncdf(zz)
        return cache[key]

    def mass(comps: tuple, a: int | None, b: int | None) -> Any:
        """Mixture mass between ends a and b (None: −∞ / +∞)."""
        total = iv.mpf(0)
        for w, c in comps:
            za = None if a is None else (ends[a] - c) / s
            zb = None if b is None else (ends[b] - c) / s
            if za is not None and za.a > 0:
                v = phi(a, c, True) - (0 if b is None else phi(b, c, True))
            elif zb is not None and zb.b < 0:
                v = phi(b, c, False) - (0 if a is None else phi(a, c, False))
            else:
                v = 1 - (0 if a is None else phi(a, c, False)) - (0 if b is None else phi(b, c, True))
            total += kernel.point(Fraction(w)) * v
        return total

    def idx(j: int) -> int | None:
        return None if isinstance(ends[j], str) else j

    masses = [iv.mpf(0)] * n
    if ends[0] != "below":  # losses <= ω_0 go up to ω_0
        masses[0] = mass(pair.p, None, idx(0))
    ehm = iv.exp(-hb)
    e_next = iv.exp(-(lo * hb))
    for j in range(n - 1):
        if not j % 256:
            check_budget("re-deriving the one-step PLD in intervals", n + j, 2 * n)
        e_j, e_next = e_next, e_next * ehm
        if ends[j] == "above" or ends[j + 1] == "below":
            continue
        pi = mass(pair.p, idx(j), idx(j + 1))
        qi = mass(pair.qq, idx(j), idx(j + 1))
        a = (qi - e_next * pi) / (e_j - e_next)
        masses[j] += a
        masses[j + 1] += pi - a
    inf_mass = iv.mpf(0) if ends[-1] == "above" else mass(pair.p, idx(n - 1), None)
    scale = iv.mpf(2) ** bits

    def up(m: Any) -> int:
        v = (m * scale).b
        if not mpmath.isfinite(v):
            raise PrecisionError("a one-step mass could not be enclosed in intervals")
        return max(ceil_mpf(v), 0)

    return lo, [up(m) for m in masses], up(inf_mass)


def f_eps_upper(pld: tuple[int, list[int], int], h: Fraction, bits: int, eps: Fraction) -> Any:
    """Upper end of 2^−bits (Σ_{y_k > ε} c_k (1 − e^{ε−y_k}) + c_∞), y_k = (offset + k)h."""
    offset, cs, inf = pld
    start = max(0, math.floor(eps / h) - offset + 1)
    hb, eb = kernel.point(h), kernel.point(eps)
    r = iv.exp(-hb)
    acc = iv.mpf(0)
    for c in reversed(cs[start:]):
        acc = acc * r + c
    val = sum(cs[start:]) - iv.exp(eb - (offset + start) * hb) * acc
    return ((val + inf) * iv.mpf(2) ** (-bits)).b


def delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """Upper bound (an mpf) of δ_M(ε), max over remove/add, re-derived in intervals."""
    h, bits, tau, z = parse_evidence(ev)
    sigma, q, count = subsampled_gaussians(mech)
    tau_units = int(tau * (1 << bits))
    old = iv.prec
    iv.prec = prec
    try:
        best = None
        for sign in (1, -1):
            pld = compose(one_step(_Pair(sigma, q, sign), h, bits, z), count, bits, tau_units)
            d = f_eps_upper(pld, h, bits, eps)
            best = d if best is None or d > best else best
        return best
    finally:
        iv.prec = old
