"""Certificates of kind ``gdp_exact``: "M is μ-GDP" for a mechanism whose
trade-off curve is exactly Gaussian.

The mechanism catalog knows μ² exactly (as a rational) for the Gaussian
mechanism (μ = Δ/σ), the μ-GDP guarantee, k-fold compositions of them
(μ² multiplies by k: Dong, Roth, Su, "Gaussian differential privacy", 2022,
Cor. 2) and subsampling at rate 1; :meth:`Mechanism.gdp_mu_squared` returns
it.  The claim "μ-GDP" holds iff μ >= √(μ²), decided exactly as
μ_claim² >= μ² in rationals; an optional ``mu_lower`` ("no μ' < mu_lower
works") holds iff mu_lower² <= μ².  No cells, no residual, no floating point.

Document::

    {"format": "certdp-certificate", "version": 1,
     "claim": {"kind": "gdp_exact", "mu": "<decimal>", ["mu_lower": "<decimal>"], ["assumptions": [...]]},
     "mechanism": "<spec string>",
     "evidence": {"argument": "gaussian trade-off curve"},
     "precision": <bits>, "producer": "certdp X.Y.Z"}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import MAX_PRECISION, MIN_PRECISION, MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError
from certdp.verifier.exact import exact

KINDS = ("gdp_exact",)
ARGUMENT = "gaussian trade-off curve"


def _number(doc: Mapping[str, Any], key: str) -> Fraction:
    try:
        return exact(number_string(doc["claim"][key], f"claim.{key}"), f"claim.{key}")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step)."""
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    claim = _fields(doc["claim"], "claim", {"kind", "mu"}, {"mu_lower", "assumptions"})
    ev = _fields(doc["evidence"], "evidence", {"argument"}, set())
    if ev["argument"] != ARGUMENT:
        raise MalformedCertificate(f"evidence.argument must be {ARGUMENT!r}")
    mu = _number(doc, "mu")
    mu_lo = _number(doc, "mu_lower") if "mu_lower" in claim else None
    if mu <= 0:
        raise MalformedCertificate("claim.mu must be positive")
    mech = parse_mechanism(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    mu2 = mech.gdp_mu_squared()
    if mu2 is None:
        return False, f"{doc['mechanism']}: its trade-off curve is not known to be exactly Gaussian"
    if mu * mu < mu2:
        return False, f"mu = {claim['mu']} is below the exact GDP parameter sqrt({mu2})"
    if mu_lo is not None and mu_lo > 0 and mu_lo * mu_lo > mu2:
        return False, f"mu_lower = {claim['mu_lower']} exceeds the exact GDP parameter sqrt({mu2})"
    return True, None
