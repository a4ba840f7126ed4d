"""Certificates of kind ``value``: "the quantity q lies in [lo, hi]", and the
audit verdict that follows from it for a printed number.

Re-derived here, never trusted (every check is a ball comparison decided by
the one decision loop):

* ``mu_gdp`` at (ε, δ): the μ with δ_μ(ε) = δ (Gomez et al. 2025, Table 3;
  δ_μ(ε) increases with μ, Liu et al. 2022 Thm 3.2): lo ≤ μ* ≤ hi iff
  δ_lo(ε) ≤ δ ≤ δ_hi(ε).
* ``delta`` at ε for a mechanism with a closed-form profile: δ_M(ε) ∈ [lo, hi]
  (lo > 0 needs a profile that is exact from below).
* ``eps`` at δ (the smallest ε with δ_M(ε) ≤ δ; δ_M is non-increasing):
  ε* ≤ hi iff δ_M(hi) ≤ δ; ε* ≥ lo > 0 when δ_M(lo') > δ for every lo' < lo,
  which holds when δ_M(lo) > δ (lo > 0 needs an exact profile).
* ``delta`` / ``eps`` answered by an accountant (DP-SGD, compositions): evidence
  ``{"upper": <dp evidence>, "lower": <not_dp evidence>}`` (``lower`` iff lo > 0); each end
  is checked as the ``dp`` / ``not_dp`` certificate it amounts to (:func:`end_documents`,
  :mod:`certdp.verifier.check_dp`: the PLD evidence kinds).
* ``switch_eps`` / ``switch_delta`` (the switch point of an sgd/icea refined
  profile) and ``refined_sigma`` / ``refined_eps0`` / ``refined_delta0`` (the
  noise refinement of a σ-formula): the extremum is re-proved on cells from the
  evidence's bracket by :mod:`certdp.verifier.check_optimum`.

The verdict against the printed number: the interval a printed decimal numeral ("1/2" is
malformed, as in the audit) stands for is recomputed from ``reported`` and ``rounding``
(:func:`certdp.numerics.exact.printed_interval`); CONFIRMED needs [lo, hi]
inside it, REFUTED disjoint from it.

Document::

    {"format": "certdp-certificate", "version": 1,
     "claim": {"kind": "value", "quantity": "mu_gdp" | "delta" | "eps",
               "at": {"eps": "<decimal>", "delta": "<decimal>"},
               "lo": "<decimal>", "hi": "<decimal>",
               ["reported": "<printed decimal numeral>", "rounding": "nearest|up|down|truncate",
                "verdict": "CONFIRMED" | "REFUTED"], ["assumptions": [...]]},
     "mechanism": "<spec string>" | null,
     "evidence": {} | {"upper": {...}, "lower": {...}}, "precision": <bits>, "producer": "certdp X.Y.Z"}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import MAX_PRECISION, MIN_PRECISION, MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import lower_bound, to_ball, upper_bound
from certdp.verifier.decide import decide
from certdp.verifier.exact import exact, fraction_to_str, printed_interval
from certdp.verifier.gauss import delta_mu_ball

KINDS = ("value",)
#: Quantities whose extremum :mod:`certdp.verifier.check_optimum` re-proves (it loads
#: sympy for the σ-formula, so it is imported only for them).
SWITCH = ("switch_eps", "switch_delta")
REFINED = ("refined_sigma", "refined_eps0", "refined_delta0")
QUANTITIES = {"mu_gdp": {"eps", "delta"}, "delta": {"eps"}, "eps": {"delta"},
              **{q: set() for q in SWITCH}, **{q: {"eps", "delta"} for q in REFINED}}
ROUNDINGS = ("nearest", "up", "down", "truncate")
#: Evidence of a ``delta``/``eps`` value answered by an accountant: a ``dp`` evidence for the
#: upper end, a ``not_dp`` evidence for the lower end (:mod:`certdp.verifier.check_dp`).
PLD_ENDS = ("upper", "lower")


def _num(text: Any, where: str) -> Fraction:
    try:
        return exact(number_string(text, where), where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def _le(f: Callable[[], Any], g: Callable[[], Any], start: int) -> bool:
    """Certified f ≤ g (True) or f > g (False) for ball-valued thunks."""
    def test(_prec: int) -> bool | None:
        a, b = f(), g()
        if not (a.is_finite() and b.is_finite()):
            return None
        if upper_bound(a) <= lower_bound(b):
            return True
        if lower_bound(a) > upper_bound(b):
            return False
        return None

    return decide(test, start=start, what="a value certificate's comparison")


def validate(doc: Mapping[str, Any]) -> tuple[Mapping[str, Any], str, dict[str, Fraction], Fraction, Fraction]:
    """Structure of a ``value`` certificate (no arithmetic): (claim, quantity, at, lo, hi);
    MalformedCertificate on any problem.  Shared by both kernels."""
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    q = doc["claim"].get("quantity") if isinstance(doc["claim"], dict) else None
    if not isinstance(q, str) or q not in QUANTITIES:
        raise MalformedCertificate(f"claim.quantity must be one of {sorted(QUANTITIES)}, got {q!r}")
    claim = _fields(doc["claim"], "claim", {"kind", "quantity", "at", "lo", "hi"} | ({"formula"} if q in REFINED else set()),
                    {"reported", "rounding", "verdict", "assumptions"})
    if q not in SWITCH + REFINED:  # the optima's evidence: check_optimum; an accountant's: PLD bounds
        _fields(doc["evidence"], "evidence", set(), set(PLD_ENDS) if q in ("delta", "eps") else set())
    at_raw = _fields(claim["at"], "claim.at", QUANTITIES[q], set())
    # a noise refinement's target may be a closed form (exp(-2)): parsed by check_optimum
    at = {} if q in REFINED else {k: _num(v, f"claim.at.{k}") for k, v in at_raw.items()}
    lo, hi = _num(claim["lo"], "claim.lo"), _num(claim["hi"], "claim.hi")
    try:  # claim.reported: a printed decimal numeral, the audit's rule ("1/2" is malformed)
        printed_interval(claim.get("reported", "0"), "nearest")
    except InputError as err:
        raise MalformedCertificate(f"claim.reported: {err}") from None
    if not lo <= hi:
        raise MalformedCertificate("claim.lo must be <= claim.hi")
    if "eps" in at and at["eps"] < 0 or "delta" in at and not 0 < at["delta"] < 1:
        raise MalformedCertificate("claim.at needs eps >= 0 and 0 < delta < 1")
    return claim, q, at, lo, hi


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step) for a ``value`` certificate."""
    claim, q, at, lo, hi = validate(doc)
    p = doc["precision"]
    if lo < 0:
        return False, "the quantity is non-negative; claim.lo < 0 is not a proved lower end"  # harmless but odd
    start = max(p, 64)
    try:
        step = _check_enclosure(doc, q, at, lo, hi, start)
    except PrecisionError as err:
        return False, f"undecided: {err}"
    if step is not None:
        return False, step
    return check_verdict(claim, lo, hi)


def _check_enclosure(doc: Mapping[str, Any], q: str, at: dict[str, Fraction], lo: Fraction, hi: Fraction,
                     start: int) -> str | None:
    if q in SWITCH:
        from certdp.verifier.switch import check_switch  # noqa: PLC0415

        return check_switch(doc, q, lo, hi, start)
    if q in REFINED:
        from certdp.verifier.check_optimum import check_refined  # noqa: PLC0415  (sympy)

        return check_refined(doc, q, lo, hi, start)
    if q == "mu_gdp":
        if doc["mechanism"] is not None:
            raise MalformedCertificate("a mu_gdp value has no mechanism (mechanism must be null)")
        if "assumptions" in doc["claim"]:
            raise MalformedCertificate("a mu_gdp value rests on no hypotheses")
        eps, delta = at["eps"], at["delta"]
        if hi <= 0 or not _le(lambda: to_ball(delta), lambda: delta_mu_ball(to_ball(hi), to_ball(eps)), start):
            return f"δ_μ(ε) at μ = hi is below δ: μ_GDP exceeds hi = {doc['claim']['hi']}"
        if lo > 0 and not _le(lambda: delta_mu_ball(to_ball(lo), to_ball(eps)), lambda: to_ball(delta), start):
            return f"δ_μ(ε) at μ = lo exceeds δ: μ_GDP is below lo = {doc['claim']['lo']}"
        return None
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    if doc["evidence"]:
        return check_ends(doc, q, at, lo, hi, dp_check=None)
    mech = parse_mechanism(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return step
    if not getattr(mech, "has_closed_form", True):
        return f"{doc['mechanism']} has no closed-form profile this checker can evaluate"
    if lo > 0 and not mech.profile_kind.bounds_from_below:
        return f"a lower end needs an exact profile; {doc['mechanism']}'s is {mech.profile_kind.value}"

    def prof(x: Fraction) -> Callable[[], Any]:
        return lambda: mech.delta_ball(to_ball(x))

    if q == "delta":
        eps = at["eps"]
        if not _le(prof(eps), lambda: to_ball(hi), start):
            return f"δ_M({eps}) exceeds hi = {doc['claim']['hi']}"
        if lo > 0 and not _le(lambda: to_ball(lo), prof(eps), start):
            return f"δ_M({eps}) is below lo = {doc['claim']['lo']}"
        return None
    delta = at["delta"]
    if not _le(prof(hi), lambda: to_ball(delta), start):
        return f"δ_M(hi) > δ: the smallest ε exceeds hi = {doc['claim']['hi']}"
    if lo > 0 and _le(prof(lo), lambda: to_ball(delta), start):
        return f"δ_M(lo) <= δ: the smallest ε is at most lo = {doc['claim']['lo']}"
    return None


def end_documents(doc: Mapping[str, Any], q: str, at: dict[str, Fraction], lo: Fraction,
                  hi: Fraction) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The ``dp`` certificate of the upper end and the ``not_dp`` certificate of the lower
    end (None when lo = 0) of a ``delta``/``eps`` value with evidence ``upper``/``lower``:

    * ``delta`` at ε: δ_M(ε) <= hi (dp at (ε, hi)); δ_M(ε) > lo (not_dp at (ε, lo));
    * ``eps`` at δ: δ_M(hi) <= δ, so ε* <= hi; δ_M(lo) > δ, so ε* > lo (δ_M non-increasing)."""
    ev, claim = doc["evidence"], doc["claim"]
    if "upper" not in ev:
        raise MalformedCertificate("evidence.lower needs evidence.upper (the upper end's dp evidence)")
    if lo > 0 and "lower" not in ev:
        raise MalformedCertificate("claim.lo > 0 needs evidence.lower (the lower end's not_dp evidence)")
    if lo == 0 and "lower" in ev:
        raise MalformedCertificate("evidence.lower proves a positive claim.lo only")
    extra = {"assumptions": claim["assumptions"]} if "assumptions" in claim else {}

    def sub(kind: str, eps: Fraction, delta: Fraction, evidence: Any) -> dict[str, Any]:
        c = {"kind": kind, "eps": fraction_to_str(eps), "delta": fraction_to_str(delta), **extra}
        return {**doc, "claim": c, "evidence": evidence}

    if q == "delta":
        up = sub("dp", at["eps"], hi, ev["upper"])
        low = sub("not_dp", at["eps"], lo, ev["lower"]) if lo > 0 else None
    else:
        up = sub("dp", hi, at["delta"], ev["upper"])
        low = sub("not_dp", lo, at["delta"], ev["lower"]) if lo > 0 else None
    if q == "delta" and not hi < 1:
        raise MalformedCertificate("claim.hi of a delta must be below 1")
    return up, low


def check_ends(doc: Mapping[str, Any], q: str, at: dict[str, Fraction], lo: Fraction, hi: Fraction,
               dp_check: Callable[[Mapping[str, Any]], tuple[bool, str | None]] | None) -> str | None:
    """First failing step of an accountant's ``delta``/``eps`` value (evidence ``upper``/``lower``),
    each end checked as a dp / not_dp certificate by ``dp_check`` (the flint kernel's by default)."""
    if dp_check is None:
        from certdp.verifier.check_dp import check as dp_check  # noqa: PLC0415

    up, low = end_documents(doc, q, at, lo, hi)
    ok, step = dp_check(up)
    if not ok:
        return f"upper end: {step}"
    if low is not None:
        ok, step = dp_check(low)
        if not ok:
            return f"lower end: {step}"
    return None


def check_verdict(claim: Mapping[str, Any], lo: Fraction, hi: Fraction) -> tuple[bool, str | None]:
    """The audit verdict against the printed number: exact rational arithmetic only
    (kernel-free, shared by both kernels)."""
    if "verdict" not in claim:
        if "reported" in claim or "rounding" in claim:
            raise MalformedCertificate("claim.reported/rounding come with claim.verdict")
        return True, None
    if "reported" not in claim or "rounding" not in claim:
        raise MalformedCertificate("claim.verdict needs claim.reported and claim.rounding")
    if claim["rounding"] not in ROUNDINGS:
        raise MalformedCertificate(f"claim.rounding must be one of {ROUNDINGS}")
    a, b = printed_interval(claim["reported"], claim["rounding"])  # a numeral: checked by validate
    v = claim["verdict"]
    if v == "CONFIRMED":
        return (True, None) if a <= lo and hi <= b else (False, "the enclosure is not inside the printed interval")
    if v == "REFUTED":
        return (True, None) if hi < a or lo > b else (False, "the enclosure meets the printed interval")
    raise MalformedCertificate("claim.verdict must be CONFIRMED or REFUTED")
