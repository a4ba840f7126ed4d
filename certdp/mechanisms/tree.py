"""Tree aggregation (DP-FTRL) for a single epoch: an exactly Gaussian mechanism.

The tree aggregation protocol of Kairouz, McMahan, Song, Thakkar, Thakurta & Xu 2021
("Practical and private (deep) learning without sampling or shuffling", ICML 2021,
App. D) releases every node of a binary tree over T steps, each node the sum of its
leaves plus independent N(0, σ²C²) noise, where each leaf holds one clipped record
(norm <= C).  In a single epoch each record sits in one leaf, so changing it moves
exactly the nodes on its root-to-leaf path: depth d = ⌈log₂(T + 1)⌉ nodes (the same
d as dp_accounting's ``_compute_rdp_single_epoch_tree_aggregation``), each by at most
Δ·C.  The released vector is then a Gaussian mechanism of ℓ₂ sensitivity Δ·√d and
noise σ (in units of C), so its trade-off curve is exactly G_μ with

    μ = Δ·√d / σ,   μ² = Δ²·d / σ²   (Dong, Roth & Su 2022, Thm 2.7),

μ² rational even when μ is not.  With several trees in one epoch (dp_accounting's
``step_counts`` list) a record still sits in one leaf of one tree, so d is the depth of
the deepest tree: ``steps`` is the largest step count.  Which Δ applies depends on the
neighbouring relation: replacing a record by a special zero record (dp_accounting's
``REPLACE_SPECIAL``, the relation of Kairouz et al. 2021 Def 1.1) moves a node by C
(Δ = 1); replacing it by another record moves it by up to 2C (Δ = 2).
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import ProfileKind
from certdp.mechanisms.basic import gdp_profile
from certdp.mechanisms.params import PARAMETER_RANGE, CatalogMechanism, MorePrivate, Param
from certdp.numerics.ball import to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu_ball

#: Largest step count accepted (depth 64: far beyond any training run)
MAX_TREE_STEPS = 2**64 - 1


def tree_depth(steps: int) -> int:
    """⌈log₂(T + 1)⌉ for T >= 1, exactly: the bit length of T."""
    return int(steps).bit_length()


class TreeAggregation(CatalogMechanism):
    """Single-epoch tree aggregation (DP-FTRL, Kairouz et al. 2021 App. D): noise σ per node,
    T steps, record sensitivity Δ; exactly μ-GDP with μ² = Δ²·⌈log₂(T + 1)⌉/σ²."""

    name = "tree_aggregation"
    profile_route = "closed-form GDP profile (tree aggregation: a Gaussian of sensitivity Δ√depth)"
    description = ("single-epoch tree aggregation (DP-FTRL, Kairouz et al. 2021): N(0, σ²) per node over "
                   "T steps; exactly μ-GDP with μ = Δ·√⌈log₂(T+1)⌉/σ (dp_accounting's "
                   "SingleEpochTreeAggregationDpEvent; Δ = 2 under replace-one)")
    PARAMS = (
        Param("noise", "number", "noise multiplier σ > 0 per tree node (standard deviation / clip norm)",
              more_private=(MorePrivate("larger", "adding independent N(0, σ'² − σ²) noise per node: "
                                        "a post-processing"),)),
        Param("steps", "integer", "steps T >= 1 of the (largest) tree: depth ⌈log₂(T + 1)⌉"),
        Param("sensitivity", "number", "record sensitivity Δ > 0 in units of the clip norm "
              "(1: replaced by a zero record; 2: replaced by another record)", 1),
    )
    own_kind = ProfileKind.EXACT

    def check(self) -> None:
        if self.noise <= 0:
            raise InputError(f"tree_aggregation: noise must be > 0, got {self.noise}")
        if not 1 <= self.steps <= MAX_TREE_STEPS:
            raise InputError(f"tree_aggregation: steps must be an integer in [1, 2^64 - 1], got {self.steps}")
        if not 0 < self.sensitivity <= PARAMETER_RANGE[1]:
            raise InputError(f"tree_aggregation: sensitivity must be > 0, got {self.sensitivity}")

    @property
    def depth(self) -> int:
        return tree_depth(int(self.steps))

    def gdp_mu_squared(self) -> Fraction:
        """μ² = Δ²·depth/σ², exact: the trade-off curve is G_μ exactly."""
        return Fraction(self.sensitivity) ** 2 * self.depth / Fraction(self.noise) ** 2

    def mu_ball(self) -> arb:
        return to_ball(self.gdp_mu_squared()).sqrt()

    def profile(self) -> sympy.Expr:
        mu2 = self.gdp_mu_squared()
        return gdp_profile(sympy.sqrt(sympy.Rational(mu2.numerator, mu2.denominator)))

    def delta_point_ball(self, eps: arb) -> arb:
        return delta_mu_ball(self.mu_ball(), eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        from certdp.mechanisms.params import DeltaUnattainable  # noqa: PLC0415

        if delta == 0:
            raise DeltaUnattainable(f"{self.name}: δ_μ(ε) > 0 for every ε, so no ε reaches δ = 0")
        return None  # generic certified bisection (δ_μ is strictly decreasing)
