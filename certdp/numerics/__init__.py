"""Trusted numerical kernel: exact inputs, ball arithmetic, enclosures, and the
certified normal / Gaussian-DP primitives.  Nothing here searches for bounds
that it does not also certify; the certificate checker imports only this
package and :mod:`certdp.expr`."""

from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact, parse_decimal
from certdp.numerics.gdp import (
    delta_mu,
    eps_from_mu_delta,
    mu_from_eps_delta,
    mu_from_pure_dp,
    tradeoff_mu,
)
from certdp.numerics.normal import Phi, Phi_inv, log_Phi, mills_ratio

__all__ = [
    "Enclosure",
    "exact",
    "parse_decimal",
    "Phi",
    "Phi_inv",
    "log_Phi",
    "mills_ratio",
    "delta_mu",
    "mu_from_eps_delta",
    "eps_from_mu_delta",
    "tradeoff_mu",
    "mu_from_pure_dp",
]
