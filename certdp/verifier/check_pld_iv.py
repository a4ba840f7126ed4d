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

import functools
import math
from fractions import Fraction
from typing import Any, Callable, Mapping

import mpmath
from mpmath import iv, libmp
from mpmath.libmp import libmpi

from certdp.verifier.check_pld import (_Pair, _compose_lower, compose, cut_step, parse_cut, parse_evidence,
                                       parse_lower_evidence, subsampled_gaussians)
from certdp.verifier.errors import PrecisionError, check_budget
from certdp.verifier import iv as kernel
from certdp.verifier.phi_fixed import Pair, PhiTable, _scale, to_iv, to_pair


def _x_of_loss(pair: _Pair, w: Any) -> Any:
    """Interval of the x with L(x) = w; None when w is certainly at/below (remove) or
    at/above (add) the loss range.  On mpmath's raw interval tuples (``libmpi``: the outward
    rounded operations ``mpmath.iv`` is built on), the pair's constants made once per
    precision: it runs at every grid point."""
    prec = iv.prec
    q, s2 = _pair_constants(pair.q, pair.sigma, prec)
    u = w._mpi_ if pair.sign > 0 else libmpi.mpi_neg(w._mpi_)
    if pair.q == 1:
        t = u
    else:
        arg = libmpi.mpi_add(libmpi.mpi_sub(libmpi.mpi_exp(u, prec), _ONE, prec), q, prec)
        if not libmp.mpf_gt(arg[1], libmp.fzero):
            return None
        if not libmp.mpf_gt(arg[0], libmp.fzero):
            raise PrecisionError("a grid point's loss could not be placed in intervals")
        t = libmpi.mpi_log(libmpi.mpi_div(arg, q, prec), prec)
    x = libmpi.mpi_add(libmpi.mpi_mul(t, s2, prec), _HALF, prec)
    return iv.make_mpf(x if pair.sign > 0 else libmpi.mpi_neg(x))


_ONE = (libmp.fone, libmp.fone)
_HALF = (libmp.from_man_exp(1, -1), libmp.from_man_exp(1, -1))


@functools.lru_cache(maxsize=64)
def _pair_constants(q: Fraction, sigma: Fraction, prec: int) -> tuple[tuple, tuple]:
    """(q, σ²) as raw interval tuples at ``prec`` bits."""
    old = iv.prec
    iv.prec = prec
    try:
        return kernel.point(q)._mpi_, (kernel.point(sigma) ** 2)._mpi_
    finally:
        iv.prec = old


def ceil_mpf(v: Any) -> int:
    """⌈v⌉ of a finite mpf (or of an interval's upper end), exactly.  (``mpmath.ceil``
    rounds its integer result to the working precision ``mp.prec``, 53 bits by default:
    a value near 2^60 could come back up to 2^7 units too small, a mass rounded DOWN
    where it must go up.)"""
    raw = v._mpi_[1] if hasattr(v, "_mpi_") else v._mpf_  # an interval's upper end, or an mpf
    num, den = mpmath.libmp.to_rational(raw)  # exact, signed numerator
    return -((-num) // den)


class _FixedMasses:
    """Mixture masses of a pair's components between two ends, in fixed point (p bits):
    Φ from the Taylor table (:mod:`certdp.verifier.phi_fixed`), or the rigorous erfc where
    it does not apply; each end's z = (x − c)/σ and Φ are made once."""

    def __init__(self, pair: _Pair, p: int) -> None:
        self.pair, self.p = pair, p
        self.table = PhiTable(p)
        self.one = self.table.one
        self.weights = {w: Fraction(w) for w, _ in (*pair.p, *pair.qq)}
        self.zs: dict[tuple[Any, int], Pair] = {}
        self.cache: dict[tuple[Any, int, bool], Pair] = {}

    def z(self, end: Any, c: int, zfun: Callable[[Any, int], Pair]) -> Pair:
        key = (end, c)
        if key not in self.zs:
            self.zs[key] = zfun(end, c)
        return self.zs[key]

    def phi(self, end: Any, c: int, upper: bool, zfun: Callable[[Any, int], Pair]) -> Pair:
        """Φ(z), or the upper tail Φ(−z), at the end's z."""
        key = (end, c, upper)
        if key not in self.cache:
            z = self.z(end, c, zfun)
            z = (-z[1], -z[0]) if upper else z
            try:
                self.cache[key] = self.table.phi_cdf(z)
            except PrecisionError:
                self.cache[key] = to_pair(kernel.ncdf(to_iv(z, self.p)), self.p)
        return self.cache[key]

    def mass(self, comps: tuple, a: Any, b: Any, zfun: Callable[[Any, int], Pair]) -> Pair:
        """Mixture mass between ends a and b (None: −∞ / +∞), as a fixed-point pair."""
        lo = hi = 0
        one = self.one
        for w, c in comps:
            za = None if a is None else self.z(a, c, zfun)
            zb = None if b is None else self.z(b, c, zfun)
            if za is not None and za[0] > 0:
                x = self.phi(a, c, True, zfun)
                y = (0, 0) if b is None else self.phi(b, c, True, zfun)
                v = (x[0] - y[1], x[1] - y[0])
            elif zb is not None and zb[1] < 0:
                x = self.phi(b, c, False, zfun)
                y = (0, 0) if a is None else self.phi(a, c, False, zfun)
                v = (x[0] - y[1], x[1] - y[0])
            else:
                x = (0, 0) if a is None else self.phi(a, c, False, zfun)
                y = (0, 0) if b is None else self.phi(b, c, True, zfun)
                v = (one - x[1] - y[1], one - x[0] - y[0])
            v = _scale((max(v[0], 0), v[1]), self.weights[w])
            lo, hi = lo + v[0], hi + v[1]
        return lo, hi


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
    fm = _FixedMasses(pair, iv.prec + 32)

    def zpair(j: int, c: int) -> Pair:
        return to_pair((ends[j] - c) / s, fm.p)

    def mass(comps: tuple, a: int | None, b: int | None) -> Any:
        return to_iv(fm.mass(comps, a, b, zpair), fm.p)

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
    cut = parse_cut(ev)
    sigma, q, count = subsampled_gaussians(mech)
    tau_units = int(tau * (1 << bits))
    old = iv.prec
    iv.prec = prec
    try:
        best = None
        for i, sign in enumerate((1, -1)):
            step = one_step(_Pair(sigma, q, sign), h, bits, z)
            pld = compose(step if cut is None else cut_step(step, cut[i]), count, bits, tau_units)
            d = f_eps_upper(pld, h, bits, eps)
            best = d if best is None or d > best else best
        return best
    finally:
        iv.prec = old


def one_step_lower(pair: _Pair, h: Fraction, bits: int, cuts: tuple[Fraction, ...]) -> tuple[int, list[int], int]:
    """:func:`certdp.verifier.check_pld.one_step_lower` in intervals: each interval J of the
    x-axis partition at ``cuts`` becomes one atom of loss ℓ_J = log(P(J)/Q(J)) at the grid
    point ⌊lower(ℓ_J)/h⌋·h with mass P(J) rounded down to 2^−bits (a post-processing: it
    lowers δ); intervals whose masses are not certainly positive are dropped."""
    fm = _FixedMasses(pair, max(iv.prec, bits) + 32)
    sig = pair.sigma

    def zcut(i: int, c: int) -> Pair:  # (cut_i − c)/σ, exact rational, outward
        v = (cuts[i] - c) / sig * 2**fm.p
        return v.numerator // v.denominator, -((-v.numerator) // v.denominator)

    ends: list[int | None] = [None, *range(len(cuts)), None]
    atoms: dict[int, int] = {}
    for j in range(len(ends) - 1):
        if not j % 1024:
            check_budget("re-deriving the lower one-step PLD in intervals", j, len(ends))
        P = fm.mass(pair.p, ends[j], ends[j + 1], zcut)
        Q = fm.mass(pair.qq, ends[j], ends[j + 1], zcut)
        if not (P[0] > 0 and Q[0] > 0):
            continue
        raw = iv.log(to_iv(P, fm.p) / to_iv(Q, fm.p))._mpi_[0]  # lower end of ℓ_J
        if raw in (libmp.fninf, libmp.finf, libmp.fnan):
            continue
        num, den = libmp.to_rational(raw)
        k = math.floor(Fraction(num, den) / h)
        c = P[0] >> (fm.p - bits)  # ⌊P(J)·2^bits⌋
        if c > 0:
            atoms[k] = atoms.get(k, 0) + c
    if not atoms:
        raise PrecisionError("the lower one-step PLD is empty")
    lo, hi = min(atoms), max(atoms)
    coeffs = [0] * (hi - lo + 1)
    for k, c in atoms.items():
        coeffs[k - lo] = c
    return lo, coeffs, 0


def f_eps_lower(pld: tuple[int, list[int], int], h: Fraction, bits: int, eps: Fraction) -> Any:
    """Lower end of 2^−bits Σ_{y_k > ε} c_k (1 − e^{ε−y_k}) (no mass at +∞)."""
    offset, cs, _ = pld
    start = max(0, math.floor(eps / h) - offset + 1)
    hb, eb = kernel.point(h), kernel.point(eps)
    r = iv.exp(-hb)
    acc = iv.mpf(0)
    for c in reversed(cs[start:]):
        acc = acc * r + c
    val = sum(cs[start:]) - iv.exp(eb - (offset + start) * hb) * acc
    return (val * iv.mpf(2) ** (-bits)).a


def delta_lower(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """Lower bound (an mpf) of δ_M(ε) = max over remove/add from the dominated PLDs of
    ``evidence.pld_lower``, re-derived in intervals (only the integer composition is shared)."""
    h, bits, tau, rem, add = parse_lower_evidence(ev)
    sigma, q, count = subsampled_gaussians(mech)
    tau_units = int(tau * (1 << bits))
    old = iv.prec
    iv.prec = prec
    try:
        best = None
        for sign, cuts in ((1, rem), (-1, add)):
            step = one_step_lower(_Pair(sigma, q, sign), h, bits, cuts)
            d = f_eps_lower(_compose_lower(step, count, bits, tau_units), h, bits, eps)
            best = d if best is None or d > best else best
        return best
    finally:
        iv.prec = old
