"""The Gaussian differential privacy transformation (GDPT) and certified μ.

For a privacy profile δ_A the GDPT is G(ε) = μ_GDP(ε, δ_A(ε)), the μ with
δ_μ(ε) = δ_A(ε) (Liu et al. 2022 Def 4.1), and the optimal GDP parameter is
sup_ε G(ε) (Liu et al. 2022 Cor 4.1).  This module encloses that supremum.

Monotone cell argument (heart of Liu et al. 2022 Thm 4.6, DESIGN.md).  For ε in a
cell [a, b]: δ_A(ε) <= δ_A(a) (a profile is non-increasing) and
δ_μ(ε) >= δ_μ(b) (δ_μ is decreasing in ε).  Hence a partition
0 = a_0 < a_1 < ... < a_n = ε_h with

    upper(δ_A(a_i)) <= lower(δ_μ⁺(a_{i+1}))      for every i

proves δ_A <= δ_μ⁺ on [0, ε_h], i.e. (ε_h, μ⁺)-head GDP, with forward ball
evaluations only.  :func:`measure` builds such a partition greedily: from a it
jumps to (just below) the b solving δ_μ⁺(b) = δ_A(a) (a tangent step, safe by
convexity of δ_μ in ε, or a log-space Newton step when the gap is large), so
only cells near the maximiser of G are small ("split only where needed").
When the profile expression has an evaluable derivative, a cell may instead be
proved by the second-order (mean value) test of
:mod:`certdp.numerics.cells`; near the maximiser cells then shrink like
√margin instead of margin (Laplace, width 1e-9: 40 cells instead of ~10⁵).
μ⁺ is tightened by bisection on this check.  A lower bound μ⁻ comes from a
certified witness ε*: μ⁻ <= μ_GDP(ε*, lower(δ_A(ε*))) <= G(ε*).

Tail beyond ε_h (Liu et al. 2022 §4.2), stated in the result:

* ``zero``: δ_A(ε_h) = 0 (certified), so δ_A = 0 on [ε_h, ∞): full μ⁺-GDP.
* ``limit``: identification (Liu et al. 2022 Thm 4.4) gives L = limsup ε²/(-2 log δ_A);
  if √L > μ⁺ the strict GDP parameter is at least √L (``strict_mu_at_least``).
  For an upper-bound-only profile, √L of the bound is only an upper end on the
  mechanism's tail limit (``tail_mu_at_most``); see :mod:`certdp.analyses.gdpt_tail`.
* ``residual``: always true: δ_A(ε) <= δ_A(ε_h) <= η on (ε_h, ∞), so
  δ_A(ε) <= δ_μ⁺(ε) + η for all ε >= 0 ("μ⁺-GDP except η").  ε_h is chosen
  automatically so that η <= ``eta_max`` (default 1e-30) when possible.
  ``clip_reify`` (Liu et al. 2022 Thm 4.7) closes the gap: clipping and adding
  Laplace noise of scale (y⁺-y⁻)/ε_h makes the profile zero from ε_h on.

The corrected reference version of Liu et al. 2022 App. D, Algorithm 3 lives in
:mod:`certdp.analyses.algorithm3`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb

from certdp.errors import InputError, PrecisionError, check_budget
from certdp.mechanisms.base import Mechanism, ProfileKind
from certdp.numerics.ball import (
    MAX_PREC,
    dyadic_to_fraction,
    lower_bound,
    to_ball,
    upper_bound,
    working_precision,
)
from certdp.numerics.decide import decide, refine
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact, fraction_to_str
from certdp.numerics.gdp import (
    _delta_mu_start_prec,
    _mu_guess,
    delta_mu_adaptive,
    delta_mu_ball,
    mu_from_eps_delta,
)
from certdp.analyses.gdpt_tail import Tail, tail_of
from certdp.mechanisms.profile_functions import profile_functions
from certdp.numerics.cells import second_order_holds
from certdp.numerics.normal import MILLS_SERIES_FROM, Phi_ball, mills_ratio_series_ball, phi_ball

#: Default absolute width of the μ enclosure.
DEFAULT_WIDTH = Fraction(1, 10**6)
#: Default bound on the residual η = δ_A(ε_h).
DEFAULT_ETA_MAX = Fraction(1, 10**30)
#: Largest ε_h the automatic choice tries (Liu et al. 2022 §4.2 uses ε_h = 100).
AUTO_EPS_MAX = Fraction(128)
#: Working precision of profile evaluations (raised automatically when loose).
PROFILE_PREC = 96
#: Cell budget of one cover attempt.
MAX_CELLS = 250_000



# ---------------------------------------------------------------------------
# evaluation helpers (counted)
# ---------------------------------------------------------------------------


class _Counter:
    def __init__(self) -> None:
        self.profile = 0
        self.mu = 0


def profile_ball(mech: Mechanism, eps: Fraction, prec: int = PROFILE_PREC, counter: _Counter | None = None) -> arb:
    """Ball for δ_A(eps), refined (one decision loop) until 40 bits of relative
    accuracy, or at 4× the starting precision whatever it is (still sound)."""
    def compute(_p: int) -> arb:
        if counter is not None:
            counter.profile += 1
        return mech.delta_ball(to_ball(eps))

    def good(y: arb) -> bool:
        return y.is_exact() or y.rel_accuracy_bits() >= 40

    try:
        y = refine(compute, good, start=prec, cap=4 * prec, what=f"the profile of {mech!r} at eps = {eps}")
    except PrecisionError:
        y = refine(compute, lambda _y: True, start=8 * prec, cap=MAX_PREC // 2,
                   what=f"profile of {mech!r} at eps = {eps}: non-finite ball")
    return y


def _frac(x: arb) -> Fraction:
    return dyadic_to_fraction(x)


def _dyadic_up(x: Fraction, bits: int = 64) -> Fraction:
    """A short dyadic >= x."""
    if x == 0:
        return x
    a = abs(x)  # ⌊log2 a⌋ within 1 from bit lengths (a float log2 under/overflows at 1e±400)
    e = a.numerator.bit_length() - a.denominator.bit_length() - bits
    scale = Fraction(2) ** e
    return math.ceil(x / scale) * scale


def _decimal_down(x: float, resolution: float, floor_value: Fraction) -> Fraction:
    """A short decimal <= x with about ``resolution`` spacing (search points only)."""
    j = max(0, math.ceil(-math.log10(max(resolution, 1e-300))))
    q = Fraction(math.floor(x * 10**j), 10**j) if j < 300 else Fraction(x)
    return q


def delta_mu_cert_ball(mu: Fraction, eps: Fraction, rel_bits: int = 64) -> arb:
    """δ_μ(ε) ball at a precision that absorbs the cancellation of its two terms."""
    prec = _delta_mu_start_prec(rel_bits, mu, eps)
    with working_precision(prec):
        return delta_mu_ball(to_ball(mu), to_ball(eps))


# ---------------------------------------------------------------------------
# GDPT
# ---------------------------------------------------------------------------


def _mu_gdp_lower(eps: Fraction, delta_lo: arb, width: Fraction) -> Fraction:
    """Certified lower bound of μ_GDP(eps, δ) for every δ >= delta_lo."""
    if not delta_lo > 0:
        return Fraction(0)
    d = _frac(delta_lo)
    if d >= 1:
        raise InputError(f"delta_A({fraction_to_str(eps)}) >= 1: not GDP for any mu")
    return _frac(mu_from_eps_delta(eps, d, width=width).lo)


def _mu_gdp_upper(eps: Fraction, delta_hi: arb, width: Fraction) -> Fraction:
    """Certified upper bound of μ_GDP(eps, δ) for every δ <= delta_hi."""
    if not delta_hi > 0:
        return Fraction(0)
    d = _frac(delta_hi)
    if d >= 1:
        raise PrecisionError(f"profile ball at eps = {fraction_to_str(eps)} reaches 1")
    return _frac(mu_from_eps_delta(eps, d, width=width).hi)


def gdpt_of_delta(eps: Fraction, delta: Enclosure, width: Fraction = Fraction(1, 10**9)) -> Enclosure:
    """G(ε) from a δ_A(ε) enclosure: μ_GDP(ε, ·) increases, so G(ε) ∈
    [μ_GDP(ε, δ.lo), μ_GDP(ε, δ.hi)] (a lower end δ.lo = 0 gives 0)."""
    lo = _mu_gdp_lower(eps, delta.lo, width)
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(_mu_gdp_upper(eps, delta.hi, width)))


def gdpt(mechanism: Mechanism, eps: object, *, width: object = Fraction(1, 10**12)) -> Enclosure:
    """Certified G(ε) = μ_GDP(ε, δ_A(ε)) (Liu et al. 2022 Def 4.1).

    δ_A(ε) = 0 gives G(ε) = 0 (δ_μ > 0 for every μ > 0).  Width of the result is
    about ``width`` plus the effect of the profile ball's width.
    """
    e = exact(eps, "eps")
    if e < 0:
        raise InputError(f"eps must be >= 0, got {eps}")
    w = exact(width, "width")
    if w <= 0:
        raise InputError(f"width must be positive, got {width}")
    y = profile_ball(mechanism, e, prec=160)
    lo = _mu_gdp_lower(e, lower_bound(y), w)
    hi = _mu_gdp_upper(e, upper_bound(y), w)
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(hi))


def _gdpt_float(mech: Mechanism, eps: Fraction, counter: _Counter | None = None) -> float:
    """Float estimate of G(ε) (search only; never reported)."""
    check_budget("the GDPT maximum search", None if counter is None else counter.profile, None)
    y = profile_ball(mech, eps, prec=64, counter=counter)
    m = y.mid()
    if not m > 2.0 ** -1000:  # δ this small: G ≈ 0 for the float search
        return 0.0
    d = _frac(m)
    if d >= 1:
        return math.inf
    return _mu_guess(eps, d)[0]


# ---------------------------------------------------------------------------
# the cover (monotone cell argument)
# ---------------------------------------------------------------------------


@dataclass
class _Cover:
    ok: bool
    breakpoints: list[Fraction]
    fail_at: Fraction | None = None
    budget: bool = False


def _dmu_slope(mu_b: arb, eb: arb) -> tuple[arb, arb]:
    """Balls (δ_μ(ε), -dδ_μ/dε = e^ε Φ(-ε/μ - μ/2)) from shared terms (current precision)."""
    A = -eb / mu_b + mu_b / 2
    if A.upper() <= -MILLS_SERIES_FROM:
        # e^ε φ(A - μ) = φ(A): slope = φ(A) R(μ - A)
        return delta_mu_ball(mu_b, eb), phi_ball(A) * mills_ratio_series_ball(mu_b - A)
    t = eb.exp() * Phi_ball(A - mu_b)
    return Phi_ball(A) - t, t


def _dmu_slope_at(mu: Fraction, mu_b: arb, eps: Fraction, eps_b: arb | None = None) -> tuple[arb, arb]:
    prec = _delta_mu_start_prec(64, mu, eps)
    with working_precision(prec):
        return _dmu_slope(mu_b, to_ball(eps) if eps_b is None else eps_b)


def _point_ball(x: Fraction) -> arb:
    """A 128-bit ball containing x (reused for every evaluation at x)."""
    with working_precision(128):
        return to_ball(x)


def _search_step(mu_b: arb, mu: Fraction, a: Fraction, U: arb, d: arb, slope: arb, counter: _Counter) -> float:
    """Float step s > 0 with δ_μ(a+s) ≈ δ_A(a) from below (search only; 0: no room).

    ``d``, ``slope`` are balls of δ_μ(a) and -δ_μ'(a).
    """
    af = float(a)
    prec = _delta_mu_start_prec(40, float(mu), af)
    with working_precision(prec):
        gap = d - U
        if not gap > 0:
            return 0.0
        s1 = float((gap / slope).mid())  # tangent step: safe (δ_μ convex in ε)
        s2 = float(((d / U).log() * d / slope).mid())  # log-space tangent: overshoots
    if not (math.isfinite(s1) and s1 > 0):
        return 0.0
    if not math.isfinite(s2) or s2 <= 1.05 * s1:
        return s1 * (1 - 1e-9)
    # log-space Newton towards the root of log δ_μ(x) = log U
    x = af + s1
    with working_precision(prec + 16):
        lu = U.log()
        for _ in range(12):
            xb = arb(x)
            dx, sx = _dmu_slope(mu_b, xb)
            counter.mu += 1
            if not dx > 0:
                break
            step = float(((dx.log() - lu) * dx / sx).mid())
            if not math.isfinite(step):
                break
            x = max(x + step, af + s1)
            if abs(step) <= 1e-12 * (x - af):
                break
    return max(s1 * (1 - 1e-9), (x - af) * (1 - 1e-7))


def _cover(
    mech: Mechanism,
    mu: Fraction,
    eps_h: Fraction,
    min_step: float,
    counter: _Counter,
    max_cells: int = MAX_CELLS,
) -> _Cover:
    """Greedy partition of [0, eps_h] certifying δ_A <= δ_μ cell by cell."""
    a = Fraction(0)
    points = [a]
    with working_precision(128):
        mu_b = to_ball(mu)
    d_a, sl_a = _dmu_slope_at(mu, mu_b, a)
    a_ball = _point_ball(a)
    counter.mu += 1
    while a < eps_h:
        check_budget("the GDPT cell cover")
        if len(points) > max_cells:
            return _Cover(False, points, a, budget=True)
        with working_precision(PROFILE_PREC):
            U = mech.delta_ball(a_ball)
        counter.profile += 1
        if not U.is_finite():
            U = profile_ball(mech, a, counter=counter)
        if U.is_zero() or U <= 0:
            points.append(eps_h)  # δ_A = 0 on [a, ∞): any cell end works
            break
        s = _search_step(mu_b, mu, a, U, d_a, sl_a, counter)
        if not s > 0:
            return _Cover(False, points, a)
        done = False
        for _ in range(24):
            if s < min_step:
                break
            target = float(a) + s
            if target >= float(eps_h):
                b = eps_h
            else:
                b = _decimal_down(target, s / 1024, a)
                if b <= a:
                    b = a + Fraction(s).limit_denominator(10**18)
            b_ball = _point_ball(b)
            d_b, sl_b = _dmu_slope_at(mu, mu_b, b, b_ball)
            counter.mu += 1
            if U <= d_b:  # arb: upper(δ_A(a)) <= lower(δ_μ(b))
                done = True
                break
            s = (float(b) - float(a)) * 0.5 if b > a else s * 0.5
        if not done:
            return _Cover(False, points, a)
        points.append(b)
        a, a_ball, d_a, sl_a = b, b_ball, d_b, sl_b
    return _Cover(True, points)


def _cover2(
    mech: Mechanism,
    fns: tuple,
    mu: Fraction,
    eps_h: Fraction,
    min_step: float,
    counter: _Counter,
    max_cells: int = MAX_CELLS,
) -> _Cover:
    """Like :func:`_cover`, but each cell may also be proved by the second-order
    (mean value) test of :mod:`certdp.numerics.cells`; the larger proved
    step wins.  Near the maximiser of G cells then shrink like √margin, not margin."""
    P, dP = fns
    a = Fraction(0)
    points = [a]
    with working_precision(128):
        mu_b = to_ball(mu)
    d_a, sl_a = _dmu_slope_at(mu, mu_b, a)
    a_ball = _point_ball(a)
    counter.mu += 1
    h_prev: float | None = None
    while a < eps_h:
        check_budget("the GDPT cell cover")
        if len(points) > max_cells:
            return _Cover(False, points, a, budget=True)
        prec = max(PROFILE_PREC, _delta_mu_start_prec(64, mu, a))
        with working_precision(prec):
            U = mech.delta_ball(a_ball)
        counter.profile += 1
        if not U.is_finite():
            U = profile_ball(mech, a, counter=counter)
        if U.is_zero() or U <= 0:
            points.append(eps_h)
            break
        room = float(eps_h - a)
        best_b: Fraction | None = None
        best_next: tuple[arb, arb, arb] | None = None
        # -- second order
        with working_precision(prec):
            Pa = P(a_ball)
            fa = d_a - Pa
            counter.profile += 1
            if fa > 0:
                fprime = -sl_a - dP(a_ball)
                if fprime < 0:
                    h0 = float((fa / -fprime).mid())
                else:
                    h0 = room
        if fa > 0:
            h = min(h0 if math.isfinite(h0) and h0 > 0 else room, room)
            if h_prev is not None:
                h = min(h, 4 * h_prev)
            for _ in range(20):
                if h < min_step:
                    break
                b = eps_h if float(a) + h >= float(eps_h) else _decimal_down(float(a) + h, h / 1024, a)
                if b <= a:
                    break
                b_ball = _point_ball(b)
                pb = max(prec, _delta_mu_start_prec(64, mu, b))
                with working_precision(pb):
                    ok = second_order_holds(P, dP, mu_b, a_ball, b_ball, b - a, f_a=fa)
                counter.profile += 1
                counter.mu += 1
                if ok:
                    best_b = b
                    break
                h *= 0.5
        # -- first order (better far from the maximiser: log-space steps)
        s = _search_step(mu_b, mu, a, U, d_a, sl_a, counter)
        if s > 0 and (best_b is None or float(a) + s > float(best_b) * (1 + 1e-12) + 1e-300):
            for _ in range(24):
                if s < min_step:
                    break
                target = float(a) + s
                b = eps_h if target >= float(eps_h) else _decimal_down(target, s / 1024, a)
                if b <= a or (best_b is not None and b <= best_b):
                    break
                b_ball = _point_ball(b)
                d_b, sl_b = _dmu_slope_at(mu, mu_b, b, b_ball)
                counter.mu += 1
                if U <= d_b:
                    best_b, best_next = b, (b_ball, d_b, sl_b)
                    break
                s = (float(b) - float(a)) * 0.5
        if best_b is None:
            return _Cover(False, points, a)
        if best_next is None:
            b_ball = _point_ball(best_b)
            d_b, sl_b = _dmu_slope_at(mu, mu_b, best_b, b_ball)
            counter.mu += 1
            best_next = (b_ball, d_b, sl_b)
        h_prev = float(best_b - a)
        points.append(best_b)
        a = best_b
        a_ball, d_a, sl_a = best_next
    return _Cover(True, points)


# ---------------------------------------------------------------------------
# result objects
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
    """Certified result of :func:`measure`.

    ``mu`` = [μ⁻, μ⁺]: δ_A <= δ_μ⁺ on [0, eps_max] (cells) and G(witness) >= μ⁻.
    ``residual`` encloses δ_A(eps_max), so δ_A(ε) <= δ_μ⁺(ε) + residual.hi for all ε >= 0.
    """

    spec: str
    mu: Enclosure
    eps_max: Fraction
    residual: Enclosure
    tail: Tail
    strict_mu_at_least: Enclosure | None
    witness_eps: Fraction | None
    breakpoints: tuple[Fraction, ...] = field(repr=False)
    evaluations: int
    mu_evaluations: int
    precision: int = PROFILE_PREC
    #: hypotheses the mechanism's profile rests on that certdp could not prove
    #: (recursive over nested mechanisms); the result holds under them.
    assumptions: tuple[str, ...] = ()
    #: what the profile used is; for UPPER the lower end μ⁻ is 0 and there is no witness
    profile_kind: ProfileKind = ProfileKind.EXACT
    #: √L of an upper-bound-only profile: limsup G of the mechanism is at most this (gdpt_tail)
    tail_mu_at_most: Enclosure | None = None

    @property
    def cells(self) -> int:
        return len(self.breakpoints) - 1

    @property
    def mu_upper(self) -> Fraction:
        return _frac(self.mu.hi)

    @property
    def mu_lower(self) -> Fraction:
        return _frac(self.mu.lo)

    def statement(self) -> str:
        mu_s = self.mu.hi_str(12)
        if self.tail.kind == "zero":
            s = f"{mu_s}-GDP (profile is 0 from eps = {fraction_to_str(self.tail.eps_zero)})"
        else:
            s = (
                f"{mu_s}-GDP except residual: delta_A(eps) <= delta_mu(eps) + {self.residual.hi_str(6)} "
                f"for all eps >= 0 (head proved on [0, {fraction_to_str(self.eps_max)}])"
            )
        if not self.profile_kind.bounds_from_below:
            s += " [upper bound only: the mechanism's profile is only bounded from above, so no lower bound on mu is proved]"
        if self.assumptions:
            s += f" [ASSUMING unproved hypotheses: {'; '.join(self.assumptions)}]"
        if self.strict_mu_at_least is not None:
            s += f"; the strict GDP parameter is at least {self.strict_mu_at_least.lo_str(8)} (tail limit)"
        elif self.tail.L == "oo" and self.profile_kind.bounds_from_below:
            s += "; NOT GDP for any mu (tail limit is infinite)"
        if self.tail_mu_at_most is not None:
            s += (f"; GDP, with tail limit limsup G <= {self.tail_mu_at_most.hi_str(8)} (sqrt(L) of the upper "
                  f"bound, L = {self.tail.upper_L}; Liu et al. 2022 Thm 4.3/4.4)")
        return s

    def __str__(self) -> str:
        return f"μ ∈ {self.mu}  [{self.statement()}; {self.cells} cells, {self.evaluations} profile evaluations]"

    def to_json(self) -> dict[str, Any]:
        """The ``certdp measure --json`` object."""
        return {
            "mu": self.mu.to_json(),
            "eps_max": fraction_to_str(self.eps_max),
            "residual": self.residual.to_json(),
            "tail": self.tail.to_json(),
            "strict_mu_at_least": None if self.strict_mu_at_least is None else self.strict_mu_at_least.to_json(),
            "tail_mu_at_most": None if self.tail_mu_at_most is None else self.tail_mu_at_most.to_json(),
            "evaluations": self.evaluations,
            "cells": self.cells,
            "profile_kind": self.profile_kind.value,
            "assumptions": list(self.assumptions),
        }



# ---------------------------------------------------------------------------
# measure
# ---------------------------------------------------------------------------


def _choose_eps_h(mech: Mechanism, eta_max: Fraction, counter: _Counter) -> tuple[Fraction, arb]:
    """Smallest tried ε_h (dyadic, refined by bisection) with upper δ_A(ε_h) <= eta_max.

    Returns (ε_h, ball of δ_A(ε_h)).  Falls back to AUTO_EPS_MAX.
    """
    e = Fraction(1, 4)
    prev = Fraction(0)
    while True:
        y = profile_ball(mech, e, counter=counter)
        if _le(upper_bound(y), eta_max):
            break
        if e >= AUTO_EPS_MAX:
            return AUTO_EPS_MAX, y
        prev, e = e, min(2 * e, AUTO_EPS_MAX)
    # bisection between prev (fails) and e (passes), 8 steps
    lo, hi, yhi = prev, e, y
    for _ in range(8):
        mid = (lo + hi) / 2
        ym = profile_ball(mech, mid, counter=counter)
        if _le(upper_bound(ym), eta_max):
            hi, yhi = mid, ym
        else:
            lo = mid
    return hi, yhi


def _le(x: arb, q: Fraction) -> bool:
    """Certified x <= q for an exact ball x and a rational q."""
    def test(_prec: int) -> bool | None:
        b = to_ball(q)
        return True if x <= b else (False if x > b else None)

    return decide(test, start=128, what=f"comparing {x} with {q}")


def _sample_points(eps_h: Fraction) -> list[Fraction]:
    h = float(eps_h)
    pts = {Fraction(0), eps_h}
    lin = min(h, 8.0)
    for i in range(1, 41):
        pts.add(Fraction(lin * i / 40).limit_denominator(10**9))
    if h > 8:
        r = (h / 8) ** (1 / 24)
        for i in range(1, 24):
            pts.add(Fraction(8 * r**i).limit_denominator(10**9))
    return sorted(p for p in pts if p <= eps_h)


def _golden_max(f, lo: float, hi: float, iters: int = 40) -> tuple[float, float]:
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        if f1 >= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return (x1, f1) if f1 >= f2 else (x2, f2)


def _argmax_search(mech: Mechanism, eps_h: Fraction, counter: _Counter, around: Fraction | None = None) -> tuple[Fraction, float]:
    """Float search for the maximiser of G on [0, eps_h] (search only)."""
    if around is None:
        pts = _sample_points(eps_h)
    else:
        r = max(float(eps_h) * 1e-3, 1e-9)
        pts = sorted({max(Fraction(0), around - Fraction(r)), around, min(eps_h, around + Fraction(r))})
    vals = [(_gdpt_float(mech, p, counter), p) for p in pts]
    order = sorted(range(len(pts)), key=lambda i: -vals[i][0])
    best_v, best_x = vals[order[0]]
    for i in order[:2]:
        lo = float(pts[max(i - 1, 0)])
        hi = float(pts[min(i + 1, len(pts) - 1)])
        if hi <= lo:
            continue

        def f(x: float) -> float:
            return _gdpt_float(mech, Fraction(x), counter)

        x, v = _golden_max(f, lo, hi)
        if v > best_v:
            best_v, best_x = v, min(max(exact(f"{x:.15g}"), Fraction(0)), eps_h)
    return best_x, best_v


def _witness_lower(mech: Mechanism, eps: Fraction, width: Fraction, counter: _Counter) -> Fraction:
    y = profile_ball(mech, eps, prec=160, counter=counter)
    return _mu_gdp_lower(eps, lower_bound(y), width)


def measure(
    mechanism: Mechanism,
    *,
    eps_max: object | None = None,
    width: object = DEFAULT_WIDTH,
    eta_max: object = DEFAULT_ETA_MAX,
    identify_tail: bool = True,
    max_cells: int = MAX_CELLS,
    second_order: bool = True,
) -> Measurement:
    """Certified enclosure [μ⁻, μ⁺] of sup_{[0, ε_h]} G with a tail statement.

    ``eps_max`` fixes ε_h; otherwise ε_h is the smallest tried point with
    δ_A(ε_h) <= ``eta_max`` (up to AUTO_EPS_MAX = 128).  ``width`` is the target
    μ⁺ - μ⁻ (achieved unless the search cannot locate the maximiser).
    """
    w = exact(width, "width")
    if w <= 0:
        raise InputError(f"width must be positive, got {width}")
    eta = exact(eta_max, "eta_max")
    if eta < 0:
        raise InputError(f"eta_max must be >= 0, got {eta_max}")
    counter = _Counter()
    if eps_max is not None:
        eps_h = exact(eps_max, "eps_max")
        if eps_h <= 0:
            raise InputError(f"eps_max must be positive, got {eps_max}")
        y_h = profile_ball(mechanism, eps_h, counter=counter)
    else:
        eps_h, y_h = _choose_eps_h(mechanism, eta, counter)
    y0 = profile_ball(mechanism, Fraction(0), counter=counter)
    if lower_bound(y0) >= 1:
        raise InputError(f"{mechanism!r}: delta_A(0) = 1, not GDP for any mu")
    if upper_bound(y_h) < 0:
        raise InputError(f"{mechanism!r}: profile is negative at eps = {fraction_to_str(eps_h)}")
    y_lo = lower_bound(y_h)
    residual = Enclosure(y_lo if y_lo > 0 else arb(0), upper_bound(y_h))
    zero_tail = not upper_bound(y_h) > 0
    min_step = max(float(w) / 256, 1e-15 * float(eps_h))

    # lower bound: float search for the maximiser, certified witness
    x_star, v_star = _argmax_search(mechanism, eps_h, counter)
    mu_lo = _witness_lower(mechanism, x_star, w / 16, counter)
    witness = x_star if mu_lo > 0 else None
    est = max(Fraction(v_star) if math.isfinite(v_star) else mu_lo, mu_lo)

    fns = profile_functions(mechanism) if second_order else None
    best: tuple[Fraction, _Cover] | None = None
    margin = w * Fraction(9, 10)
    fail_lo = Fraction(0)
    for _ in range(60):
        if best is None:
            cand = _dyadic_up(max(mu_lo + margin, est + w / 8))
        else:
            if best[0] - mu_lo <= w:
                break
            cand = _dyadic_up((max(fail_lo, mu_lo) + best[0]) / 2)
            if cand >= best[0] or best[0] - max(fail_lo, mu_lo) <= w / 64:
                break
        if cand <= 0:
            cand = _dyadic_up(w)
        if fns is not None:
            cov = _cover2(mechanism, fns, cand, eps_h, min_step, counter, max_cells)
        else:
            cov = _cover(mechanism, cand, eps_h, min_step, counter, max_cells)
        if cov.ok:
            best = (cand, cov)
            continue
        fail_lo = max(fail_lo, cand)
        if cov.budget:
            # the margin is too small for the cell budget: widen (reported width grows)
            if best is None:
                margin *= 4
            else:
                break
            continue
        p = cov.fail_at if cov.fail_at is not None else Fraction(0)
        xp, vp = _argmax_search(mechanism, eps_h, counter, around=p)
        for q in (p, xp):
            lo_q = _witness_lower(mechanism, q, w / 16, counter)
            if lo_q > mu_lo:
                mu_lo, witness = lo_q, q
        est = max(est, Fraction(vp) if math.isfinite(vp) else est, mu_lo)
        if best is None:
            margin *= 2
    if best is None:
        raise PrecisionError(f"{mechanism!r}: could not certify any mu on [0, {fraction_to_str(eps_h)}]")
    mu_hi, cov = best
    kind = mechanism.profile_kind
    if not kind.bounds_from_below:
        # the profile is only an upper bound: μ⁺ is proved, nothing from below
        # (the search's μ⁻ bounds the GDPT of the bound, not of the mechanism)
        mu_lo, witness = Fraction(0), None
        residual = Enclosure(arb(0), residual.hi)
    mu_enc = Enclosure.hull(Enclosure.exact(mu_lo), Enclosure.exact(mu_hi))

    told = tail_of(mechanism, zero=zero_tail, eps_h=eps_h, mu_hi=mu_hi, identify=identify_tail)
    try:
        spec = mechanism.spec()
    except Exception:  # noqa: BLE001 - test mechanisms without a spec grammar entry
        spec = repr(mechanism)
    return Measurement(
        spec=spec,
        mu=mu_enc,
        eps_max=eps_h,
        residual=residual,
        tail=told.tail,
        strict_mu_at_least=told.strict_mu_at_least,
        tail_mu_at_most=told.tail_mu_at_most,
        witness_eps=witness,
        breakpoints=tuple(cov.breakpoints),
        evaluations=counter.profile,
        mu_evaluations=counter.mu,
        assumptions=tuple(dict.fromkeys((*mechanism.assumptions, *told.assumptions))),
        profile_kind=kind,
    )


# ---------------------------------------------------------------------------
# "not μ-GDP" witnesses
# ---------------------------------------------------------------------------


def find_not_gdp_witness(mechanism: Mechanism, mu: object, *, eps_max: object = 256) -> Fraction | None:
    """A point ε* in [0, eps_max] with certified δ_A(ε*) > δ_μ(ε*) (so the mechanism
    is not μ-GDP, Liu et al. 2022 Cor 4.1), or None if the float search finds none."""
    m = exact(mu, "mu")
    if m <= 0:
        raise InputError(f"mu must be positive, got {mu}")
    if not mechanism.profile_kind.bounds_from_below:
        return None  # an upper-bound profile proves nothing from below
    e_max = exact(eps_max, "eps_max")
    pts = _sample_points(e_max)
    counter = _Counter()
    vals = sorted(((_gdpt_float(mechanism, p, counter), p) for p in pts), key=lambda t: -t[0])
    for v, p in vals[:8]:
        if not v > float(m):
            break
        y = profile_ball(mechanism, p, prec=160)
        if lower_bound(y) > upper_bound(delta_mu_cert_ball(m, p, 96)):
            return p
    return None
