"""The mixture-of-Gaussians mechanism (dp_accounting's ``MixtureOfGaussiansDpEvent``):
on one neighbour the output is N(0, σ²), on the other Σ_i p_i N(c_i, σ²) — a random
sensitivity c_i >= 0 drawn with probability p_i (Chua, Ghazi, Kamath, Kumar, Manurangsi,
Sinha & Zhang 2023, "Privacy of DP-SGD with random sensitivities"-style accounting;
arXiv 2310.15526).  Under add-or-remove-one both orders of the pair count (the engine
keeps both directions and takes the worse).

The likelihood ratio Σ_i p_i e^{(c_i x − c_i²/2)/σ²} is increasing in x when every
c_i >= 0, so each loss threshold is one point x*(w) of the line and the loss law is a
closed form in Φ at x*(w), enclosed in balls by a certified bracket of x*
(:mod:`certdp.analyses.accountants.mog_law`): an exact, two-sided PLD.  ``poisson``
sampling of a Gaussian is the case c = (0, 1), p = (1 − q, q).

The lists are exact numbers separated by commas in a string, parsed once here
(``sensitivities="0, 1", probs="3/4, 1/4"``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.params import PARAMETER_RANGE, CatalogMechanism, Param
from certdp.numerics.exact import exact

#: Most components accepted
MAX_COMPONENTS = 64


def parse_list(text: str, what: str) -> tuple[Fraction, ...]:
    """Exact numbers separated by commas (one-line InputError otherwise)."""
    parts = [t.strip() for t in text.split(",")]
    if not parts or any(not t for t in parts) or len(parts) > MAX_COMPONENTS:
        raise InputError(f"gaussian_mixture: {what} must be 1 to {MAX_COMPONENTS} numbers separated by commas, "
                         f"got {text!r}")
    return tuple(exact(t, what) for t in parts)


class GaussianMixture(CatalogMechanism):
    """N(0, σ²) against Σ p_i N(c_i, σ²) (c_i >= 0, Σ p_i = 1): dp_accounting's
    MixtureOfGaussiansDpEvent, both orders; an exact PLD in Φ."""

    name = "gaussian_mixture"
    profile_route = "PLD engine (a mixture of Gaussians against a Gaussian, both orders)"
    description = ("N(0, σ²) against Σ p_i N(c_i, σ²), c_i >= 0 (dp_accounting's MixtureOfGaussiansDpEvent), "
                   "add-or-remove-one: exact PLD; lists as strings, e.g. sensitivities=\"0, 1\", probs=\"3/4, 1/4\"")
    PARAMS = (
        Param("sigma", "number", "standard deviation σ > 0 of the Gaussian noise"),
        Param("sensitivities", "string", "the sensitivities c_i >= 0, comma-separated exact numbers"),
        Param("probs", "string", "their probabilities p_i > 0, comma-separated, summing to 1"),
    )
    #: no profile evaluation of its own: answered by the accountants (the PLD engine)
    accountant_only: ClassVar[bool] = True

    def check(self) -> None:
        if not 0 < self.sigma <= PARAMETER_RANGE[1]:
            raise InputError(f"gaussian_mixture: sigma must be > 0, got {self.sigma}")
        cs, ps = self.components()
        if len(cs) != len(ps):
            raise InputError(f"gaussian_mixture: {len(cs)} sensitivities but {len(ps)} probabilities")
        if any(c < 0 or c > PARAMETER_RANGE[1] for c in cs):
            raise InputError("gaussian_mixture: sensitivities must be >= 0 (the engine's law needs a "
                             "likelihood ratio increasing in the output)")
        if any(p <= 0 for p in ps) or sum(ps) != 1:
            raise InputError(f"gaussian_mixture: probabilities must be > 0 and sum to 1, got sum {sum(ps)}")
        if all(c == 0 for c in cs):
            raise InputError("gaussian_mixture: every sensitivity is 0 (the two outputs are identical: "
                             "nothing to account)")

    def components(self) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        return parse_list(self.sensitivities, "sensitivities"), parse_list(self.probs, "probs")

    def profile(self) -> sympy.Expr:
        raise InputError("gaussian_mixture has no closed-form profile: it is answered by the PLD engine "
                         "(certdp account / certdp.epsilon)")

    def delta_point_ball(self, eps: arb) -> arb:
        raise InputError("gaussian_mixture is answered by the PLD engine only (certdp account / certdp.epsilon)")
