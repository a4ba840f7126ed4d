"""Certificates of kind ``gdp_except``: "μ-GDP except η" for DP-SGD, re-derived
from the PLD evidence (the ``certdp dpsgd --mu`` report, Gomez et al. 2025).

Claim: δ_M(ε) <= δ_μ(ε) + η for every ε >= 0 and both neighbouring relations.

The checker rebuilds the composed upper PLD ν of each relation from the stated
discretisation (:func:`certdp.verifier.check_pld.upper_plds`, the same
re-derivation as for ``dp``), with masses m_k at y_k = (offset + k)h and m_∞,
and with M_k = ν((y_k, ∞]), S_k = Σ_{j>k} m_j e^{−y_j}:

* on ε ∈ [y_k, y_{k+1}) the bound is F_ε(ν) = M_k − e^ε S_k >= δ(ε);
* δ_μ(ε) = sup_α 1 − f_μ(α) − e^ε α >= 1 − f_μ(S_k) − e^ε S_k, and
  f_μ(S_k) <= 1 − M_k + η iff μ >= Φ⁻¹(M_k − η) − Φ⁻¹(S_k) (Gomez et al.
  2025 eq. 21 with the residual inside); so that inequality on every segment
  meeting [0, y_c) proves δ <= δ_μ + η there;
* c is the first index (from the segment holding ε = 0) with M_c <= η: for
  ε >= y_c, δ(ε) <= F_ε(ν) <= M_c <= η.

M_k are exact integers (units of 2^−bits), so c is found exactly; the segment
inequalities are decided in ball arithmetic by bisection over blocks of
segments (on [k1, k2] the value is <= Φ⁻¹(M_{k1} − η) − Φ⁻¹(S_{k2}): both decrease).
An undecided comparison is retried at twice the precision, then fails.

Document::

    {"claim": {"kind": "gdp_except", "mu": "<decimal>", "residual": "<decimal>"},
     "mechanism": "compose(subsample(gaussian(sigma=S), rate=Q), k=T)",
     "evidence": {"pld": {"h": ..., "bits": ..., "tau": ..., "z": ...}}, ...}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.check_pld import parse_evidence, subsampled_gaussians, upper_plds
from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import MAX_PRECISION, MIN_PRECISION, MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, check_budget
from certdp.verifier.ball import to_ball, working_precision
from certdp.verifier.exact import exact
from certdp.verifier.gauss import Phi_inv_ball

KINDS = ("gdp_except",)


def _num(doc: Mapping[str, Any], key: str) -> Fraction:
    try:
        return exact(number_string(doc["claim"][key], f"claim.{key}"), f"claim.{key}")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def validate(doc: Mapping[str, Any]) -> tuple[Any, Fraction, Fraction]:
    """Structure (no arithmetic): (mechanism, μ, η); MalformedCertificate on any problem."""
    p = doc["precision"]
    if not MIN_PRECISION <= p <= MAX_PRECISION:
        raise MalformedCertificate(f"precision must be an integer in [{MIN_PRECISION}, {MAX_PRECISION}], got {p!r}")
    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("mechanism must be a spec string")
    _fields(doc["claim"], "claim", {"kind", "mu", "residual"}, {"assumptions"})
    ev = _fields(doc["evidence"], "evidence", {"pld"}, set())
    mu, eta = _num(doc, "mu"), _num(doc, "residual")
    if not mu > 0 or not 0 <= eta < 1:
        raise MalformedCertificate("claim needs mu > 0 and 0 <= residual < 1")
    mech = parse_mechanism(doc)
    parse_evidence(ev["pld"])
    subsampled_gaussians(mech)
    return mech, mu, eta


def _phi_inv(p: arb) -> arb:
    """Φ⁻¹(p), p in (0, 1), accurate on both sides of 1/2."""
    return Phi_inv_ball(p) if p < 0.5 else -Phi_inv_ball(1 - p)


def _relation(pld: tuple[int, tuple[int, ...], int], h: Fraction, bits: int, mu: Fraction,
              eta: Fraction) -> str | None | bool:
    """True if δ <= δ_μ + η is proved for this relation, a failing step (str), or
    None when a ball comparison is undecided at the current precision."""
    offset, cs, inf = pld
    n = len(cs)
    if n == 0:
        return True if Fraction(inf, 1 << bits) <= eta else "residual: the mass at +infinity exceeds the residual"
    if offset > 0:
        return "the re-derived PLD's support lies above 0 (the segment at eps = 0 is not covered)"
    M = [0] * n  # M[k] = Σ_{j>k} c_j + c_∞ (exact units)
    acc = inf
    for k in range(n - 1, -1, -1):
        M[k] = acc
        acc += cs[k]
    k0 = min(n - 1, -offset)  # the segment holding ε = 0
    eta_units = eta * (1 << bits)
    c = next((k for k in range(k0, n) if M[k] <= eta_units), None)
    if c is None:
        return f"residual: the re-derived upper PLD's mass above its last point exceeds {eta}"
    if c == k0:
        return True
    scale = arb(2) ** (-bits)
    S: dict[int, arb] = {}  # S[k] = 2^−bits Σ_{j>k} c_j e^{−y_j}, for k0 <= k < c
    e_up = to_ball(h).exp()
    e_j = (-(to_ball(offset + n - 1) * to_ball(h))).exp()  # e^{−y_{n−1}}
    run = arb(0)
    for j in range(n - 1, k0, -1):
        if not j % 4096:
            check_budget("checking the mu-GDP-except-eta segments", n - j, n)
        run += cs[j] * e_j
        if j - 1 < c:
            S[j - 1] = run * scale
        e_j *= e_up
    stack = [(k0, c - 1)]
    while stack:
        k1, k2 = stack.pop()
        m, s = to_ball(M[k1] - eta_units) * scale, S[k2]  # M − η > 0 exactly (k1 < c)
        if m < 1 and s > 0:
            bound = _phi_inv(m) - _phi_inv(s)
            if bound <= to_ball(mu):
                continue
            if k1 == k2:
                if bound > to_ball(mu):
                    return (f"segment {k1} (eps in [{(offset + k1) * h}, {(offset + k1 + 1) * h}]): "
                            f"Phi^-1(M - eta) - Phi^-1(S) > mu = {mu} (Gomez et al. 2025 eq. 21)")
                return None
        elif k1 == k2:
            if s <= 0 or m >= 1:
                return f"segment {k1}: M = {m}, S = {s} is outside (0, 1)^2; no finite mu covers it"
            return None
        mid = (k1 + k2) // 2
        stack += [(k1, mid), (mid + 1, k2)]
    return True


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step) for a ``gdp_except`` certificate."""
    mech, mu, eta = validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    ev = doc["evidence"]["pld"]
    h, bits, _, _ = parse_evidence(ev)
    for prec in (doc["precision"], 2 * doc["precision"]):
        try:
            plds = upper_plds(mech, ev, prec)
        except InputError as err:
            return False, f"re-deriving the PLD failed: {err}"
        undecided = False
        with working_precision(prec):
            for name, pld in zip(("remove", "add"), plds):
                out = _relation(pld, h, bits, mu, eta)
                if isinstance(out, str):
                    return False, f"{name} relation: {out}"
                undecided = undecided or out is None
        if not undecided:
            return True, None
    return False, "undecided: a segment inequality could not be decided at twice the stated precision"
