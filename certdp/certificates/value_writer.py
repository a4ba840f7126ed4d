"""``value`` certificates: of closed-form quantities (:func:`value_certificate`), of a
switch point or a noise refinement (:func:`optimum_certificate`), and of ε or δ answered by
an accountant (DP-SGD, compositions; :func:`accountant_value_certificate`).

For an accountant's answer:
The checker has no closed form for these profiles, so the certificate carries, for
each end of the claimed enclosure, the PLD evidence of a ``dp`` / ``not_dp``
certificate (:func:`certdp.verifier.check_value.end_documents`): the upper end is
the writer's certified ``dp`` claim at the answer's upper end (rounded up), the
lower end a ``not_dp`` claim at the answer's lower end rounded down, kept only when
the verdict needs it.  The claimed [lo, hi] is what the checker re-derives, which
may be a little wider than the accountant's enclosure; the writer refuses (InputError,
with the reason) when that wider interval no longer decides the audit verdict.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.numerics.enclosure import Enclosure, decimal_string
from certdp.numerics.ball import dyadic_to_fraction
from certdp.numerics.exact import exact, fraction_to_str, printed_interval
from certdp.certificates.writer import envelope, refuse_uncheckable


def _lower_end(mech: Any, quantity: str, at: dict[str, Fraction], enc: Enclosure, need: Fraction, strict: bool,
               assumptions: tuple[str, ...]) -> tuple[Fraction, dict[str, Any]]:
    """(lo, not_dp evidence) with lo >= need (lo > need when ``strict``): the answer's lower end
    rounded down to 12, 10, 8, 6 digits, then points between ``need`` and it (the checker's
    lower PLD may be a little below the accountant's enclosure); the first the checker proves."""
    from certdp.certificates.writer import lower_dp_certificate  # noqa: PLC0415

    low = exact(decimal_string(enc.lo, 15, "down"), "lo")
    cands = [exact(decimal_string(enc.lo, d, "down"), "lo") for d in (12, 10, 8, 6)]
    cands += [need + (low - need) * Fraction(1, 2 ** k) for k in (1, 3, 6)]
    if not strict:
        cands.append(need)
    why = "no lower end above the printed interval's end"
    for lo in cands:
        if lo <= 0 or lo < need or (strict and lo == need):
            continue
        try:
            if quantity == "eps":
                doc = lower_dp_certificate(mech, lo, at["delta"], assumptions)
            else:
                doc = lower_dp_certificate(mech, at["eps"], lo, assumptions)
        except InputError as err:
            why = str(err)
            continue
        return lo, doc["evidence"]
    raise InputError(f"the checker could not re-derive the lower end of {quantity}: {why}")


def accountant_value_certificate(mech: Any, quantity: str, at: dict[str, Fraction], enc: Enclosure, *,
                                 reported: str, rounding: str, verdict: str,
                                 assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """``value`` certificate (evidence ``upper``/``lower``) of an accountant's ε at δ or δ at ε,
    checked by the independent checker before it is returned; InputError otherwise."""
    from certdp.certificates.writer import envelope, number, upper_dp_certificate  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415

    if quantity not in ("eps", "delta"):
        raise ValueError(quantity)
    a, b = printed_interval(reported, rounding)
    if quantity == "eps":
        up = upper_dp_certificate(mech, delta=at["delta"], eps_hi=enc, assumptions=assumptions)
        hi = exact(up["claim"]["eps"], "eps")
    else:
        up = upper_dp_certificate(mech, eps=at["eps"], delta_hi=enc, assumptions=assumptions)
        hi = exact(up["claim"]["delta"], "delta")
    evidence: dict[str, Any] = {"upper": up["evidence"]}
    lo = Fraction(0)
    needs_lower = (verdict == "CONFIRMED" and a > 0) or (verdict == "REFUTED" and not hi < a)
    if needs_lower:
        strict = verdict == "REFUTED"  # above the printed interval: lo > b; inside it: lo >= a
        lo, evidence["lower"] = _lower_end(mech, quantity, at, enc, b if strict else a, strict, assumptions)
    decided = (a <= lo and hi <= b) if verdict == "CONFIRMED" else (hi < a or lo > b)
    if not decided:
        raise InputError(f"the checker's re-derived bounds [{fraction_to_str(lo)}, {fraction_to_str(hi)}] of "
                         f"{quantity} do not decide the verdict {verdict}; no certificate written")
    claim: dict[str, Any] = {"kind": "value", "quantity": quantity,
                             "at": {k: fraction_to_str(v) for k, v in at.items()},
                             "lo": number(lo), "hi": up["claim"][quantity],
                             "reported": reported, "rounding": rounding, "verdict": verdict}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    doc = envelope(claim, mech.spec(), evidence, precision=128)
    result = check(doc)
    if not result.valid:
        raise InputError(f"the independent checker rejects the value certificate ({result.failed_step}); "
                         "no certificate written")
    return doc


def value_certificate(quantity: str, spec: str | None, at: dict[str, Any], enclosure: "Enclosure", *,
                      reported: str | None = None, rounding: str | None = None, verdict: str | None = None,
                      assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate of kind ``value`` (checked by :mod:`certdp.verifier.check_value`):
    the quantity lies in the enclosure (ends printed outward), and, with
    ``reported``/``rounding``/``verdict``, the audit verdict against the printed number."""
    if spec is not None:
        refuse_uncheckable(spec)
    claim: dict[str, Any] = {"kind": "value", "quantity": quantity,
                             "at": {k: fraction_to_str(exact(v, k)) for k, v in at.items()},
                             "lo": enclosure.lo_str(), "hi": enclosure.hi_str()}
    if verdict is not None:
        claim.update(reported=reported, rounding=rounding, verdict=verdict)
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return envelope(claim, spec, {}, precision=128)


def optimum_certificate(quantity: str, enclosure: "Enclosure", bracket: "Enclosure", *, spec: str | None = None,
                        tail: int | None = None, formula: str | None = None, at: dict[str, str] | None = None,
                        reported: str | None = None, rounding: str | None = None, verdict: str | None = None,
                        assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """``value`` certificate of a switch point (``spec``, ``tail``) or a noise refinement
    (``formula``, ``at`` as safe closed-form strings): the checker re-proves that every
    extremiser lies in ``bracket`` (:mod:`certdp.verifier.check_optimum`)."""
    if spec is not None:
        refuse_uncheckable(spec, switch=True)
    claim: dict[str, Any] = {"kind": "value", "quantity": quantity, "at": dict(at or {}),
                             "lo": enclosure.lo_str(), "hi": enclosure.hi_str()}
    if formula is not None:
        claim["formula"] = formula
    if verdict is not None:
        claim.update(reported=reported, rounding=rounding, verdict=verdict)
    if assumptions:
        claim["assumptions"] = list(assumptions)
    evidence: dict[str, Any] = {"bracket": [fraction_to_str(dyadic_to_fraction(bracket.lo)),
                                            fraction_to_str(dyadic_to_fraction(bracket.hi))]}
    if tail is not None:
        evidence["tail"] = str(tail)
    return envelope(claim, spec, evidence, precision=128)
