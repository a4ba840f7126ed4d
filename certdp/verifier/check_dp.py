"""Certificates of kind ``dp`` and ``not_dp``: "M is (ε, δ)-DP" / "M is not".

The claim is decided by re-evaluating the mechanism's closed-form privacy
profile in ball arithmetic: ``dp`` holds iff δ_M(ε) <= δ, ``not_dp`` iff
δ_M(ε) > δ (the hockey-stick characterisation of (ε, δ)-DP, Liu et al. 2022 §3).
The evidence (the producer's enclosure of δ_M(ε)) is informational and never
trusted.  For DP-SGD (compositions of Poisson-subsampled Gaussians, answered
by the PLD accountant) the evidence ``pld`` states a discretisation and
:mod:`certdp.verifier.check_pld` re-derives a dominating discrete PLD
from it — an upper bound, so it proves ``dp`` only; the evidence ``pld_lower``
(x-axis cuts of a merged one-step PLD, a post-processing) gives a lower bound
and proves ``not_dp`` only; ``pld_profile`` (a composition of one closed-form mechanism)
and ``pld_items`` (``compose_all(M1, ..., Mn)``, a heterogeneous composition) are
re-derived by :mod:`certdp.verifier.check_profile_pld`, ``pld_law`` and
``pld_law_lower`` (compositions of Poisson-subsampled Laplace, relation by relation: an
upper bound proving ``dp``, a dominated one proving ``not_dp``) by
:mod:`certdp.verifier.check_law_pld`.  Other mechanisms without
a closed-form profile are not accepted.  Imports only the kernel and the checker's table.

Document::

    {"format": "certdp-certificate", "version": 1,
     "claim": {"kind": "dp" | "not_dp", "eps": "<decimal>", "delta": "<decimal>"},
     "mechanism": "<spec string>",
     "evidence": {"delta_at_eps": {"lo": "...", "hi": "..."}}
                 | {"pld": {"h": "1/1024", "bits": 71, "tau": "1/10^14", "z": "8.5"}}   (dp only)
                 | {"pld_lower": {"h": ..., "bits": ..., "tau": ..., "remove": [cuts], "add": [cuts]}}  (not_dp only)
                 | {"pld_profile": {"h": ..., "bits": ..., "tau": ..., "knots": [i_0, ...]}}   (dp only)
                 | {"pld_items": {"h": ..., "bits": ..., "tau": ..., "z": ...,
                                  "knots": [[i_0, ...] | null per item]}}   (dp only)
                 | {"pld_law": {"h": ..., "bits": ..., "tau": ..., "remove": [i_lo, i_hi],
                                "add": [i_lo, i_hi]}}   (dp only)
                 | {"pld_law_lower": {"h": ..., "bits": ..., "tau": ..., "shift": ...,
                                      "remove": {"range": [i_lo, i_hi], "regions": [[atom, u, v], ...]},
                                      "add": {...}}}   (not_dp only),
     "precision": <bits>, "producer": "certdp X.Y.Z"}
"""

from __future__ import annotations

from typing import Any, Mapping

from certdp.verifier.schema import (
    MAX_PRECISION,
    MIN_PRECISION,
    MalformedCertificate,
    _fields,
    number_string,
)
from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import MAX_PREC, lower_bound, to_ball, upper_bound
from certdp.verifier.decide import decide
from certdp.verifier.exact import exact

KINDS = ("dp", "not_dp")


def _compose_all(mech: Any) -> None:
    if getattr(mech, "name", None) != "compose_all":
        raise MalformedCertificate("evidence.pld_items certifies compose_all(M1, ..., Mn) only")


# The PLD re-derivations load only for the certificates that carry their evidence
# (issue 36: what a certificate's reader must trust is what its check loads).
def _pld() -> Any:
    from certdp.verifier import check_pld  # noqa: PLC0415

    return check_pld


def _law() -> Any:
    from certdp.verifier import check_law_pld  # noqa: PLC0415

    return check_law_pld


def _prof() -> Any:
    from certdp.verifier import check_profile_pld  # noqa: PLC0415

    return check_profile_pld


#: PLD evidence → (the claim kind it proves, its parser (evidence, mechanism), the
#: mechanism shapes it accepts (raises MalformedCertificate otherwise), and its bound on
#: δ(ε) at a precision: a ball (an upper bound for ``dp``, a lower one for ``not_dp``) or
#: the failing step as a string).
PLD_EVIDENCE: dict[str, tuple[str, Any, Any, Any]] = {
    "pld": ("dp", lambda ev, m: _pld().parse_evidence(ev), lambda m: _pld().subsampled_gaussians(m),
            lambda doc, m, e, ev, p: _pld().delta_upper(m, e, ev, p)),
    "pld_lower": ("not_dp", lambda ev, m: _pld().parse_lower_evidence(ev), lambda m: _pld().subsampled_gaussians(m),
                  lambda doc, m, e, ev, p: _pld().delta_lower(m, e, ev, p)),
    "pld_profile": ("dp", lambda ev, m: _prof().parse_evidence(ev), lambda m: _prof().split(m),
                    lambda doc, m, e, ev, p: _prof().delta_upper(doc["mechanism"], m, e, ev, p)),
    "pld_items": ("dp", lambda ev, m: (_compose_all(m), _prof().parse_items_evidence(ev, len(m.children()))),
                  lambda m: None, lambda doc, m, e, ev, p: _prof().items_delta_upper(m, e, ev, p)),
    "pld_law": ("dp", lambda ev, m: _law().parse_evidence(ev), lambda m: _law().subsampled_base(m),
                lambda doc, m, e, ev, p: _law().delta_upper(m, e, ev, p)),
    "pld_law_lower": ("not_dp", lambda ev, m: _law().parse_lower_evidence(ev), lambda m: _law().subsampled_base(m),
                      lambda doc, m, e, ev, p: _law().delta_lower(m, e, ev, p)),
}
EVIDENCE = ("delta_at_eps", *PLD_EVIDENCE)


def _validate(doc: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    claim = _fields(doc["claim"], "claim", {"kind", "eps", "delta"}, {"assumptions"})
    ev = _fields(doc["evidence"], "evidence", set(), set(EVIDENCE))
    if len(set(ev) & set(EVIDENCE)) > 1:
        raise MalformedCertificate(f"evidence: give one of {', '.join(EVIDENCE)}")
    if "delta_at_eps" in ev:
        enc = _fields(ev["delta_at_eps"], "evidence.delta_at_eps", {"lo", "hi"}, set())
        number_string(enc["lo"], "evidence.delta_at_eps.lo")
        number_string(enc["hi"], "evidence.delta_at_eps.hi")
    try:
        eps = exact(number_string(claim["eps"], "claim.eps"), "claim.eps")
        delta = exact(number_string(claim["delta"], "claim.delta"), "claim.delta")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    if eps < 0 or not 0 <= delta < 1:
        raise MalformedCertificate("claim needs eps >= 0 and 0 <= delta < 1")
    mech = parse_mechanism(doc)
    given = next((k for k in PLD_EVIDENCE if k in ev), None)
    if given is not None:
        kind, parse, shape, _ = PLD_EVIDENCE[given]
        if claim["kind"] != kind:
            bound = "upper" if kind == "dp" else "lower"
            raise MalformedCertificate(f"evidence.{given} proves {bound} bounds on delta only (kind '{kind}')")
        parse(ev[given], mech)
        shape(mech)
    elif not getattr(mech, "has_closed_form", True):
        raise MalformedCertificate("mechanism has no closed-form profile; (not_)dp certificates need one "
                                   "(or, for DP-SGD, evidence.pld)")
    return mech, eps, delta


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step) for a ``dp`` / ``not_dp`` certificate."""
    mech, eps, delta = _validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    kind = doc["claim"]["kind"]
    claim = doc["claim"]

    given = next((k for k in PLD_EVIDENCE if k in doc["evidence"]), None)

    def test(prec: int) -> tuple[bool, str | None] | None:
        if given is not None:
            proves, _, _, bound = PLD_EVIDENCE[given]
            y = bound(doc, mech, eps, doc["evidence"][given], prec)
            if isinstance(y, str):
                return False, y
            if proves == "not_dp":  # a lower bound only: it refutes dp
                if lower_bound(y) > upper_bound(to_ball(delta)):
                    return True, None
                if prec >= 2 * doc["precision"]:
                    return False, (f"the re-derived lower PLD bound delta({claim['eps']}) >= "
                                   f"{lower_bound(y).str(8, radius=False)} does not refute delta <= {claim['delta']}")
                return None
            # upper bounds: they prove dp only
            if upper_bound(y) <= lower_bound(to_ball(delta)):
                return True, None
            if prec >= 2 * doc["precision"]:
                return False, (f"the re-derived upper PLD bound delta({claim['eps']}) <= "
                               f"{upper_bound(y).str(8, radius=False)} does not prove delta <= {claim['delta']}")
            return None
        y = mech.delta_ball(to_ball(eps))
        d = to_ball(delta)
        if not y.is_finite():
            return None
        if kind == "dp" and upper_bound(y) <= lower_bound(d):
            return True, None
        if kind == "not_dp" and lower_bound(y) > upper_bound(d):
            return True, None
        if kind == "dp" and lower_bound(y) > upper_bound(d):
            return False, f"delta_M({claim['eps']}) > {claim['delta']}: not (eps, delta)-DP"
        if kind == "not_dp" and upper_bound(y) <= lower_bound(d):
            return False, f"delta_M({claim['eps']}) <= {claim['delta']}: the mechanism is (eps, delta)-DP"
        return None

    try:
        return decide(test, start=doc["precision"], cap=MAX_PREC // 2, what="delta_M(eps) against delta")
    except InputError as err:
        return False, f"profile evaluation failed: {err}"
    except PrecisionError:
        return False, "undecided: delta_M(eps) could not be separated from delta"
