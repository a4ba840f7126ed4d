"""Certificates of kind ``not_gdp_except``: "M is not μ-GDP except η" for DP-SGD —
a witness ε* >= 0 with δ_M(ε*) > δ_μ(ε*) + η (η = 0: not μ-GDP), so no μ' <= μ
and no η' <= η makes δ_M <= δ_μ' + η' hold (δ_μ(ε) increases with μ).

δ_M(ε*) is bounded from below, for M = compose(subsample(gaussian(σ), rate=q), k=T)
(sensitivity Δ, s = σ/Δ), by one of:

* ``"bound": "all_sampled"`` — with probability q^T every step samples the record:
  in the remove relation P_T >= q^T N(1, s²)^{⊗T} setwise and Q_T = N(0, s²)^{⊗T}, so
  δ_M(ε) >= sup_S q^T G_1(S) − e^ε G_0(S) = q^T δ_{√T/s}(ε + T log(1/q)),
  the Gaussian pair (G_1, G_0) being exactly (√T/s)-GDP.  This is the tail of
  Liu et al. 2022 Thm 4.4 / §5.3 made explicit: it refutes every strict μ < √T/s,
  at a large ε*.
* ``"pld_lower"`` — the dominated PLDs of :func:`certdp.verifier.check_pld.delta_lower`
  (the one-step partition of the x-axis is stated by the writer; merged outputs are a
  post-processing, losses rounded down, masses rounded down, tails dropped).

Document::

    {"claim": {"kind": "not_gdp_except", "mu": "<decimal>", "residual": "<decimal>"},
     "mechanism": "compose(subsample(gaussian(sigma=S), rate=Q), k=T)",
     "evidence": {"witness": {"eps": "<decimal>"}, "bound": "all_sampled"}
                 | {"witness": {"eps": "<decimal>"}, "pld_lower": {...}}, ...}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.check_pld import delta_lower, parse_lower_evidence, subsampled_gaussians
from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import MAX_PRECISION, MIN_PRECISION, MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.decide import decide
from certdp.verifier.exact import exact
from certdp.verifier.gauss import delta_mu_ball, delta_mu_start_prec as _delta_mu_start_prec

KINDS = ("not_gdp_except",)
BOUNDS = ("all_sampled",)


def _num(text: Any, where: str) -> Fraction:
    try:
        return exact(number_string(text, where), where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def validate(doc: Mapping[str, Any]) -> tuple[Any, Fraction, Fraction, Fraction]:
    """Structure (no arithmetic): (mechanism, μ, η, ε*)."""
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    claim = _fields(doc["claim"], "claim", {"kind", "mu", "residual"}, {"assumptions"})
    ev = _fields(doc["evidence"], "evidence", {"witness"}, {"bound", "pld_lower"})
    if ("bound" in ev) == ("pld_lower" in ev):
        raise MalformedCertificate("evidence needs exactly one of 'bound' and 'pld_lower'")
    if "bound" in ev and ev["bound"] not in BOUNDS:
        raise MalformedCertificate(f"evidence.bound must be one of {BOUNDS}")
    w = _fields(ev["witness"], "evidence.witness", {"eps"}, set())
    mu, eta, e = _num(claim["mu"], "claim.mu"), _num(claim["residual"], "claim.residual"), _num(w["eps"], "evidence.witness.eps")
    if not mu > 0 or not 0 <= eta < 1 or e < 0:
        raise MalformedCertificate("claim needs mu > 0, 0 <= residual < 1 and a witness eps >= 0")
    if e > 10**6:
        raise MalformedCertificate("evidence.witness.eps must be <= 10^6")
    mech = parse_mechanism(doc)
    subsampled_gaussians(mech)
    if "pld_lower" in ev:
        parse_lower_evidence(ev["pld_lower"])
    return mech, mu, eta, e


def all_sampled_lower(s: Fraction, q: Fraction, count: int, eps: Fraction) -> arb:
    """A ball whose lower end bounds δ_M(ε) from below: q^T δ_{√T/s}(ε + T log(1/q))."""
    qb = to_ball(q)
    arg = to_ball(eps) - count * qb.log()
    mu_t = arb(count).sqrt() / to_ball(s)
    return (count * qb.log()).exp() * delta_mu_ball(mu_t, arg)


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step) for a ``not_gdp_except`` certificate."""
    mech, mu, eta, e = validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    ev = doc["evidence"]
    s, q, count = subsampled_gaussians(mech)
    arg_f = float(e) + count * float(-(to_ball(q).log()).mid())
    extra = _delta_mu_start_prec(0, float(count) ** 0.5 / float(s), arg_f) + \
        _delta_mu_start_prec(0, mu, e) if "bound" in ev else 0

    def test(prec: int) -> bool | None:
        with working_precision(prec + extra):
            low = all_sampled_lower(s, q, count, e) if "bound" in ev else \
                delta_lower(mech, e, ev["pld_lower"], prec)
            up = delta_mu_ball(to_ball(mu), to_ball(e)) + to_ball(eta)
            if not (low.is_finite() and up.is_finite()):
                return None
            if lower_bound(low) > upper_bound(up):
                return True
            return None

    try:
        decide(test, start=doc["precision"], doublings=1, what="the witness")
    except PrecisionError:
        return False, (f"witness: a lower bound of delta_M({ev['witness']['eps']}) > delta_mu({doc['claim']['mu']}) "
                       f"+ {doc['claim']['residual']} does not hold")
    except InputError as err:
        return False, f"re-deriving the lower bound failed: {err}"
    return True, None
