"""Slopes of the checker's closed-form profiles, in ball arithmetic (no sympy).

The second-order cell test of GDP certificates (:func:`certdp.numerics.cells.second_order_holds`)
needs, besides δ_A = P at a point, a ball containing P'(ε) for almost every ε of a
cell [a, b].  Every profile of the table (:mod:`certdp.verifier.mechs`) is
continuous and non-increasing, and piecewise smooth with finitely many kinks, so
P(ε) − P(a) = ∫_a^ε P' and a ball containing the one-sided derivatives on the cell
is all the test uses.  Written here from the closed forms the table states:

* laplace: P = (1 − e^{(ε − c)/2})⁺, c = Δ/b: P' = −e^{(ε − c)/2}/2 for ε < c, 0 beyond;
* gaussian / gaussian_dp / compose of Gaussians: δ_μ' = −e^ε Φ(−ε/μ − μ/2)
  (:func:`certdp.numerics.cells.delta_mu_slope_ball`);
* randomized_response: (q − (1 − q)e^ε)⁺: −(1 − q)e^ε below log(q/(1 − q)), 0 beyond;
* pure_dp / approx_dp: δ₀ + (1 − δ₀)(e^{ε₀} − e^ε)⁺/(1 + e^{ε₀}): −(1 − δ₀)e^ε/(1 + e^{ε₀}) below ε₀;
* discrete_laplace: Σ over atoms of loss ℓ > 0 of (p − q e^ε)⁺: −q e^ε below ℓ each;
* subsample(M, γ): γ P_M(g(ε)), g(ε) = log(1 + (e^ε − 1)/γ), g' = e^ε/(γ − 1 + e^ε) > 0:
  the chain rule on g(cell) (g is a diffeomorphism: null sets stay null);
* compose(M, k): k = 1 is M; the binomial profile Σ_i C(k, i) w_i (e^{ℓ_i} − e^ε)⁺ has slope
  −e^ε Σ C(k, i) w_i over the terms whose loss ℓ_i = (k − 2i)ℓ exceeds ε;
* clip_reify(M, ε_h): min(P_M, L), L = (1 − e^{(ε − ε_h)/2})⁺: almost everywhere the slope of
  the smaller one (where both are equal on a set of positive measure their slopes agree a.e.).

A kink the cell may straddle contributes the union of both sides' slopes.  None for
what has no closed form here (discrete_gaussian, compose_all, σ-formulas) and for
``profile("...")`` specs, whose slope the checker takes from the expression (sympy).
``tests/certificates/test_checker_slopes.py`` compares every entry with sympy's
derivative of :meth:`Mech.profile` and with difference quotients.
"""

from __future__ import annotations

from typing import Callable

from flint import arb

from certdp.verifier.mechs import (ApproxDP, ClipReify, Compose, DiscreteLaplace, GaussianDP, Laplace, Mech,
                                      RandomizedResponse, Subsample, UserProfile, _pure_loss)
from certdp.verifier.ball import to_ball
from certdp.verifier.cells import delta_mu_slope_ball

Slope = Callable[[arb], arb]


def _before(kink: arb, slope: arb, cell: arb) -> arb:
    """``slope`` where ε < kink, 0 beyond: the cell's side of the kink, or both sides' union."""
    if cell <= kink:
        return slope
    if cell >= kink:
        return arb(0)
    return slope.union(arb(0))


def _nonneg(cell: arb) -> arb:
    return cell if cell >= 0 else arb(0).union(cell.upper())


def _laplace_tail(c: arb, cell: arb) -> arb:
    """Slope of (1 − e^{(ε − c)/2})⁺."""
    return _before(c, -((cell - c) / 2).exp() / 2, cell)


def _coefficient(mech: Mech, cell: arb) -> arb | None:
    """β >= 0 with P'(ε) = −β e^ε for almost every ε in ``cell``, for the profiles that are
    α − β e^ε between kinks (β constant on each piece): randomized_response, pure_dp /
    approx_dp, discrete_laplace, their binomial compositions, and subsample of any of
    these — γ(α − β e^{g(ε)}) = γα − β(γ − 1) − β e^ε keeps β (taken at g(cell), where
    the inner kinks are).  None for the other entries."""
    if isinstance(mech, RandomizedResponse):
        q = max(mech.p, 1 - mech.p)
        return _before((to_ball(q) / to_ball(1 - q)).log(), to_ball(1 - q), cell)
    if isinstance(mech, ApproxDP):
        return _before(to_ball(mech.eps), (1 - to_ball(mech.delta0)) / (1 + to_ball(mech.eps).exp()), cell)
    if isinstance(mech, DiscreteLaplace):
        return sum((_before(to_ball(ell), q, cell) for ell, _p, q in mech.atoms() if ell > 0), arb(0))
    if isinstance(mech, Subsample):
        return _coefficient(mech.mechanism, cell if mech.rate == 1 else _nonneg(mech._inner_eps(cell)))
    if isinstance(mech, Compose) and mech.has_closed_form:
        if mech.k == 1:
            return _coefficient(mech.mechanism, cell)
        if mech.binomial:
            return _binomial_coefficient(mech, cell)
    return None


def slope(mech: Mech, cell: arb) -> arb | None:
    """A ball containing P'(ε) for almost every ε in ``cell`` ∩ [0, ∞) (None: no closed form here)."""
    cell = _nonneg(cell)
    if isinstance(mech, UserProfile):
        return None
    beta = _coefficient(mech, cell)
    if beta is not None:
        return -beta * cell.exp()
    if isinstance(mech, Laplace):
        return _laplace_tail(to_ball(mech.sensitivity / mech.scale), cell)
    if isinstance(mech, GaussianDP):  # Gaussian too
        return delta_mu_slope_ball(to_ball(mech.mu), cell)
    if isinstance(mech, Subsample):
        if mech.rate == 1:
            return slope(mech.mechanism, cell)
        g = to_ball(mech.rate)
        inner = slope(mech.mechanism, mech._inner_eps(cell))
        return None if inner is None else g * inner * (cell.exp() / (g + cell.expm1()))
    if isinstance(mech, Compose):
        if not mech.has_closed_form:
            return None
        if mech.k == 1:
            return slope(mech.mechanism, cell)
        return delta_mu_slope_ball(to_ball(mech.gdp_mu_squared()).sqrt(), cell)  # binomial: above
    if isinstance(mech, ClipReify):
        inner = slope(mech.mechanism, cell)
        if inner is None:
            return None
        lap_slope = _laplace_tail(to_ball(mech.eps_h), cell)
        p_m, lap = mech.mechanism.delta_ball(cell), mech._lap(cell)
        if p_m < lap:
            return inner
        if p_m > lap:
            return lap_slope
        return inner.union(lap_slope)
    return None  # discrete_gaussian, compose_all, sgd/icea


def _binomial_coefficient(mech: Compose, cell: arb) -> arb:
    """Σ C(k, i) q^i (1 − q)^{k−i} over the terms with loss (k − 2i)ℓ > ε (the binomial
    profile of :meth:`certdp.verifier.mechs.Compose._binomial_ball`, same weights)."""
    e0, q = _pure_loss(mech.mechanism)
    k = mech.k
    if e0 is not None:
        ell = to_ball(e0)
        lq, l1q = -((-ell).exp().log1p()), -(ell.exp().log1p())  # log q, log(1 − q), q = e^{ε₀}/(1 + e^{ε₀})
    else:
        if q == 1 - q:
            return arb(0)  # δ ≡ 0
        ell = (to_ball(q) / to_ball(1 - q)).log()
        lq, l1q = to_ball(q).log(), to_ball(1 - q).log()
    sure, maybe = arb(0), arb(0)
    log_binom = arb(0)
    for i in range((k + 1) // 2):
        if i:
            log_binom += (arb(k - i + 1) / i).log()
        loss = (k - 2 * i) * ell
        if loss <= cell:
            break  # this and every later term (smaller loss) are 0 on the cell
        w = (log_binom + i * lq + (k - i) * l1q).exp()
        if loss >= cell:
            sure += w
        else:
            maybe += w
    return sure.union(sure + maybe)


#: Sub-cells a slope is evaluated on: the union of their balls is much tighter than one
#: ball over the cell when factors of the chain rule are correlated (subsample).
PIECES = 8


def _pieces(cell: arb, n: int = PIECES) -> list[arb]:
    """Balls covering ``cell``: consecutive ones share an end ball, the first and last hold
    the cell's exact ends."""
    lo, hi = cell.lower(), cell.upper()
    ends = [lo, *(lo + (hi - lo) * j / n for j in range(1, n)), hi]
    return [ends[j].union(ends[j + 1]) for j in range(n)]


def ball_functions(mech: Mech) -> tuple[Slope, Slope] | None:
    """(P, P') for the second-order cell test, sympy-free; None when :func:`slope` has none."""
    if slope(mech, arb(0)) is None:
        return None

    def d_p(cell: arb) -> arb:
        out = None
        for piece in _pieces(_nonneg(cell)):
            s = slope(mech, piece)
            out = s if out is None else out.union(s)
        return out

    return mech.delta_ball, d_p
