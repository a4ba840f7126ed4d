"""The Rényi-DP curve of the Gaussian mechanism on a truncated Poisson sample
(``truncated_subsample``, dp_accounting's ``TruncatedSubsampledGaussianDpEvent``).

The pair is a post-processing of a labelled mixture: with weight 1 − t the
Poisson-subsampled Gaussian of sensitivity 1, with weight t that of sensitivity 2,
t = P(Bin(n, q) >= B) (:mod:`certdp.mechanisms.truncated` has the coupling).  The Rényi
moment of a labelled mixture is the weighted sum of its components' moments, and each
component's moment is at most e^{(α−1)ρ_Δ(α)} (ρ_Δ: both orders of the sampled
Gaussian, Mironov, Talwar & Zhang 2019), so

    ρ(α) <= log((1 − t)·e^{(α−1)ρ₁(α)} + t·e^{(α−1)ρ₂(α)}) / (α − 1),

evaluated in balls (t as a ball: the value holds for every t in it).  The float guide
is the same formula on the sampled Gaussian's float guide (it only picks orders).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.analyses.accountants import rdp_guide
from certdp.numerics.ball import to_ball


def _parts(mech: Any) -> tuple[Fraction, Fraction, int, int]:
    return Fraction(mech.noise), Fraction(mech.rate), int(mech.batch), int(mech.size)


def truncated_curve(mech: Any, sgm: Callable[[Fraction, Fraction], Callable[[Fraction], arb]]) -> Callable[[Fraction], arb]:
    """ρ(α) as a ball function of an exact order α > 1; ``sgm(q, s)`` is the certified
    curve of the Poisson-subsampled Gaussian with noise multiplier s (both orders)."""
    from certdp.mechanisms.truncated import truncation_probability  # noqa: PLC0415

    sigma, q, b, n = _parts(mech)
    r1, r2 = sgm(q, sigma), sgm(q, sigma / 2)
    cache: dict[int, arb] = {}

    def curve(a: Fraction) -> arb:
        t = cache.get(0)
        if t is None:
            t = cache[0] = truncation_probability(n, q, b)
        ab = to_ball(a)
        one = ((ab - 1) * r1(a)).exp()
        if t == 0:
            return r1(a)
        two = ((ab - 1) * r2(a)).exp()
        return ((1 - t) * one + t * two).log() / (ab - 1)
    return curve


def truncated_guide(mech: Any, quad_max_peak: float) -> Callable[[Fraction], float]:
    """A float estimate of the curve (a guide for choosing orders, never reported)."""
    from certdp.mechanisms.truncated import truncation_probability  # noqa: PLC0415

    sigma, q, b, n = _parts(mech)
    t = float(truncation_probability(n, q, b).mid())
    t = min(max(t, 0.0), 1.0)

    def guide(a: Fraction) -> float:
        af = float(a)
        g1 = rdp_guide.sgm_rdp_float(q, sigma, a, quad_max_peak) if q != 1 else af / (2 * float(sigma) ** 2)
        g2 = rdp_guide.sgm_rdp_float(q, sigma / 2, a, quad_max_peak) if q != 1 else 2 * af / float(sigma) ** 2
        x1, x2 = (af - 1) * g1, (af - 1) * g2
        top = max(x1, x2)
        return (top + math.log((1 - t) * math.exp(x1 - top) + t * math.exp(x2 - top))) / (af - 1)
    return guide
