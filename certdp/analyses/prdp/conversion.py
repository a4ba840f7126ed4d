"""ADP → PrDP conversion (Guingona et al. 2023 Lemma 2.3; Zhao et al. Lemma 12).

If ``M`` is ``(ε, δ)``-ADP and ``ε̂ > ε`` then ``M`` is
``(ε̂, δ̂)``-PrDP with ``δ̂ = δ / (1 - e^{ε - ε̂})``.  Equivalently (the
"g-form", Guingona et al. 2023 Lemma 2.3 with ``g(δ) = δ̂``): ``M`` is
``(ε̂, δ̂)``-PrDP whenever ``δ̂ > δ`` and ``ε̂ ≥ ε - ln(1 - δ/δ̂)``.

Both are returned as certified enclosures.  ``1 - e^{ε-ε̂}`` is evaluated as
``-expm1(ε - ε̂)`` so that ``ε̂`` close to ``ε`` costs no accuracy.
"""

from __future__ import annotations

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.numerics.decide import adaptive
from certdp.expr.constants import ball, exact_real, sign
from certdp.numerics.ball import digits_to_bits
from certdp.numerics.enclosure import Enclosure


def _nonneg(x: object, name: str) -> sympy.Expr:
    v = exact_real(x, name)
    if sign(v, name) < 0:
        raise InputError(f"{name} must be >= 0, got {v}")
    return v


def adp_to_prdp(
    eps: object, delta: object, eps_hat: object, *, digits: int | None = None, prec: int | None = None
) -> Enclosure:
    """Enclosure of ``δ̂ = δ / (1 - e^{ε - ε̂})`` (Guingona et al. 2023 §2, Lemma 12 of Zhao et al.).

    Requires ``ε ≥ 0``, ``δ ≥ 0`` and ``ε̂ > ε`` (for ``ε̂ ≤ ε`` no finite
    penalty on δ suffices in general — Guingona et al. 2023 Thm 3.2).  The result may
    exceed 1, in which case the PrDP guarantee is vacuous.  Inputs are exact
    numbers or closed forms (``log(2)``, :func:`certdp.expr.constants.exact_real`).
    """
    e, d, eh = _nonneg(eps, "eps"), _nonneg(delta, "delta"), _nonneg(eps_hat, "eps_hat")
    if not sign(1 - d, "1 - delta") > 0:
        raise InputError(f"delta must satisfy 0 <= delta < 1, got delta = {delta} ((eps, delta)-ADP with delta >= 1 is vacuous)")
    if not sign(eh - e, "eps_hat - eps") > 0:
        raise InputError(f"eps_hat must be > eps (got eps_hat={eh}, eps={e}); the conversion needs a penalty on eps")
    if d == 0:
        return Enclosure.exact(0)
    rel = digits_to_bits(digits, prec)

    def compute(_p: int) -> arb:
        return ball(d) / (-((ball(e) - ball(eh)).expm1()))

    return Enclosure.from_ball(adaptive(compute, rel, 64, "delta_hat"))


def min_eps_hat(
    eps: object, delta: object, delta_hat: object, *, digits: int | None = None, prec: int | None = None
) -> Enclosure:
    """Enclosure of ``ε - ln(1 - δ/δ̂)``: the smallest ``ε̂`` for which Guingona et al. 2023
    Lemma 2.3 gives ``(ε̂, δ̂)``-PrDP from ``(ε, δ)``-ADP.  Requires ``δ̂ > δ > 0``."""
    e, d, dh = _nonneg(eps, "eps"), _nonneg(delta, "delta"), _nonneg(delta_hat, "delta_hat")
    if not sign(1 - d, "1 - delta") > 0:
        raise InputError(f"delta must satisfy 0 <= delta < 1, got delta = {delta}")
    if d == 0:
        raise InputError("delta must be > 0 (for delta = 0, ADP and PrDP coincide: eps_hat = eps)")
    if not sign(dh - d, "delta_hat - delta") > 0:
        raise InputError(f"delta_hat must be > delta (got delta_hat={dh}, delta={d})")
    rel = digits_to_bits(digits, prec)

    def compute(_p: int) -> arb:
        return ball(e) - (-(ball(d) / ball(dh))).log1p()

    return Enclosure.from_ball(adaptive(compute, rel, 64, "eps_hat"))
