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
from certdp.verifier.phi_fixed import Pair, PhiTable, _scale, to_iv, to_pair


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
    weights = {w: Fraction(w) for w, _ in (*pair.p, *pair.qq)}
    table = PhiTable(iv.prec + 32)
    bits_p, one = table.p, table.one
    zs: dict[tuple[int, int], Any] = {}
    cache: dict[tuple[int, int, bool], Pair] = {}

    def zpair(j: int, c: int) -> Pair:
        """(x_j − c)/σ in fixed point."""
        key = (j, c)
        if key not in zs:
            zs[key] = to_pair((ends[j] - c) / s, bits_p)
        return zs[key]

    def phi(j: int, c: int, upper: bool) -> Pair:
        """Φ((x_j − c)/σ), or its upper tail Φ(−(x_j − c)/σ), in fixed point: the Taylor
        table (:mod:`certdp.verifier.phi_fixed`), or the rigorous erfc where it does not apply."""
        key = (j, c, upper)
        if key not in cache:
            z = zpair(j, c)
            z = (-z[1], -z[0]) if upper else z
            try:
                cache[key] = table.phi_cdf(z)
            except PrecisionError:
                cache[key] = to_pair(kernel.ncdf(to_iv(z, bits_p)), bits_p)
        return cache[key]

    def mass(comps: tuple, a: int | None, b: int | None) -> Any:
        """Mixture mass between ends a and b (None: −∞ / +∞), as an interval."""
        lo = hi = 0
        for w, c in comps:
            za = None if a is None else zpair(a, c)
            zb = None if b is None else zpair(b, c)
            if za is not None and za[0] > 0:
                x, y = phi(a, c, True), (0, 0) if b is None else phi(b, c, True)
                v = (x[0] - y[1], x[1] - y[0])
            elif zb is not None and zb[1] < 0:
                x, y = phi(b, c, False), (0, 0) if a is None else phi(a, c, False)
                v = (x[0] - y[1], x[1] - y[0])
            else:
                x = (0, 0) if a is None else phi(a, c, False)
                y = (0, 0) if b is None else phi(b, c, True)
                v = (one - x[1] - y[1], one - x[0] - y[0])
            v = _scale((max(v[0], 0), v[1]), weights[w])
            lo, hi = lo + v[0], hi + v[1]
        return to_iv((lo, hi), bits_p)

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
