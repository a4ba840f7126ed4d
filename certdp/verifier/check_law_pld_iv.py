"""Evidence ``pld_law`` and ``pld_law_lower`` under the second kernel (``certdp verify
--kernel mpmath``): :mod:`certdp.verifier.check_law_pld` with every real-valued step in
mpmath intervals (outward rounding); only the exact integer composition
(:func:`certdp.verifier.check_pld.compose` / ``_compose_lower``) and the evidence parsers
are shared.

The mathematics is that module's (its docstring gives the sources): the base pairs of
Laplace (seed 002 Lemma 33), randomized response and (ε0, δ0)-DP (seed 002 Lemma 32;
Liu et al. 2022 Thm 3.1), the discrete Laplace and Gaussian atoms (Canonne, Kamath &
Steinke 2020); Poisson subsampling per relation (Zhu, Dong & Wang 2022 Thm 6; seed 002
Thm 11); connect-the-dots onto the grid for the upper law (Doroshenko et al. 2022 Thm 3.4),
merged outputs moved down for the lower law; masses rounded up (upper) or down (lower) by
exact ceilings / floors of the intervals' ends; F_ε by :mod:`certdp.verifier.check_pld_iv`.

A comparison the intervals do not decide is treated as that module treats an undecided
ball: an atom not placed raises PrecisionError (the caller retries at twice the precision),
an undecided range end takes the whole [0, total].
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

import mpmath
from mpmath import iv, libmp

from certdp.verifier.errors import PrecisionError, check_budget
from certdp.verifier import iv as kernel
from certdp.verifier.check_law_pld import parse_evidence, parse_lower_evidence, subsampled_base
from certdp.verifier.check_pld import _compose_lower, compose
from certdp.verifier.check_pld_iv import ceil_mpf, f_eps_lower, f_eps_upper


def _pt(q: Fraction) -> Any:
    return kernel.point(Fraction(q))


def _iv(x: Fraction | Any) -> Any:
    return _pt(x) if isinstance(x, Fraction) else x


def _zero(x: Any) -> bool:
    """Certainly exactly 0."""
    return x.a == 0 and x.b == 0


def _hull0(x: Any) -> Any:
    return iv.mpf([0, max(x.b, 0)])


def _units(m: Any, bits: int, up: bool) -> int:
    """The mass in units of 2^−bits rounded up (upper end, PrecisionError if unbounded) or down
    (lower end, 0 if unbounded), at least 0 (:func:`certdp.numerics.ball.fixed_point_units`)."""
    x = m * iv.mpf(2) ** bits
    end = x.b if up else x.a
    if mpmath.isinf(end) or mpmath.isnan(end):
        if up:
            raise PrecisionError("a probability mass could not be bounded at this precision "
                                 "(the loss law is too extreme for this grid)")
        return 0
    if up:
        return max(ceil_mpf(x), 0)
    num, den = libmp.to_rational(x._mpi_[0])
    return max(num // den, 0)


def grid_bracket(x: Fraction | Any, h: Fraction) -> tuple[int, int]:
    """(a, b) with a·h < x < b·h proved, or (k, k) when the exact x is k·h: the exact rational
    floors of the interval's ends."""
    if isinstance(x, Fraction):
        k = math.floor(x / h)
        return (k, k) if k * h == x else (k, k + 1)
    lo_end, hi_end = x._mpi_
    if any(e in (libmp.finf, libmp.fninf, libmp.fnan) for e in (lo_end, hi_end)):
        raise PrecisionError(f"cannot place {x} on the grid: the interval is not finite")
    lo, hi = Fraction(*libmp.to_rational(lo_end)), Fraction(*libmp.to_rational(hi_end))
    a = math.floor(lo / h)
    if a * h == lo:
        a -= 1
    b = math.floor(hi / h) + 1
    return a, b


def _clip01(t: Any) -> Any:
    lo, hi = (min(max(e, 0), 1) for e in (t.a, t.b))
    return iv.mpf([lo, hi])


def split_keeping_q(p: Any, q: Any, ea: Any, eb: Any) -> tuple[Any, Any]:
    """Connect-the-dots (Doroshenko et al. 2022 Thm 3.4): A = (q − e^{−ω_b}p)/(e^{−ω_a} − e^{−ω_b})."""
    A = (q - eb * p) / (ea - eb)
    return A, p - A


def _dl_atoms(mech: Any) -> list[tuple[Fraction, Any, Any]]:
    """The Δ + 1 atoms of discrete_laplace (:meth:`certdp.verifier.mechs.DiscreteLaplace.atoms`)."""
    d, t = int(mech.sensitivity), Fraction(mech.scale)
    r = iv.exp(-1 / _pt(t))
    c = (1 - r) / (1 + r)
    out = [(Fraction(d) / t, 1 / (1 + r), r**d / (1 + r)), (-Fraction(d) / t, r**d / (1 + r), 1 / (1 + r))]
    return out + [(Fraction(d - 2 * x) / t, c * r**x, c * r**(d - x)) for x in range(1, d)]


def _dg_parts(mech: Any) -> tuple[int, Any, Any, Any]:
    """(N, w, [0, Σ_{x>N} w(x)], Z) of discrete_gaussian (:meth:`certdp.verifier.mechs.DiscreteGaussian._parts`)."""
    s, d = Fraction(mech.sigma), int(mech.sensitivity)
    n = int(math.ceil(float(s) * math.sqrt(2 * (iv.prec + 64) * math.log(2)))) + d + 1
    s2 = _pt(2 * s * s)

    def w(x: int) -> Any:
        return iv.exp(-iv.mpf(x * x) / s2)

    tail = w(n + 1) / (1 - iv.exp(-iv.mpf(2 * n + 3) / s2))
    spread = _hull0(tail)
    return n, w, spread, sum((w(x) for x in range(-n, n + 1)), iv.mpf(0)) + 2 * spread


class _BaseIV:
    """A base pair of :class:`certdp.verifier.check_law_pld._Base` in intervals."""

    def __init__(self, base: Any) -> None:
        self.kind, self.value, self.mech, self.delta0 = base.kind, base.value, base.mech, base.delta0

    def tails(self, w: Any | None) -> tuple[Any, Any]:
        if self.kind != "laplace":
            return iv.mpf(0), iv.mpf(0)
        a = _pt(self.value)
        x = iv.mpf(1) if w is None else _clip01((1 - w / a) / 2)
        return (1 - iv.exp(-x * a)) / 2, (iv.exp((x - 1) * a) - iv.exp(-a)) / 2

    def atoms(self) -> list[tuple[Fraction | Any, Any, Any]]:
        v = self.value
        if self.kind == "dl":
            return _dl_atoms(self.mech)
        if self.kind == "dg":
            n, w, _, z = _dg_parts(self.mech)
            d, s2 = int(self.mech.sensitivity), 2 * Fraction(self.mech.sigma) ** 2
            return [(Fraction(d * d - 2 * d * x) / s2, w(x) / z, w(x - d) / z) for x in range(-n, n + 1)]
        if self.kind == "laplace":
            e = iv.exp(-_pt(v)) / 2
            return [(v, iv.mpf(1) / 2, e), (-v, e, iv.mpf(1) / 2)]
        if self.kind == "rr":
            if v == Fraction(1, 2):
                return [(Fraction(0), iv.mpf(1), iv.mpf(1))]
            hi, lo = _pt(v), _pt(1 - v)
            return [(iv.log(hi / lo), hi, lo), (-iv.log(hi / lo), lo, hi)]
        keep = 1 - _pt(self.delta0)
        if v == 0:
            return [(Fraction(0), keep, keep)]
        w = iv.exp(_pt(v))
        return [(v, keep * w / (1 + w), keep / (1 + w)), (-v, keep / (1 + w), keep * w / (1 + w))]

    def infinite(self) -> tuple[Any, Any]:
        if self.kind == "dg":
            n, w, spread, z = _dg_parts(self.mech)
            d = int(self.mech.sensitivity)
            extra = sum((w(y) for y in range(n - d + 1, n + 1)), iv.mpf(0))
            t = _hull0(2 * (spread.b + extra.b) / z.a)
            return t, t
        if self.kind == "pure":
            return _pt(self.delta0), _pt(self.delta0)
        return iv.mpf(0), iv.mpf(0)


class _LawIV:
    """The loss law of one relation (sign +1 remove, −1 add) of subsample(base, γ), in intervals."""

    def __init__(self, base: _BaseIV, gamma: Fraction, sign: int) -> None:
        self.base, self.gamma, self.sign, self.sub = base, _pt(gamma), sign, gamma < 1

    def p_inf(self) -> Any:
        d0 = self.base.infinite()[0]
        if not self.sub:
            return d0
        return self.gamma * d0 if self.sign > 0 else iv.mpf(0)

    def tails(self, w: Fraction | None) -> tuple[Any, Any]:
        if not self.sub:
            return self.base.tails(None if w is None else _pt(w))
        g, c = self.gamma, 1 - self.gamma
        u = iv.mpf(0) if w is None else (_pt(w) if self.sign > 0 else -_pt(w))
        t = iv.exp(u) - c
        if w is None:
            bp, bq = self.base.tails(None)
        elif t.a > 0:
            v = iv.log(t / g)
            bp, bq = self.base.tails(v if self.sign > 0 else -v)
        elif t.b < 0:
            bp, bq = self.base.tails(None) if self.sign > 0 else (iv.mpf(0), iv.mpf(0))
        else:
            tp, tq = self.base.tails(None)
            bp, bq = _hull0(tp), _hull0(tq)
        if self.sign > 0:
            return g * bp + c * bq, bq
        return bp, c * bp + g * bq

    def atoms(self) -> list[tuple[Fraction | Any, Any, Any]]:
        base = self.base.atoms()
        if not self.sub:
            return list(base)
        g, c = self.gamma, 1 - self.gamma
        out: list[tuple[Fraction | Any, Any, Any]] = []
        for ell, p, q in base:
            zero = isinstance(ell, Fraction) and ell == 0
            b = _iv(ell)
            if self.sign > 0:
                out.append((Fraction(0) if zero else iv.log(c + g * iv.exp(b)), g * p + c * q, q))
            else:
                out.append((Fraction(0) if zero else -iv.log(c + g * iv.exp(-b)), p, c * p + g * q))
        p_inf, q_minf = self.base.infinite()
        if self.sign > 0 and not _zero(q_minf):
            out.append((iv.log(c), c * q_minf, q_minf))
        if self.sign < 0 and not _zero(p_inf):
            out.append((-iv.log(c), p_inf, c * p_inf))
        return out


def one_step(law: _LawIV, h: Fraction, bits: int, i_lo: int, i_hi: int) -> tuple[int, list[int], int]:
    """:func:`certdp.verifier.check_law_pld.one_step` in intervals (rounded up)."""
    n = i_hi - i_lo + 1
    if law.base.kind != "laplace":
        masses, inf = [iv.mpf(0)] * n, law.p_inf()
    else:
        pt, qt = [], []
        for i in range(i_lo, i_hi + 1):
            if not (i - i_lo) % 512:
                check_budget("re-deriving the one-step loss-law PLD (mpmath kernel)", i - i_lo, n)
            p, q = law.tails(i * h)
            pt.append(p)
            qt.append(q)
        masses = [iv.mpf(0)] * n
        for j in range(n - 1):
            ea, eb = iv.exp(_pt(-(i_lo + j) * h)), iv.exp(_pt(-(i_lo + j + 1) * h))
            lo_part, hi_part = split_keeping_q(pt[j] - pt[j + 1], qt[j] - qt[j + 1], ea, eb)
            masses[j] += lo_part
            masses[j + 1] += hi_part
        masses[0] += law.tails(None)[0] - pt[0]
        inf = pt[-1] + law.p_inf()
    for ell, p, q in law.atoms():
        a, b = grid_bracket(ell, h)
        if a == b and i_lo <= a <= i_hi:
            masses[a - i_lo] += p
            continue
        if not (i_lo <= a and b <= i_hi):
            if b <= i_lo:
                masses[0] += p
            else:
                inf += p
            continue
        lo_part, hi_part = split_keeping_q(p, q, iv.exp(_pt(-a * h)), iv.exp(_pt(-b * h)))
        masses[a - i_lo] += lo_part
        masses[b - i_lo] += hi_part
    return i_lo, [_units(m, bits, True) for m in masses], _units(inf, bits, True)


def _with_prec(prec: int, f: Any) -> Any:
    old = iv.prec
    iv.prec = prec
    try:
        return f()
    finally:
        iv.prec = old


def delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """An upper bound (mpf) on δ_M(ε) from ``evidence.pld_law``, or the unproved step (str)."""
    h, bits, tau, ranges = parse_evidence(ev)
    base, gamma, count = subsampled_base(mech)
    tau_units = int(tau * (1 << bits))

    def run() -> Any:
        try:
            plds = [compose(one_step(_LawIV(_BaseIV(base), gamma, sign), h, bits, i_lo, i_hi), count, bits, tau_units)
                    for sign, (i_lo, i_hi) in ranges.items()]
        except PrecisionError:
            return "an atom's loss could not be placed between two grid points at this precision"
        return max(f_eps_upper(pld, h, bits, eps) for pld in plds)

    return _with_prec(max(prec, bits + 64), run)


def _floor_index(x: Fraction | Any, h: Fraction) -> int:
    return grid_bracket(x, h)[0]


def one_step_lower(law: _LawIV, h: Fraction, bits: int, shift: Fraction, i_lo: int, i_hi: int,
                   regions: tuple[tuple[int, Fraction, Fraction], ...]) -> tuple[int, list[int], int]:
    """:func:`certdp.verifier.check_law_pld.one_step_lower` in intervals (rounded down)."""
    n = i_hi - i_lo + 1
    bounds = [(i_lo + j + Fraction(1, 2) + shift) * h for j in range(-1, n)]
    first, last = bounds[0], bounds[-1]
    atoms = law.atoms()
    if law.base.kind != "laplace":
        regions = ()
    regs = [(idx, max(u, first), min(v, last)) for idx, u, v in regions]
    regs = [(idx, u, v) for idx, u, v in regs if u < v]
    cuts = sorted(set(bounds) | {x for _, u, v in regs for x in (u, v)}) if law.base.kind == "laplace" else []
    tails = {}
    for c, x in enumerate(cuts):
        if not c % 512:
            check_budget("re-deriving the lower one-step loss-law PLD (mpmath kernel)", c, len(cuts))
        tails[x] = law.tails(x)
    groups: dict[object, list] = {}
    j = 0
    for x, y in zip(cuts, cuts[1:]):
        while bounds[j + 1] < y:
            j += 1
        key = next((("region", r) for r, (_, u, v) in enumerate(regs) if u <= x and y <= v), ("cell", j))
        g = groups.setdefault(key, [iv.mpf(0), iv.mpf(0), math.floor(x / h)])
        g[0] += tails[x][0] - tails[y][0]
        g[1] += tails[x][1] - tails[y][1]
        g[2] = min(g[2], math.floor(x / h))
    masses = [iv.mpf(0)] * n
    merged = set()
    for key, (P, Q, fallback) in groups.items():
        if key[0] == "region":
            idx = regs[key[1]][0]
            ell, p, q = atoms[idx]
            merged.add(idx)
            P, Q = P + p, Q + q
            fallback = min(fallback, _floor_index(ell, h))
        if not P.a > 0:
            continue
        k = fallback
        if Q.a > 0:
            try:
                k = max(k, _floor_index(iv.log(P / Q), h))
            except PrecisionError:
                pass
        k = min(k, i_hi)
        if k >= i_lo:
            masses[k - i_lo] += P
    if tails:
        masses[-1] += tails[last][0]
    for idx, (ell, p, _) in enumerate(atoms):
        if idx in merged:
            continue
        k = min(_floor_index(ell, h), i_hi)
        if k >= i_lo:
            masses[k - i_lo] += p
    return i_lo, [_units(m, bits, False) for m in masses], _units(law.p_inf(), bits, False)


def delta_lower(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """A lower bound (mpf) on δ_M(ε): the larger relation's F_ε of the composed dominated PLDs."""
    h, bits, tau, shift, rels = parse_lower_evidence(ev)
    base, gamma, count = subsampled_base(mech)
    tau_units = int(tau * (1 << bits))

    def run() -> Any:
        best = mpmath.mpf(0)
        for sign, ((i_lo, i_hi), regions) in rels.items():
            step = one_step_lower(_LawIV(_BaseIV(base), gamma, sign), h, bits, shift, i_lo, i_hi, regions)
            d = f_eps_lower(_compose_lower(step, count, bits, tau_units), h, bits, eps)
            best = d if d > best else best
        return best

    return _with_prec(max(prec, bits + 64), run)
