"""The ``certdp-certificate`` JSON format, version 1 (docs/certificates.md).

Structural validation only: field names, types and kinds.  A document that
fails here is *malformed* (:class:`MalformedCertificate`, exit 2), which is
different from a well-formed certificate whose inequalities fail (INVALID).
This module imports nothing from the search code.
"""

from __future__ import annotations

from typing import Any, Mapping

from certdp.verifier.errors import InputError

FORMAT = "certdp-certificate"
VERSION = 1
TOP_FIELDS = {"format", "version", "claim", "mechanism", "evidence", "precision", "producer"}
#: Lowest / highest accepted starting precision (bits).
MIN_PRECISION, MAX_PRECISION = 32, 4096
#: Most cells a certificate may list.
MAX_CELLS = 250_000  # = certdp.analyses.gdpt.MAX_CELLS, the most a measurement writes

#: claim kind -> (required claim fields, optional claim fields, required evidence, optional evidence)
GDP_KINDS: dict[str, tuple[set[str], set[str], set[str], set[str]]] = {
    "gdp": ({"kind", "mu", "eps_max"}, {"mu_lower", "assumptions"}, {"cells", "tail"}, {"witness", "switch"}),
    "gdp_head": ({"kind", "mu", "eps_max"}, {"mu_lower", "residual", "assumptions"}, {"cells", "tail"},
                 {"witness", "switch"}),
    "not_gdp": ({"kind", "mu"}, {"assumptions"}, {"witness"}, {"switch"}),
}


class MalformedCertificate(InputError):
    """The document is not a well-formed certdp certificate."""


def _fields(obj: Any, where: str, required: set[str], optional: set[str]) -> Mapping[str, Any]:
    if not isinstance(obj, dict):
        raise MalformedCertificate(f"{where} must be a JSON object")
    missing = required - set(obj)
    if missing:
        raise MalformedCertificate(f"{where}: missing field(s) {sorted(missing)}")
    unknown = set(obj) - required - optional
    if unknown:
        raise MalformedCertificate(f"{where}: unknown field(s) {sorted(unknown)}")
    return obj


def number_string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise MalformedCertificate(f"{where} must be a non-empty decimal string, got {value!r}")
    return value


def validate_top(doc: Any) -> Mapping[str, Any]:
    """Check the envelope common to every kind; return the document.

    Kind-specific rules (precision range, mechanism as a spec string) are
    checked by :func:`validate_gdp` or by the kind's own checker.
    """
    _fields(doc, "certificate", TOP_FIELDS, set())
    if doc["format"] != FORMAT:
        raise MalformedCertificate(f"format must be {FORMAT!r}, got {doc['format']!r}")
    if type(doc["version"]) is not int or doc["version"] != VERSION:
        raise MalformedCertificate(f"unsupported version {doc['version']!r} (this checker reads version {VERSION})")
    if type(doc["precision"]) is not int:
        raise MalformedCertificate(f"precision must be an integer, got {doc['precision']!r}")
    if not isinstance(doc["producer"], str):
        raise MalformedCertificate("producer must be a string")
    claim = doc["claim"]
    if not isinstance(claim, dict) or not isinstance(claim.get("kind"), str):
        raise MalformedCertificate("claim must be an object with a string 'kind'")
    if not isinstance(doc["evidence"], dict):
        raise MalformedCertificate("evidence must be a JSON object")
    return doc


def validate_gdp(doc: Mapping[str, Any]) -> None:
    """Field-level validation of the GDP kinds."""
    kind = doc["claim"]["kind"]
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    req_c, opt_c, req_e, opt_e = GDP_KINDS[kind]
    claim = _fields(doc["claim"], "claim", req_c, opt_c)
    for k in claim:
        if k not in ("kind", "assumptions"):
            number_string(claim[k], f"claim.{k}")
    ev = _fields(doc["evidence"], "evidence", req_e, opt_e)
    if "cells" in ev:
        cells = ev["cells"]
        if not isinstance(cells, list) or len(cells) < 2 or len(cells) > MAX_CELLS + 1:
            raise MalformedCertificate("evidence.cells must be a list of at least two breakpoints")
        for i, c in enumerate(cells):
            number_string(c, f"evidence.cells[{i}]")
    if "tail" in ev:
        tail = ev["tail"]
        if not isinstance(tail, dict) or tail.get("kind") not in ("zero", "residual"):
            raise MalformedCertificate('evidence.tail must be {"kind": "zero", "eps_zero": ...} or {"kind": "residual"}')
        if tail["kind"] == "zero":
            _fields(tail, "evidence.tail", {"kind", "eps_zero"}, set())
            number_string(tail["eps_zero"], "evidence.tail.eps_zero")
        else:
            _fields(tail, "evidence.tail", {"kind"}, set())
        if kind == "gdp" and tail["kind"] != "zero":
            raise MalformedCertificate('a "gdp" claim needs a zero tail (use "gdp_head" with a residual otherwise)')
    if "witness" in ev:
        w = _fields(ev["witness"], "evidence.witness", {"eps"}, set())
        number_string(w["eps"], "evidence.witness.eps")
