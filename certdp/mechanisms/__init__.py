"""Mechanisms with exact parameters and certified privacy profiles.

``parse_spec("subsample(laplace(scale=1/2), rate=0.1)")`` builds a mechanism
from the spec grammar (:mod:`certdp.mechanisms.spec`); :data:`CATALOG` lists
every name.  Each mechanism exposes ``profile()`` (sympy δ(ε) in ``EPS``),
``delta_ball(eps)`` (certified range over a ball) and ``spec()``.
"""

from certdp.mechanisms.base import EPS, Mechanism
from certdp.mechanisms.basic import (
    ApproxDP,
    Gaussian,
    GaussianDP,
    Laplace,
    PureDP,
    RandomizedResponse,
)
from certdp.mechanisms.catalog import CATALOG, catalog_listing, describe
from certdp.mechanisms.profile_values import delta_enclosure, eps_enclosure
from certdp.mechanisms.params import CatalogMechanism, DeltaUnattainable, Param
from certdp.mechanisms.spec import format_spec, parse_spec
from certdp.mechanisms.transforms import ClipReify, Compose, Subsample
from certdp.mechanisms.user import Profile

__all__ = [
    "EPS",
    "Mechanism",
    "CatalogMechanism",
    "Param",
    "CATALOG",
    "catalog_listing",
    "describe",
    "parse_spec",
    "format_spec",
    "delta_enclosure",
    "eps_enclosure",
    "DeltaUnattainable",
    "Laplace",
    "Gaussian",
    "GaussianDP",
    "RandomizedResponse",
    "PureDP",
    "ApproxDP",
    "Subsample",
    "Compose",
    "ClipReify",
    "Profile",
    "Tradeoff",
    "Sgd",
    "Icea",
]


def __getattr__(name: str):  # lazy: the σ-formula mechanisms load search code
    if name in ("Tradeoff", "Sgd", "Icea"):
        from certdp.mechanisms.catalog import entry  # noqa: PLC0415

        return entry(name.lower())
    raise AttributeError(name)
