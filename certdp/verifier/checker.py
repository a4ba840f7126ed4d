"""Independent certificate checker: ``VALID`` / ``INVALID`` with the first failing step.

Trusted kernel only: the checker imports its own package (:mod:`certdp.verifier`: ball
arithmetic, exact numbers, the spec grammar, its own mechanism table
:mod:`certdp.verifier.mechs`, δ_μ) and, for user ``profile("...")`` expressions only, the
safe expression parser and evaluator — never the mechanism catalog or the search code.
Each claim kind is re-derived by its own module, loaded only for certificates of that
kind: the GDP cell argument by :mod:`certdp.verifier.check_gdp`, the others by the
modules of :data:`KIND_HOME`.
"""

from __future__ import annotations

import importlib
import json
import os
from dataclasses import dataclass
from typing import Any, Mapping

from certdp.verifier.errors import InputError
from certdp.verifier.facts import assumptions_of, parse_mechanism
from certdp.verifier.mechs import NaiveFamily
from certdp.verifier.schema import (
    GDP_KINDS,
    MalformedCertificate,
    validate_gdp,
    validate_top,
)


#: Largest certificate file the checker reads (bytes); see docs/certificates.md.
MAX_FILE_BYTES = 16 * 2**20


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a check.  ``assumptions``: the unproved hypotheses a VALID
    claim rests on (stated in the certificate and required by its mechanism);
    such a claim is valid only under them."""

    valid: bool
    claim: dict[str, Any]
    failed_step: str | None
    assumptions: tuple[str, ...] = ()

    @property
    def unconditional(self) -> bool:
        """VALID with no unproved hypothesis."""
        return self.valid and not self.assumptions

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "claim": self.claim, "failed_step": self.failed_step,
                "assumptions": list(self.assumptions)}

    def __str__(self) -> str:
        if self.valid and self.assumptions:
            return "VALID only under unproved assumptions:\n" + "\n".join(f"  assuming: {a}" for a in self.assumptions)
        if self.valid:
            return "VALID"
        return f"INVALID: {self.failed_step}"


def claim_summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The claim as reported by ``certdp verify --json``."""
    out: dict[str, Any] = {"kind": doc["claim"]["kind"], "mechanism": doc["mechanism"]}
    for k, v in doc["claim"].items():
        if k != "kind":
            out[k] = v
    if out["kind"] == "gdp":
        out.setdefault("residual", "0")  # zero tail: no residual
    return out


#: Checker modules for the non-GDP kinds: each has ``KINDS`` and ``check(doc) -> (valid, step)``.
KIND_MODULES = ("certdp.verifier.check_prdp", "certdp.verifier.check_dp", "certdp.verifier.check_exact",
                "certdp.verifier.check_value", "certdp.verifier.check_fdp", "certdp.verifier.check_refute",
                "certdp.verifier.check_shuffle")
#: The module of each of their kinds, imported only when a certificate has that kind
#: (tests/test_checker_closure.py checks it against every module's ``KINDS``).
KIND_HOME = {"adp_not_prdp": "certdp.verifier.check_prdp", "dp": "certdp.verifier.check_dp",
             "not_dp": "certdp.verifier.check_dp", "gdp_exact": "certdp.verifier.check_exact",
             "value": "certdp.verifier.check_value", "gdp_except": "certdp.verifier.check_fdp",
             "not_gdp_except": "certdp.verifier.check_refute", "not_dp_shuffled": "certdp.verifier.check_shuffle"}


def _kind_module(kind: Any) -> Any:
    name = KIND_HOME.get(kind) if isinstance(kind, str) else None
    if name is None:
        raise MalformedCertificate(f"unknown claim kind {kind!r}")
    module = importlib.import_module(name)
    if kind not in module.KINDS:  # pragma: no cover - the table above is wrong
        raise MalformedCertificate(f"claim kind {kind!r} is not checked by {name}")
    return module


def check(doc: Any) -> CheckResult:
    """Check a parsed certificate document.

    Raises :class:`MalformedCertificate` for malformed documents (unknown
    fields/kinds, bad numbers, unparsable mechanism spec).  A field of the wrong
    JSON type that a kind's validation missed still ends as MalformedCertificate
    (never a traceback, never VALID).
    """
    try:
        return _check_document(doc)
    except (TypeError, KeyError, AttributeError, IndexError) as err:
        raise MalformedCertificate(f"malformed certificate: a field has the wrong type or shape "
                                   f"({type(err).__name__}: {err})") from None


def _check_document(doc: Any) -> CheckResult:
    validate_top(doc)
    kind = doc["claim"]["kind"]
    if kind in GDP_KINDS:
        validate_gdp(doc)
        from certdp.verifier.check_gdp import StepFailed, check_gdp  # noqa: PLC0415  (GDP kinds only)

        mech = parse_mechanism(doc, naive_ok=True)
        summary = claim_summary(doc)
        try:
            if isinstance(mech, NaiveFamily) or "switch" in doc["evidence"]:
                # sgd/icea: the switch-point proof, loaded only for them (issue 36: what loads)
                from certdp.verifier import switch  # noqa: PLC0415

                mech = switch.refined_mechanism(doc, mech)
                step = mech.prove(doc["precision"], switch.reach_of(doc))
                if step is not None:
                    raise StepFailed(f"switch point: {step}")
            check_gdp(doc, mech)
        except StepFailed as err:
            return CheckResult(False, summary, str(err))
        return CheckResult(True, summary, None, assumptions_of(doc))
    module = _kind_module(kind)
    ok, step = module.check(doc)
    stated = assumptions_of(doc) if isinstance(doc["claim"], dict) and ok else ()
    return CheckResult(bool(ok), claim_summary(doc), None if ok else step, stated)


def load(path: str) -> Any:
    """Parse a certificate file: at most MAX_FILE_BYTES of UTF-8 JSON, no
    floats, no duplicate keys (MalformedCertificate otherwise)."""
    if os.path.isdir(path):
        raise InputError(f"cannot read certificate {path!r}: it is a directory")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)  # never more: /dev/zero must not hang
    except OSError as err:
        raise InputError(f"cannot read certificate {path!r}: {err.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise MalformedCertificate(f"{path}: larger than {MAX_FILE_BYTES} bytes (the format's limit)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise MalformedCertificate(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        return json.loads(text, parse_float=_no_float, parse_int=int, parse_constant=_no_float,
                          object_pairs_hook=_no_duplicates)
    except ValueError as err:
        raise MalformedCertificate(f"{path}: not valid JSON ({err})") from None
    except RecursionError:
        raise MalformedCertificate(f"{path}: JSON nested too deeply") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object with each key once: a repeated key (which json would
    silently resolve to the last value) makes the document ambiguous."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _no_float(text: str) -> Any:
    raise ValueError(f"bare JSON number {text!r}: certificate numbers must be decimal strings")


KERNELS = ("flint", "mpmath")


def verify(path: str, kernel: str = "flint") -> CheckResult:
    """Load and check the certificate at ``path`` (``certdp verify FILE``);
    ``kernel="mpmath"`` re-checks with the second, independent interval kernel
    (:mod:`certdp.verifier.check_iv`)."""
    doc = load(path)
    if kernel == "flint":
        return check(doc)
    if kernel != "mpmath":
        raise InputError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    from certdp.verifier.check_iv import check as check_with_mpmath  # noqa: PLC0415

    try:
        ok, step = check_with_mpmath(doc)
    except (TypeError, KeyError, AttributeError, IndexError) as err:
        raise MalformedCertificate(f"malformed certificate: a field has the wrong type or shape "
                                   f"({type(err).__name__}: {err})") from None
    return CheckResult(bool(ok), claim_summary(doc), None if ok else step, assumptions_of(doc) if ok else ())
