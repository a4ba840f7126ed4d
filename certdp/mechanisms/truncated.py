"""The Gaussian mechanism on a truncated Poisson sample (dp_accounting's
``TruncatedSubsampledGaussianDpEvent``): an UPPER bound through Rényi DP.

Each record of a dataset of n records is sampled with probability q; a sample larger
than B is cut down to a uniformly random subset of B records; the clipped sum (norm
<= C per record) gets N(0, σ²C²) noise.  Under add-or-remove-one (x added to D), couple
the two runs on the other records' sample S and on the truncation's randomness
(when x is kept, it takes the place of a uniform member of the truncated batch): the
pair of outputs is the mixture, over that coupling b, of subsampled Gaussian pairs

    (N(s_b, σ²), (1 − q)·N(s_b, σ²) + q·N(s_b + v_b, σ²)),

with ‖v_b‖ <= C when |S| < B (no truncation: x is added) and ‖v_b‖ <= 2C when |S| >= B
(x replaces a record or is dropped).  Each component is dominated by the
Poisson-subsampled Gaussian of sensitivity 1 or 2 (Zhu, Dong & Wang 2022 Thm 11, with
the Gaussian pair of the largest shift), and the whole pair is a post-processing of
the *labelled* mixture (Blackwell: forget the label b): sensitivity-2 component with
weight t = P(Bin(n, q) >= B), sensitivity-1 component with weight 1 − t.  A labelled
mixture's Rényi moment is the weighted sum of the components' moments, so

    ρ(α) <= log((1 − t)·e^{(α−1)ρ₁(α)} + t·e^{(α−1)ρ₂(α)}) / (α − 1),

ρ_Δ the RDP curve of the Poisson-subsampled Gaussian of noise σ/Δ (Mironov, Talwar &
Zhang 2019, both orders), certified by :mod:`certdp.analyses.accountants.rdp`.  The same
decomposition is dp_accounting's own (``from_truncated_subsampled_gaussian_mechanism``,
Chua et al. 2025, which mixes the two PLDs); here n counts the *other* records of the
larger dataset (t is increasing in n, so taking n for either neighbour of an n-record
dataset is the conservative choice; dp_accounting uses n − 1).  t is enclosed in ball
arithmetic (:func:`truncation_probability`); a larger t only weakens the bound
(sensitivity 2 dominates sensitivity 1), so an enclosure of t is all it needs.

The mechanism has no profile evaluation of its own: its compositions are answered by
the RDP accountant and by the PLD engine on the labelled mixture's loss law
(:mod:`certdp.analyses.accountants.mixture_law`; one-sided, an upper bound), the smaller
upper end winning.  ``subsample`` of it and certificates are refused.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import ProfileKind
from certdp.mechanisms.params import PARAMETER_RANGE, CatalogMechanism, Param
from certdp.numerics.ball import to_ball

#: Largest dataset size accepted
MAX_DATASET = 10**12
#: Binomial terms summed before the remainder is bounded by a geometric series
MAX_TERMS = 2_000_000


def truncation_probability(n: int, q: Fraction, b: int) -> arb:
    """A ball containing P(Bin(n, q) >= b) (current precision): the terms from k = b on by
    their ratio recurrence r_k = (n − k)/(k + 1)·q/(1 − q), the first from log-gamma; once
    r_k < 1 the remainder is at most term·r_k/(1 − r_k) (the ratios decrease).  [0, 1]
    when the terms cannot be summed within :data:`MAX_TERMS` (still valid: only an upper
    end is used, and it is 1)."""
    if b <= 0:
        return arb(1)
    if b > n:
        return arb(0)
    if q == 1:
        return arb(1)
    qb, pb = to_ball(q), to_ball(1 - q)
    log_c = (arb(n + 1).lgamma() - arb(b + 1).lgamma() - arb(n - b + 1).lgamma())
    term = (log_c + b * qb.log() + (n - b) * pb.log()).exp()
    ratio_q = qb / pb
    total, k = arb(0), b
    while k <= n:
        total += term
        if k == n:
            return _clip(total)
        r = ratio_q * (n - k) / (k + 1)
        if r < 1:
            nxt = term * r
            rest = nxt / (1 - r)  # all terms from k + 1 on
            if rest < total * arb(2) ** -120 or k - b >= MAX_TERMS:
                return _clip(total + arb(0).union(rest))
        elif k - b >= MAX_TERMS:
            return arb(0).union(arb(1))
        term, k = term * r, k + 1
    return _clip(total)


def _clip(x: arb) -> arb:
    """x ∩ [0, 1] (a probability), as a ball."""
    if x <= 1 and x >= 0:
        return x
    return x.intersection(arb(0).union(arb(1)))


class TruncatedSubsample(CatalogMechanism):
    """Gaussian noise σ on the sum of a Poisson sample (rate q) of n records truncated to at
    most B records (dp_accounting's TruncatedSubsampledGaussianDpEvent): an upper bound,
    through its Rényi-DP curve (a labelled mixture of sensitivity-1 and -2 subsampled
    Gaussians, weight t = P(Bin(n, q) >= B) on the latter)."""

    name = "truncated_subsample"
    profile_route = "RDP bound of a labelled mixture of subsampled Gaussians (upper bound only)"
    description = ("Gaussian noise σ on a Poisson sample (rate q) of n records truncated to B records "
                   "(dp_accounting's TruncatedSubsampledGaussianDpEvent), add-or-remove-one: "
                   "upper bound only, through Rényi DP")
    PARAMS = (
        Param("noise", "number", "noise multiplier σ > 0 (standard deviation / clip norm)"),
        Param("rate", "number", "Poisson sampling probability 0 < q <= 1"),
        Param("batch", "integer", "truncated batch size B >= 1"),
        Param("size", "integer", "dataset size n >= 1 (the other records of the larger neighbour)"),
    )
    own_kind = ProfileKind.UPPER
    #: no privacy profile of its own: answered by the accountants (RDP, and the PLD engine's
    #: labelled mixture, :mod:`certdp.analyses.accountants.mixture_law`), upper bounds only
    accountant_only: ClassVar[bool] = True

    def check(self) -> None:
        if not 0 < self.noise <= PARAMETER_RANGE[1]:
            raise InputError(f"truncated_subsample: noise must be > 0, got {self.noise}")
        if not 0 < self.rate <= 1:
            raise InputError(f"truncated_subsample: rate must satisfy 0 < rate <= 1, got {self.rate}")
        if not 1 <= self.size <= MAX_DATASET:
            raise InputError(f"truncated_subsample: size must be an integer in [1, 10^12], got {self.size}")
        if not 1 <= self.batch:
            raise InputError(f"truncated_subsample: batch must be an integer >= 1, got {self.batch}")

    def profile(self) -> sympy.Expr:
        raise InputError("truncated_subsample has no closed-form profile: it is answered through its RDP curve "
                         "(an upper bound), e.g. certdp account --mechanism ...")

    def delta_point_ball(self, eps: arb) -> arb:
        raise InputError("truncated_subsample is answered through the accountants only "
                         "(certdp account / certdp.epsilon); it has no privacy profile of its own here")
