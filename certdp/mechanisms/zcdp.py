"""A ρ-zCDP guarantee as an upper-bound privacy profile.

A mechanism is ρ-zCDP (Bun & Steinke 2016, "Concentrated differential privacy:
simplifications, extensions, and lower bounds", Def 1.1) when it is (α, αρ)-RDP for
every α > 1.  For every α > 1 it is then (ε, δ_α(ε))-DP with

    δ_α(ε) = exp((α − 1)(αρ − ε) + α·log(1 − 1/α)) / (α − 1)
           = exp((α − 1)(αρ − ε)) / α · (1 − 1/α)^(α − 1)

(Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy",
Prop 12 with τ = αρ, and Cor 13 for the infimum over α; the same bound as OpenDP's
``cdp_delta``).  Any α gives a valid bound, so α is chosen by a float search (the
root of the derivative (2α − 1)ρ − ε + log(1 − 1/α), increasing in α), taken as the
exact dyadic rational it stores, and δ_α is evaluated in ball arithmetic: the
profile is an **upper bound** (``ProfileKind.UPPER``), never the tight profile of
the guarantee.  zCDP composes additively (Bun & Steinke 2016 Lemma 2.3): the router
merges ``zcdp`` parts of a composition into one ``zcdp(rho=Σρ)``
(:func:`certdp.analyses.dispatch.composition_accountant`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import ProfileKind
from certdp.mechanisms.params import PARAMETER_RANGE, CatalogMechanism, Param
from certdp.numerics.ball import to_ball


def best_order(rho: float, eps: float) -> Fraction:
    """A float-searched α > 1 near the minimiser of δ_α(ε) (a search only: every α > 1
    gives a valid bound), as an exact dyadic rational."""
    lo, hi = 1.0 + 2.0**-40, max((eps + 1.0) / (2.0 * rho) + 2.0, 2.0)
    if not math.isfinite(hi):
        hi = 1e300
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if (2 * mid - 1) * rho - eps + math.log1p(-1 / mid) < 0:
            lo = mid
        else:
            hi = mid
    return Fraction(hi)


def cks_delta_ball(rho: Fraction, alpha: Fraction, eps: arb) -> arb:
    """δ_α(ε) = exp((α − 1)(αρ − ε) + α log(1 − 1/α))/(α − 1) in ball arithmetic
    (Canonne, Kamath & Steinke 2020 Prop 12), for an exact α > 1."""
    a = to_ball(alpha)
    expo = (a - 1) * (a * to_ball(rho) - eps) + a * (-1 / a).log1p()
    return expo.exp() / (a - 1)


class ZCDP(CatalogMechanism):
    """ρ-zCDP guarantee (Bun & Steinke 2016): an upper bound on its privacy profile by the
    conversion of Canonne, Kamath & Steinke 2020 (Prop 12, the optimal α searched in floats,
    the bound at that α certified in ball arithmetic)."""

    name = "zcdp"
    profile_route = "upper bound from ρ-zCDP (Canonne, Kamath & Steinke 2020 Prop 12, one order α)"
    description = ("ρ-zCDP guarantee, upper bound only: δ(ε) <= exp((α−1)(αρ−ε))/α·(1−1/α)^(α−1) "
                   "at a searched α > 1 (Canonne, Kamath & Steinke 2020)")
    PARAMS = (Param("rho", "number", "zCDP parameter ρ > 0"),)
    own_kind = ProfileKind.UPPER

    def check(self) -> None:
        if not 0 < self.rho <= PARAMETER_RANGE[1]:
            raise InputError(f"zcdp: rho must be > 0, got {self.rho}")

    def profile(self) -> sympy.Expr:
        raise InputError("zcdp has no closed-form profile expression (an infimum over orders α); its upper "
                         "bound is evaluated in ball arithmetic at a searched order")

    def delta_point_ball(self, eps: arb) -> arb:
        """A ball whose upper end bounds δ(ε') for every ε' in ``eps`` (δ_α is decreasing in
        ε at a fixed α, and every α is valid); capped at 1."""
        rho = Fraction(self.rho)
        e_mid = max(float(eps.mid()), 0.0)
        d = cks_delta_ball(rho, best_order(float(rho), e_mid), eps)
        if d >= 1:
            return arb(1)
        if d < 1:
            return d
        return d.union(arb(1)).intersection(arb(0).union(arb(1)))
