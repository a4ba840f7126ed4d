"""Turn each claim into a certified verdict.

* ``dp``/``not_dp``: certified δ_M(ε) against the claimed δ.
* ``gdp``: exact μ for Gaussian mechanisms, else the certified GDPT
  measurement (μ⁺ proves, a witness μ⁻ refutes; the residual/tail is part of
  the verdict).
* ``value``: the certified enclosure of the quantity against the interval
  the printed digits stand for; plus whether the printed number is a *valid
  guarantee* (ε or δ or μ not below the truth; for ``mu_gdp``: a Gaussian
  mechanism with the printed μ satisfies (ε, δ)-DP, i.e. printed <= truth).
* ``prdp``/``not_prdp`` need a finite mechanism table: UNSUPPORTED here.
* a claim with ``needs`` (a published mechanism certdp cannot name yet, described in
  its ``event``): INCONCLUSIVE, the detail and ``Verdict.needs`` naming the capability.
* a claim on a shuffled-batches DP-SGD run (``Claim.shuffled``): :mod:`certdp.audit.shuffled`.

CONFIRMED / REFUTED only on certified comparisons; INCONCLUSIVE when the
enclosure straddles; UNSUPPORTED when no certified analysis applies.

What is known travels with the verdict: a mechanism whose profile is only an
upper bound (``clip_reify``, a user ``profile("...")``, a general
``tradeoff``) yields enclosures with lower end 0, so it can confirm a
guarantee but never refute one (a ``dp`` or ``gdp`` claim is never REFUTED);
REFUTED then comes from the upper end alone: a ``not_dp`` claim it proves false,
a ``value`` claim whose printed interval lies above it (still a valid
guarantee); a verdict resting on hypotheses certdp could
not prove lists them in ``assumptions`` (text: "assuming (unproved): ..."),
and its ``valid_guarantee`` is ``None`` (not established).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.audit.claims import Claim
from certdp.audit.outcome import CONFIRMED, INCONCLUSIVE, REFUTED, UNSUPPORTED, Verdict  # noqa: F401  (re-exported)
from certdp.errors import BudgetExceeded, CertdpError, InputError
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import fraction_to_str, printed_interval, printed_numeral


def _hi_le(enc: Enclosure, bound: Fraction) -> bool:
    b = Enclosure.exact(bound)
    return bool(enc.hi <= b.lo)


def _compare(enc: Enclosure, bound: Fraction) -> int:
    """-1 if enc <= bound certainly, +1 if enc > bound certainly, 0 undecided."""
    if enc.certainly_less_than(bound) or _hi_le(enc, bound):
        return -1
    if enc.certainly_greater_than(bound):
        return 1
    return 0


def _mech(claim: Claim):
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    return parse_spec(claim.mechanism)


def _dp(claim: Claim, want_certificate: bool = False) -> Verdict:
    from certdp.analyses.dispatch import delta_of  # noqa: PLC0415

    mech = _mech(claim)
    ans = delta_of(mech, claim.eps)
    c = _compare(ans.enclosure, claim.delta)
    holds = None if c == 0 else c < 0
    eps_s, delta_s = fraction_to_str(claim.eps), fraction_to_str(claim.delta)
    if holds is None and not ans.kind.bounds_from_below:
        detail = (f"δ({eps_s}) ≤ {ans.enclosure.hi_str(8)} is all that is proved ({ans.kind.value}), "
                  f"which does not decide δ = {delta_s}")
    elif holds is None:
        detail = f"δ({eps_s}) ∈ {ans.enclosure} straddles δ = {delta_s}"
    elif holds:
        detail = f"δ({eps_s}) ≤ {ans.enclosure.hi_str(8)} ≤ {delta_s}"
    else:
        detail = f"witness: at ε = {eps_s}, δ ≥ {ans.enclosure.lo_str(8)} > {delta_s}"
    cert, note = None, None
    closed = want_certificate and _closed_for_checker(mech)
    if want_certificate and holds and not closed:
        from certdp.certificates.writer import upper_dp_certificate  # noqa: PLC0415

        try:  # accountant answers: the PLD evidence proves the confirmed claim's upper bound
            cert = upper_dp_certificate(mech, eps=claim.eps, delta_hi=Enclosure.exact(claim.delta),
                                        assumptions=ans.assumptions)
        except (InputError, BudgetExceeded) as err:  # the verdict stands; only its certificate is missing
            note = str(err)
    if want_certificate and holds is False and not closed:
        from certdp.certificates.writer import lower_dp_certificate  # noqa: PLC0415

        try:  # DP-SGD: dominated PLDs prove delta(eps) > the claimed delta
            cert = lower_dp_certificate(mech, claim.eps, claim.delta, assumptions=ans.assumptions)
        except (InputError, BudgetExceeded) as err:  # the verdict stands; only its certificate is missing
            note = str(err)
    if want_certificate and holds is not None and closed:
        from certdp.certificates.writer import dp_certificate as certificate  # noqa: PLC0415

        try:  # certify what was decided: the claim if confirmed, its negation if refuted
            cert = certificate("dp" if holds else "not_dp", mech.spec(), claim.eps, claim.delta, ans.enclosure,
                               assumptions=ans.assumptions)
        except InputError as err:  # a spec the checker does not accept (tradeoff, subset): no certificate
            note = str(err)
    note = note if cert is None and holds is not None and want_certificate else None
    if claim.kind == "dp":
        verdict = INCONCLUSIVE if holds is None else (CONFIRMED if holds else REFUTED)
        return Verdict(claim.id, verdict, ans.enclosure, holds, detail, ans.method, certificate=cert,
                       assumptions=ans.assumptions, no_certificate=note)
    # a negative claim promises nothing, so "valid guarantee" does not apply
    verdict = INCONCLUSIVE if holds is None else (REFUTED if holds else CONFIRMED)
    return Verdict(claim.id, verdict, ans.enclosure, None, detail, ans.method, certificate=cert,
                   assumptions=ans.assumptions, no_certificate=note)


def _gdp(claim: Claim, want_certificate: bool) -> Verdict:
    """μ-GDP (except the claim's residual, if it states one).

    REFUTED when the certified GDPT exceeds μ at a witness point, or when the
    claim has no residual and the tail forces the strict parameter above μ
    (Liu et al. 2022 Thm 4.4); CONFIRMED when μ⁺ <= μ and the certified residual is
    0 or within the claimed one.
    """
    from certdp.analyses.dispatch import gdp_of  # noqa: PLC0415

    ans = gdp_of(_mech(claim), residual=claim.residual)
    enc = ans.mu
    mu_s = _s(claim.mu)
    def verdict(v: str, valid: bool | None, detail: str) -> Verdict:
        cert, note = _gdp_certificate(claim, ans, v) if want_certificate else (None, None)
        return Verdict(claim.id, v, enc, valid, detail, ans.method, certificate=cert, assumptions=ans.assumptions,
                       no_certificate=note)

    strict = ans.strict_mu_at_least
    if claim.residual is None and strict is not None and strict.certainly_greater_than(claim.mu):
        return verdict(REFUTED, False, f"not {mu_s}-GDP: the tail forces the strict GDP parameter ≥ "
                       f"{strict.lo_str(8)} (Liu et al. 2022 Thm 4.4); certified: μ ∈ {enc} except residual "
                       f"{'0' if ans.residual is None else ans.residual.hi_str(4)}")
    # Does μ.lo refute this claim?  Always for a strict claim (no residual).
    # With a residual r: only the DP-SGD report's lower end, computed for
    # residuals up to max(η, r) (certdp.analyses.fdp.gdp_report); a measurement
    # witness or an exact μ says nothing about claims that allow a residual.
    if claim.residual is None:
        lo_valid = True
    elif ans.measurement is None and ans.residual is not None:
        lo_valid = True  # gdp_of(residual=claim.residual): μ.lo holds up to max(η, claim residual)
    else:
        lo_valid = False
    if enc.certainly_greater_than(claim.mu) and lo_valid:
        return verdict(REFUTED, False, f"the certified GDP parameter exceeds {mu_s} (μ ≥ {enc.lo_str(8)}"
                       + ("" if claim.residual is None else f", even allowing the claimed residual {_s(claim.residual)}")
                       + ")")
    if not _hi_le(enc, claim.mu):
        if not ans.kind.bounds_from_below:
            return verdict(INCONCLUSIVE, None, f"μ ≤ {enc.hi_str(8)} is all that is proved ({ans.kind.value}), "
                           f"which does not decide {mu_s}")
        return verdict(INCONCLUSIVE, None, f"μ ∈ {enc} straddles {mu_s}")
    if ans.residual is None:
        return verdict(CONFIRMED, True, f"μ ≤ {enc.hi_str(8)} ≤ {mu_s}")
    eta_s = _s(ans.residual_exact) if ans.residual_exact is not None else ans.residual.hi_str(4)
    if claim.residual is not None and ans.residual_at_most(claim.residual):
        return verdict(CONFIRMED, True, f"μ ≤ {enc.hi_str(8)} ≤ {mu_s} except residual ≤ {eta_s}")
    return verdict(INCONCLUSIVE, None, f"μ ≤ {enc.hi_str(8)} ≤ {mu_s} only except a residual ≤ "
                   f"{eta_s}, which the claim does not allow")


def _gdp_certificate(claim: Claim, ans: Any, v: str) -> tuple[dict | None, str | None]:
    """(certificate, None) for a decided gdp claim, or (None, why not)."""
    from certdp.certificates import writer  # noqa: PLC0415

    if v not in (CONFIRMED, REFUTED):
        return None, None
    mech = _mech(claim)
    try:
        if v == CONFIRMED and (ans.exact or ans.measurement is not None):
            return writer.gdp_certificate(ans), None
        if writer.is_dpsgd(mech.spec()):
            if v == CONFIRMED:
                if claim.residual is None:
                    return None, "a strict μ-GDP claim on DP-SGD is never confirmed (the tail, Liu et al. 2022 Thm 4.4)"
                return writer.gdp_except_claim_certificate(mech, claim.mu, claim.residual), None
            return writer.not_gdp_except_certificate(mech, claim.mu, claim.residual or 0), None
        if v == REFUTED and claim.residual is None and ans.kind.bounds_from_below and ans.measurement is not None:
            m = ans.measurement
            if m.witness_eps is not None and m.mu_lower > claim.mu:  # the measurement's own witness refutes it
                return writer.not_gdp_document(m.spec, claim.mu, m.witness_eps, tuple(m.assumptions)), None
            return writer.not_gdp_certificate(mech, claim.mu), None
    except (InputError, BudgetExceeded) as err:  # the verdict stands; only its certificate is missing
        return None, str(err)
    return None, ("the checker cannot re-derive this verdict yet (a refuted μ-GDP-except-η claim on a closed-form "
                  "mechanism, or an accountant-based GDP report other than DP-SGD)")


def _value(claim: Claim, want_certificate: bool = False) -> Verdict:
    q = claim.quantity
    assumptions: tuple[str, ...] = ()
    if q == "mu_gdp":
        from certdp.expr.brackets import monotone  # noqa: PLC0415
        from certdp.numerics.gdp import mu_from_eps_delta  # noqa: PLC0415

        # μ_GDP(ε, δ) increases in ε and in δ: a closed-form ε or δ is answered by the hull over its bracket
        enc = monotone(mu_from_eps_delta, (claim.at["eps"], "eps", +1), (claim.at["delta"], "delta", +1))
        method = "μ_GDP(ε, δ) root of δ_μ(ε) = δ"
    elif q.startswith("switch_"):
        mech = _mech(claim)
        if not hasattr(mech, "switch_point"):
            raise InputError(f"claim {claim.id!r}: {claim.mechanism} is not a trade-off mechanism (no switch point)")
        sp = mech.switch_point()
        enc, bracket, tail = (sp.eps if q == "switch_eps" else sp.delta), sp.eps, sp.tail
        assumptions = tuple(mech.assumptions)
        method = "certified switch point of the refined profile (Liu et al. 2022 App. B)"
    elif q.startswith("refined_"):
        from certdp.analyses.noise_refinement import refine_noise  # noqa: PLC0415

        res = refine_noise(claim.formula, claim.at["eps"], claim.at["delta"])
        enc = {"refined_sigma": res.sigma, "refined_eps0": res.eps0, "refined_delta0": res.delta0}[q]
        bracket, tail = res.eps0, None
        assumptions = res.assumptions
        method = "certified noise refinement (Liu et al. 2022 App. C)"
    else:
        from certdp.analyses import dispatch as routing  # noqa: PLC0415

        mech = _mech(claim)
        if q == "eps":
            ans = routing.eps_of(mech, claim.at["delta"])
        elif q == "delta":
            ans = routing.delta_of(mech, claim.at["eps"])
        else:
            g = routing.gdp_of(mech)
            ans = routing.Answer(g.mu, g.method, g.kind, g.assumptions)
        enc, method, assumptions = ans.enclosure, ans.method, ans.assumptions
    lo, hi = printed_interval(claim.reported, claim.rounding)
    reported, _ = printed_numeral(claim.reported)
    inside = bool(enc.lo >= Enclosure.exact(lo).hi and enc.hi <= Enclosure.exact(hi).lo)
    disjoint = enc.certainly_less_than(lo) or enc.certainly_greater_than(hi)
    verdict = CONFIRMED if inside else (REFUTED if disjoint else INCONCLUSIVE)
    # valid guarantee: printed >= truth (eps, delta, mu), printed <= truth (mu_gdp)
    if q.startswith(("switch_", "refined_")):
        valid: bool | None = None  # a location or a noise level, not a privacy bound
    elif q == "mu_gdp":
        if enc.lo >= Enclosure.exact(reported).hi:
            valid = True
        else:
            valid = False if enc.certainly_less_than(reported) else None
    else:
        c = _compare(enc, reported)
        valid = None if c == 0 else c < 0
    detail = f"{q} ∈ {enc}; printed {claim.reported} ({claim.rounding}) stands for [{_s(lo)}, {_s(hi)}]"
    cert, note = None, None
    if want_certificate and verdict in (CONFIRMED, REFUTED):
        try:  # only what the checker accepts: the writer refuses the rest with the reason
            if q in CERTIFIABLE_VALUES:
                cert = _value_certificate(claim, enc, verdict, assumptions)
            elif q == "mu":
                raise InputError("the checker has no value certificate for quantity 'mu' yet "
                                 "(a kind = \"gdp\" claim with mu = the printed number is certified)")
            else:
                cert = _optimum_certificate(claim, enc, bracket, tail, verdict, assumptions)
        except (InputError, BudgetExceeded) as err:  # the verdict stands; only its certificate is missing
            note = str(err)
    return Verdict(claim.id, verdict, enc, valid, detail, method, printed=claim.reported, assumptions=assumptions,
                   certificate=cert, no_certificate=note)


#: Value quantities the independent checker re-derives (certdp.verifier.check_value).
CERTIFIABLE_VALUES = ("mu_gdp", "delta", "eps")


def _optimum_certificate(claim: Claim, enc: Enclosure, bracket: Enclosure, tail: int | None, verdict: str,
                         assumptions: tuple[str, ...]) -> dict:
    """The ``value`` certificate of a decided switch point or noise refinement: the
    checker re-proves the optimum on cells from the bracket (check_optimum)."""
    from certdp.certificates.value_writer import optimum_certificate  # noqa: PLC0415
    from certdp.numerics.exact import fraction_to_str  # noqa: PLC0415

    common = dict(reported=claim.reported, rounding=claim.rounding, verdict=verdict, assumptions=assumptions)
    if claim.quantity.startswith("switch_"):
        return optimum_certificate(claim.quantity, enc, bracket, spec=_mech(claim).spec(), tail=tail, **common)
    at = {k: fraction_to_str(v) if isinstance(v, Fraction) else str(v) for k, v in claim.at.items()}
    return optimum_certificate(claim.quantity, enc, bracket, formula=claim.formula, at=at, **common)


def _value_certificate(claim: Claim, enc: Enclosure, verdict: str, assumptions: tuple[str, ...]) -> dict:
    """The ``value`` certificate of a decided value claim, when the checker can
    re-derive it (mu_gdp always; delta/eps for closed-form profiles the checker's
    table accepts, and from PLD evidence at both ends for accountant answers);
    InputError with the reason otherwise."""
    from certdp.certificates.value_writer import value_certificate  # noqa: PLC0415

    closed = sorted(k for k, v in claim.at.items() if not isinstance(v, Fraction))
    if closed:
        raise InputError(f"the checker takes a rational {', '.join(closed)} for quantity {claim.quantity!r}; "
                         f"at.{closed[0]} = {claim.at[closed[0]]} is a closed form")
    spec = None
    if claim.quantity != "mu_gdp":
        mech = _mech(claim)
        spec = mech.spec()
    at = {k: claim.at[k] for k in ("eps", "delta") if k in claim.at and
          (claim.quantity == "mu_gdp" or (k == "eps") == (claim.quantity == "delta"))}
    if claim.quantity != "mu_gdp" and not _closed_for_checker(mech):
        from certdp.certificates.value_writer import accountant_value_certificate  # noqa: PLC0415

        # an accountant's answer: the PLD evidence of a dp / not_dp certificate at each end
        return accountant_value_certificate(mech, claim.quantity, at, enc, reported=claim.reported,
                                            rounding=claim.rounding, verdict=verdict, assumptions=assumptions)
    return value_certificate(claim.quantity, spec, at, enc, reported=claim.reported, rounding=claim.rounding,
                             verdict=verdict, assumptions=assumptions)


def _closed_for_checker(mech: Any) -> bool:
    """A closed-form profile for the catalog, or for the checker's own table
    (which also evaluates k-fold pure-DP compositions exactly)."""
    from certdp.certificates.writer import checker_has_closed_form  # noqa: PLC0415

    return getattr(mech, "has_closed_form", True) or checker_has_closed_form(mech.spec())


def _s(q: Fraction) -> str:
    """Exact decimal when q has one (denominator 2^a 5^b), else the fraction."""
    from certdp.mechanisms.spec import format_number  # noqa: PLC0415

    return format_number(q)


def quantity_label(claim: Claim) -> str:
    """What a verdict's enclosure encloses, in the audit table's words."""
    if claim.kind in ("dp", "not_dp"):
        from certdp.mechanisms.format import format_number  # noqa: PLC0415

        return f"δ(ε={format_number(claim.eps)})"
    if claim.kind == "gdp":
        return "μ (GDP)"
    return claim.quantity or ""


def audit_claim(claim: Claim, want_certificate: bool = False) -> Verdict:
    """Certified verdict for one claim (never raises on analysis limits:
    those become INCONCLUSIVE/UNSUPPORTED with the reason); ``quantity`` names what
    the enclosure encloses."""
    import dataclasses  # noqa: PLC0415

    return dataclasses.replace(_audit_claim(claim, want_certificate), quantity=quantity_label(claim))


def _audit_claim(claim: Claim, want_certificate: bool) -> Verdict:
    if claim.needs:  # a mechanism certdp cannot name yet: kept in the corpus, never guessed
        return Verdict(claim.id, INCONCLUSIVE, None, None,
                       f"not auditable yet: needs {claim.needs} (published mechanism: {claim.event['type']})",
                       printed=claim.reported, needs=claim.needs)
    try:
        if claim.shuffled is not None:  # shuffled batches: no spec, the shuffled bounds decide
            from certdp.audit.shuffled import audit_shuffled  # noqa: PLC0415

            return audit_shuffled(claim, want_certificate, dp_route=_dp)
        if claim.kind in ("dp", "not_dp"):
            return _dp(claim, want_certificate)
        if claim.kind == "gdp":
            return _gdp(claim, want_certificate)
        if claim.kind == "value":
            return _value(claim, want_certificate)
        return Verdict(claim.id, UNSUPPORTED, None, None,
                       f"kind {claim.kind!r} needs a finite mechanism table; use `certdp prdp check`")
    except CertdpError as err:
        kind = UNSUPPORTED if "not supported" in str(err) or "no closed form" in str(err) or "no dominating pair" in str(err) else INCONCLUSIVE
        return Verdict(claim.id, kind, None, None, str(err))
