"""Noise refinement for mechanisms known by σ = f(ε, δ) (Liu et al. 2022 App. C, §5.2).

Liu, Sun, Jiang and Kong (2022; Liu et al. 2022) refine the noise needed for a target (ε, δ) by
choosing the guarantee (ε0, δ0) on the Thm 3.1 boundary that minimises
σ = f(ε0, δ0).  Search (float-guided, mpmath) plus a certified cell proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping
from fractions import Fraction

import sympy
from flint import arb

from certdp.expr.constants import exact_real
from certdp.expr.derivative import derivative
from certdp.expr.monotone import monotonicity_assumption
from certdp.errors import InputError, PrecisionError
from certdp.mechanisms.base import EPS
from certdp.mechanisms.formula import DELTA, _EPOS, _X, TradeoffMechanism, _check_supported, _ev, _mid_fraction, _to_formula  # noqa: F401
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure



@dataclass(frozen=True)
class NoiseRefinement:
    """Result of :func:`refine_noise`: the certified optimum σ⁻ and where it is attained.

    ``eps0`` encloses every minimiser ε0 of F(ε0) = f(ε0, δ0(ε0)) on
    [ε, ε0_max]; ``delta0`` = δ0(eps0); ``naive_sigma`` = f(ε, δ)."""

    sigma: Enclosure
    eps0: Enclosure
    delta0: Enclosure
    naive_sigma: Enclosure
    #: unproved hypotheses the optimum rests on (empty when the checker's sign calculus,
    #: :mod:`certdp.verifier.formula_monotone`, proves f non-increasing in ε and in δ on
    #: ε > 0, 0 < δ < 1)
    assumptions: tuple[str, ...] = ()


def _exact_constant(x: object, name: str) -> sympy.Expr:
    """An exact number (see :func:`exact`) or a closed sympy constant such as exp(-2)."""
    v = exact_real(x, name)
    if not v.is_Rational:
        _check_supported(v)
    return v


def refine_noise(
    sigma_formula: object,
    eps: object,
    delta: object,
    parameters: Mapping[str, object] | None = None,
    digits: int = 20,
) -> NoiseRefinement:
    """Smallest σ = f(ε0, δ0) over guarantees (ε0, δ0) implying (ε, δ) (Liu et al. 2022 App. C).

    On the boundary of Thm 3.1 with ε0 ≥ ε (the seed's App. C form),
    δ0(ε0) = (δ + e^ε − (1−δ) e^{ε0})/(1 + e^ε), feasible (δ0 ≥ 0) for
    ε0 ≤ ε0_max = log((δ + e^ε)/(1 − δ)).  We minimise F(ε0) = f(ε0, δ0(ε0))
    with a certified bracket of F' = 0 plus a cell proof on [ε, ε0_max]: every
    cell left of the bracket has F' < 0 or F > F(r0), every cell right of it
    F' > 0 or F > F(r0).  Cells where f cannot be enclosed (at ε0_max,
    where δ0 = 0) are bounded by f(ε0_max, δ0(cell's left end)), which
    assumes f is non-increasing in ε and in δ (more noise for more privacy).
    """
    formula = _to_formula(sigma_formula, parameters)
    re_, rd = _exact_constant(eps, "eps"), _exact_constant(delta, "delta")
    with working_precision(128):
        if not _ev(re_, {}) >= 0:
            raise InputError(f"eps must be >= 0, got {re_}")
        dd = _ev(rd, {})
        if not (dd > 0 and dd < 1):
            raise InputError(f"delta must be in (0, 1), got {rd}")
    d0 = (rd + sympy.exp(re_) - (1 - rd) * sympy.exp(_X)) / (1 + sympy.exp(re_))
    big_f = formula.xreplace({EPS: _X, DELTA: d0})
    dbig_f = sympy.diff(big_f, _X)  # float search only: it drops the jumps of if/Piecewise
    dbig_proof = derivative(big_f, _X)  # guarded: no information on a cell holding a breakpoint
    if dbig_proof is None:
        raise InputError(f"cannot differentiate f(eps0, delta0(eps0)) = {big_f} for a certified proof")
    prec = max(80, int(digits * 3.33) + 40)
    import mpmath  # noqa: PLC0415  (search only)

    with working_precision(prec):
        eb = _ev(re_, {})
        db = _ev(rd, {})
        xmax = ((db + eb.exp()) / (1 - db)).log()
        xmax_up = upper_bound(xmax)

        def fv(x: arb) -> arb:
            return _ev(big_f, {_X: x})

        def dfv(x: arb) -> arb:
            return _ev(dbig_proof, {_X: x})

        def d0v(x: arb) -> arb:
            return _ev(d0, {_X: x})

        naive = _ev(formula, {EPS: eb, DELTA: db})
        # search (mpmath) for the sign change of F' on (ε, ε0_max)
        fd = sympy.lambdify(_X, dbig_f, "mpmath")
        a_f, b_f = float(eb.mid()), float(xmax.mid())
        grid = [a_f + (b_f - a_f) * k / 400 for k in range(0, 400)]
        bracket = None
        with mpmath.workdps(30):
            vals = []
            for x in grid:
                try:
                    vals.append(float(mpmath.re(fd(mpmath.mpf(x)))))
                except (ZeroDivisionError, ValueError, TypeError):
                    vals.append(float("nan"))
        for x0, x1, v0, v1 in zip(grid, grid[1:], vals, vals[1:]):
            if v0 < 0 < v1:
                bracket = (Fraction(x0).limit_denominator(1 << 30), Fraction(x1).limit_denominator(1 << 30))
                break
        e_lo = lower_bound(eb)
        if bracket is None:
            # boundary optimum: F increasing from ε0 = ε (no refinement possible)
            if not dfv(eb) > 0:
                raise PrecisionError("no minimum of f(eps0, delta0(eps0)) located (search)")
            r0 = r1 = e_lo
        else:
            lo, hi = to_ball(bracket[0]), to_ball(bracket[1])
            lo = lo.max(e_lo) if lo < e_lo else lo
            if not (dfv(lo) < 0 and dfv(hi) > 0):
                raise PrecisionError("minimum bracket not certified")
            target = arb(2) ** (-(int(digits * 3.33) + 8))
            while hi - lo > target:
                m = to_ball(_mid_fraction(lo, hi))
                dm = dfv(m)
                if dm < 0:
                    lo = m
                elif dm > 0:
                    hi = m
                else:
                    break
            r0, r1 = lo, hi
        f_star_up = fv(r0).upper()

        def value_excluded(c: arb) -> bool:
            v = fv(c)
            if v.is_finite():
                return bool(v.lower() > f_star_up)
            c_lo = lower_bound(c)
            w = _ev(formula, {EPS: xmax_up, DELTA: d0v(c_lo)})
            return bool(w.is_finite() and w.lower() > f_star_up)

        def left_ok(c: arb) -> bool:
            dv = dfv(c)
            return bool((dv.is_finite() and dv < 0) or value_excluded(c))

        def right_ok(c: arb) -> bool:
            dv = dfv(c)
            return bool((dv.is_finite() and dv > 0) or value_excluded(c))

        if r0 > e_lo:
            TradeoffMechanism._prove_cells(e_lo, r0, left_ok)
        TradeoffMechanism._prove_cells(r1, xmax_up, right_ok)
        cell = r0.union(r1)
        if bracket is None:  # optimum at ε0 = ε exactly: δ0 = δ
            cell = eb
        sigma_star = fv(cell)
        d0_cell = db if bracket is None else d0v(cell)
        if not (d0_cell > 0):
            raise PrecisionError("optimal delta0 not certified positive")
        # the checker reads claim.formula's text: the same text here when it is one
        assumed = monotonicity_assumption(sigma_formula if isinstance(sigma_formula, str) and not parameters
                                          else formula)
        return NoiseRefinement(
            assumptions=assumed,
            sigma=Enclosure.from_ball(sigma_star),
            eps0=Enclosure.from_ball(cell),
            delta0=Enclosure.from_ball(d0_cell),
            naive_sigma=Enclosure.from_ball(naive),
        )
