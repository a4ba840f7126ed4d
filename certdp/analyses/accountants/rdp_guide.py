"""Float guide for the RDP accountant's choice of order (a search aid, never a bound).

The certified RDP accountant (:mod:`certdp.analyses.accountants.rdp`) may convert
the RDP curve to (ε, δ) at *any* order α > 1: every order gives a valid upper
bound (Mironov 2017 Prop 3; Canonne, Kamath & Steinke 2020 Prop 12).  Which
order is best only decides how tight the bound is, not whether it holds.  So the
order is chosen here in floating point, as dp_accounting chooses it, and only the
few chosen orders are evaluated in ball arithmetic (Principle 1 of the design:
floats for searching, balls for every reported number).  A wrong float value
here can only make the certified answer looser, never unsound.

What is estimated, in IEEE doubles (log domain, so nothing overflows):

* the closed-form curves (Gaussian, Laplace, randomized response, pure DP):
  the midpoint of the ball curve itself at 53 bits (cheap: a few arb operations);
* the Poisson-subsampled Gaussian, ρ(α) = max(log A_α, log B_α)/(α−1) as in
  :func:`certdp.analyses.accountants.rdp.sgm_rdp`:
  - integer α: log A_α = logsumexp_k [log C(α,k) + (α−k) log(1−q) + k log q + (k²−k)/(2s²)];
  - fractional α (and B_α, only when asked: the guide takes max(A, B) = A, Mironov, Talwar
    & Zhang 2019, like dp_accounting): the trapezoid rule on
    ∫ φ(t) b(t)^β dt, b(t) = 1 − q + q e^{(2st−1)/(2s²)}, step min(1/2, s/2),
    tails beyond 12 standard deviations dropped.  The integrand is analytic in
    the strip |Im t| < π s (log's branch point), so the rule's relative error is
    about e^{−4π²} ≈ 1e-17 — far below the gaps between the candidate orders;
  - where the certified code uses the convexity bound (fractional α with
    α/s > QUAD_MAX_PEAK), the guide interpolates log A the same way.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

#: Standard deviations kept on each side of the guide's quadrature (Φ(−12) ≈ 2e-33).
_TAIL = 12.0


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def _log_a_int(q: float, s: float, a: int) -> float:
    lq, lr, c = math.log(q), math.log1p(-q), 1 / (2 * s * s)
    lga = math.lgamma(a + 1)
    return _logsumexp([lga - math.lgamma(k + 1) - math.lgamma(a - k + 1) + (a - k) * lr + k * lq + (k * k - k) * c
                       for k in range(a + 1)])


def _log_moment(q: float, s: float, beta: float, left: float, right: float) -> float:
    """log ∫_{left}^{right} φ(t) b(t)^β dt by the trapezoid rule (log domain)."""
    h = min(0.5, s / 2)
    n = max(2, math.ceil((right - left) / h))
    h = (right - left) / n
    c, lr, lq = 1 / (2 * s * s), math.log1p(-q), math.log(q)
    terms = []
    for i in range(n + 1):
        t = left + i * h
        u = (2 * s * t - 1) * c + lq  # log(q e^u)
        log_b = max(lr, u) + math.log1p(math.exp(-abs(u - lr)))
        w = 0.5 if i in (0, n) else 1.0
        terms.append(-t * t / 2 + beta * log_b + math.log(w))
    return _logsumexp(terms) + math.log(h) - 0.5 * math.log(2 * math.pi)


def sgm_rdp_float(q: Fraction, s: Fraction, a: Fraction, quad_max_peak: float, with_b: bool = False) -> float:
    """Float estimate of the sampled Gaussian's ρ(α) (see the module doc): log A_α/(α−1)
    alone by default, as dp_accounting computes it (Mironov, Talwar & Zhang 2019 show
    A_α >= B_α for the sampled Gaussian; the certified curve computes B_α all the same and
    does not rest on that), ``with_b`` for max(log A_α, log B_α)/(α−1).  The trapezoid rule
    for B_α at every order was half the time of a first RDP answer (σ 0.5, q 1e-4)."""
    qf, sf, af = float(q), float(s), float(a)
    if a.denominator == 1:
        log_a = _log_a_int(qf, sf, int(a))
    elif af / sf <= quad_max_peak:
        log_a = _log_moment(qf, sf, af, -_TAIL, af / sf + _TAIL)
    else:
        n = math.floor(a)
        lo = 0.0 if n == 1 else _log_a_int(qf, sf, n)
        log_a = (n + 1 - af) * lo + (af - n) * _log_a_int(qf, sf, n + 1)
    if not with_b:
        return log_a / (af - 1)
    left = -math.sqrt(_TAIL**2 + 2 * (af - 1) * -math.log1p(-qf))
    log_b = _log_moment(qf, sf, 1 - af, left, 1 / (2 * sf) + _TAIL)
    return max(log_a, log_b) / (af - 1)


def ball_midpoint(curve: Callable[[Fraction], object]) -> Callable[[Fraction], float]:
    """A closed-form ball curve read as a float (its midpoint; a guide only)."""
    def guide(a: Fraction) -> float:
        v = curve(a)
        return float(v.mid()) if v.is_finite() else math.inf  # type: ignore[attr-defined]
    return guide


def epsilon_scores(a: Fraction, r: float, log_delta: float) -> dict[str, float]:
    """Float ε of both conversions at order α (the formulas of the certified scores)."""
    af = float(a)
    return {"classic": r - log_delta / (af - 1),
            "improved": r + math.log((af - 1) / af) - (log_delta + math.log(af)) / (af - 1)}


def log_delta_scores(a: Fraction, r: float, eps: float) -> dict[str, float]:
    """Float log δ of both conversions at order α (ranks as δ does)."""
    af = float(a)
    classic = (af - 1) * (r - eps)
    return {"classic": classic, "improved": classic + (af - 1) * math.log((af - 1) / af) - math.log(af)}
