"""Writing ``certdp-certificate`` documents (format: docs/certificates.md).

Numbers are exact decimal strings: endpoints of claimed enclosures are
rounded *outward* (μ up, μ⁻ down, residual up), which only weakens the
claim; breakpoints and witness points are written exactly.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from certdp.certificates.schema import FORMAT, VERSION
from certdp.numerics.enclosure import decimal_string
from certdp.numerics.exact import fraction_to_str

if TYPE_CHECKING:  # pragma: no cover
    from certdp.analyses.gdpt import Measurement

#: Starting precision (bits) the checker is told to use.
DEFAULT_PRECISION = 96
#: Significant digits of claimed numbers.
CLAIM_DIGITS = 25


def producer() -> str:
    from certdp import __version__  # noqa: PLC0415

    return f"certdp {__version__}"


def number(q: Fraction) -> str:
    """Exact short string of a rational (decimal when it terminates)."""
    try:
        from certdp.mechanisms.spec import format_number  # noqa: PLC0415

        return format_number(q)
    except ImportError:  # pragma: no cover
        return fraction_to_str(q)


def envelope(claim: dict[str, Any], mechanism: str, evidence: dict[str, Any], precision: int = DEFAULT_PRECISION) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim,
        "mechanism": mechanism,
        "evidence": evidence,
        "precision": precision,
        "producer": producer(),
    }


def measurement_certificate(m: "Measurement") -> dict[str, Any]:
    """Certificate of a :class:`certdp.analyses.gdpt.Measurement`: kind ``gdp`` (zero tail)
    or ``gdp_head`` (with the residual), with μ⁻ and its witness when positive."""
    zero = m.tail.kind == "zero"
    claim: dict[str, Any] = {
        "kind": "gdp" if zero else "gdp_head",
        "mu": decimal_string(m.mu.hi, CLAIM_DIGITS, "up"),
        "eps_max": number(m.eps_max),
    }
    evidence: dict[str, Any] = {"cells": [number(q) for q in m.breakpoints]}
    if zero:
        evidence["tail"] = {"kind": "zero", "eps_zero": number(m.tail.eps_zero if m.tail.eps_zero is not None else m.eps_max)}
    else:
        evidence["tail"] = {"kind": "residual"}
        claim["residual"] = decimal_string(m.residual.hi, CLAIM_DIGITS, "up")
    if m.witness_eps is not None and m.mu.lo > 0 and m.profile_kind.bounds_from_below:
        claim["mu_lower"] = decimal_string(m.mu.lo, CLAIM_DIGITS, "down")
        evidence["witness"] = {"eps": number(m.witness_eps)}
    if m.assumptions:
        claim["assumptions"] = list(m.assumptions)
    return envelope(claim, m.spec, evidence)


def not_gdp_certificate(spec: str, mu: Fraction, eps: Fraction, assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate of "not μ-GDP" from a witness ε with δ_A(ε) > δ_μ(ε)."""
    claim: dict[str, Any] = {"kind": "not_gdp", "mu": number(mu)}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return envelope(claim, spec, {"witness": {"eps": number(eps)}})


def write(doc: dict[str, Any], path: str) -> None:
    """Write a certificate as indented JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
