"""Writing ``certdp-certificate`` documents (format: docs/certificates.md).

Numbers are exact decimal strings: endpoints of claimed enclosures are
rounded *outward* (μ up, μ⁻ down, residual up), which only weakens the
claim; breakpoints and witness points are written exactly.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from certdp.verifier.schema import FORMAT, VERSION, MalformedCertificate
from certdp.mechanisms.format import format_number
from certdp.verifier.check_exact import ARGUMENT as EXACT_ARGUMENT
from certdp.errors import InputError, PrecisionError, check_budget
from certdp.meta import producer  # re-exported: the producer string
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure, decimal_string
from certdp.numerics.exact import exact, fraction_to_str

if TYPE_CHECKING:  # pragma: no cover
    from certdp.analyses.dispatch import GDPAnswer
    from certdp.analyses.gdpt import Measurement
    from flint import arb

#: Starting precision (bits) the checker is told to use.
DEFAULT_PRECISION = 96
#: Significant digits of claimed numbers.
CLAIM_DIGITS = 25


def number(q: Fraction) -> str:
    """Exact short string of a rational (decimal when it terminates)."""
    return format_number(q)


def refuse_uncheckable(spec: str, switch: bool = False) -> None:
    """InputError (why) unless the checker's own table (verify.mechs) accepts ``spec``; a switch point: sgd/icea."""
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import NaiveFamily, parse  # noqa: PLC0415
    from certdp.mechanisms.spec import tokenize  # noqa: PLC0415

    bad = sorted({t.text for t in tokenize(spec) if t.kind == "name"} & set(NOT_CHECKABLE))
    if "tradeoff" in bad:
        raise InputError("certificates for tradeoff(...) are not supported: its naive profile needs symbolic "
                         "solving of the σ-formula, which the independent checker does not do")
    if bad and not switch:
        raise InputError(f"certificates for {', '.join(bad)}(...) are not supported for this claim: the checker "
                         "certifies sgd(...) and icea(...) alone, in a GDP measurement (their refined profile, "
                         "from the switch point it re-proves) or a switch-point value")
    try:
        mech: Any = parse(spec, exclude=() if switch else NOT_CHECKABLE)
    except InputError as err:
        mech = err
    if switch and not isinstance(mech, NaiveFamily):
        raise InputError(f"certificates for the switch point of {spec} are not supported yet: the "
                         "independent checker re-proves switch points of sgd(...) and icea(...) only")
    if isinstance(mech, InputError):
        raise InputError(f"certificates for {spec} are not supported yet: the checker's table refuses it ({mech})")


def checker_has_closed_form(spec: str) -> bool:
    """Does the independent checker evaluate ``spec``'s profile in closed form?  (Its
    table also knows k-fold pure-DP / randomized-response compositions, which the
    catalog leaves to an accountant: :mod:`certdp.verifier.mechs`.)"""
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        return bool(getattr(parse(spec, exclude=NOT_CHECKABLE), "has_closed_form", True))
    except InputError:
        return False


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
    or ``gdp_head`` (with the residual), with μ⁻ and its witness when positive.  For
    ``sgd(...)``/``icea(...)`` the evidence brackets the switch point of the refined
    profile (``switch``: the checker re-proves it, :mod:`certdp.verifier.switch`)."""
    from certdp.certificates.switch_writer import checked, switch_evidence  # noqa: PLC0415

    switch = switch_evidence(m.spec)
    if switch is None:
        refuse_uncheckable(m.spec)
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
    if switch is not None:
        evidence["switch"] = switch
    if m.witness_eps is not None and m.mu.lo > 0 and m.profile_kind.bounds_from_below:
        claim["mu_lower"] = decimal_string(m.mu.lo, CLAIM_DIGITS, "down")
        evidence["witness"] = {"eps": number(m.witness_eps)}
    if m.assumptions:
        claim["assumptions"] = list(m.assumptions)
    doc = envelope(claim, m.spec, evidence)
    return checked(doc) if switch is not None else doc  # the refined profile: checked before it is written


def not_gdp_document(spec: str, mu: Fraction, eps: Fraction, assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate of "not μ-GDP" from a witness ε with δ_A(ε) > δ_μ(ε)."""
    from certdp.certificates.switch_writer import switch_evidence  # noqa: PLC0415

    switch = switch_evidence(spec)
    if switch is None:
        refuse_uncheckable(spec)
    claim: dict[str, Any] = {"kind": "not_gdp", "mu": number(mu)}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return envelope(claim, spec, {"witness": {"eps": number(eps)}, **({"switch": switch} if switch else {})})


def write(doc: dict[str, Any], path: str) -> None:
    """Write a certificate as indented JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")


def dp_certificate(kind: str, spec: str, eps: Any, delta: Any, delta_at_eps: "Enclosure", precision: int = 128,
                   assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate of a decided ``dp`` / ``not_dp`` claim (checked by
    :mod:`certdp.verifier.check_dp`); ``assumptions`` are the mechanism's
    unproved hypotheses, stated in the claim."""
    if kind not in ("dp", "not_dp"):
        raise ValueError(kind)
    refuse_uncheckable(spec)
    claim: dict[str, Any] = {"kind": kind, "eps": fraction_to_str(exact(eps, "eps")),
                             "delta": fraction_to_str(exact(delta, "delta"))}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return envelope(claim, spec, {"delta_at_eps": delta_at_eps.to_json()}, precision)


def _upper_dp_claims(eps: object, delta: object, eps_hi: "Enclosure | None", delta_hi: "Enclosure | None",
                     assumptions: tuple[str, ...]) -> list[dict[str, Any]]:
    """The ``dp`` claims at an answer's upper end rounded up to 12, 10, 8 and 6 digits
    (the writer keeps the first the checker proves) — first, for an enclosure of a
    decimal target (the audit's claimed δ, 1e-5 as a ball of radius 1e-24), that decimal
    itself (15 digits, rounded down: the claim as stated, not 1.00000000000001e-5)."""
    out = []
    enc = eps_hi if eps_hi is not None else delta_hi
    narrow = enc is not None and enc.hi_exact - enc.lo_exact <= enc.hi_exact / 2**60
    for digits in ((15, 12, 10, 8, 6) if narrow else (12, 10, 8, 6)):
        way = "down" if digits == 15 else "up"
        if eps_hi is not None:
            e, d = decimal_string(eps_hi.hi, digits, way), fraction_to_str(exact(delta, "delta"))
        else:
            e, d = fraction_to_str(exact(eps, "eps")), decimal_string(delta_hi.hi, digits, way)
        claim: dict[str, Any] = {"kind": "dp", "eps": e, "delta": d}
        if assumptions:
            claim["assumptions"] = list(assumptions)
        out.append(claim)
    return out


def upper_dp_certificate(mech: Any, *, eps: object = None, delta: object = None,
                         eps_hi: "Enclosure | None" = None, delta_hi: "Enclosure | None" = None,
                         assumptions: tuple[str, ...] = (), pld: "dict[str, Any] | None" = None) -> dict[str, Any]:
    """Certificate (kind ``dp``) that ``mech`` is (ε, δ)-DP, for an answer's upper end:
    give ``eps`` and the δ enclosure ``delta_hi`` (the claim's δ is its upper end),
    or ``delta`` and the ε enclosure ``eps_hi``.  Closed-form profiles are re-evaluated
    by the checker; compositions of Poisson-subsampled Gaussians carry the PLD
    discretisation (evidence ``pld``, re-derived by :mod:`certdp.verifier.check_pld`).
    The upper end is rounded up to 12, 10, 8 or 6 significant digits — the first claim
    the checker proves (a re-derivation may round a few fixed-point units
    differently from the accountant).  ``pld``: the discretisation the answer came from
    (h, tau, z, bits), tried first for a composition of subsampled Gaussians.
    InputError when no route can be certified."""
    from certdp.certificates.screen import proved_first  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415
    from certdp.mechanisms.transforms import ComposeAll  # noqa: PLC0415

    from certdp.certificates.equivalents import checker_form  # noqa: PLC0415

    mech, _ = checker_form(mech)  # e.g. tree_aggregation: the claim is stated for its d-fold Gaussian
    if isinstance(mech, ComposeAll) and not mech.has_closed_form:  # heterogeneous: evidence pld_items
        return composition_certificate(mech.items(), eps=eps, delta=delta, eps_hi=eps_hi, delta_hi=delta_hi)
    spec = mech.spec()
    refuse_uncheckable(spec)
    evidences: list[dict[str, Any]] = [{}]
    if not getattr(mech, "has_closed_form", True) and not checker_has_closed_form(spec):
        from certdp.analyses.accountants.pld import PLDAccountant, as_subsampled_gaussian  # noqa: PLC0415

        try:
            as_subsampled_gaussian(mech)
        except InputError:
            doc = _law_pld_certificate(mech, spec, eps=eps, delta=delta, eps_hi=eps_hi, delta_hi=delta_hi,
                                       assumptions=assumptions)
            if doc is not None:
                return doc
            return _profile_pld_certificate(mech, spec, eps=eps, delta=delta, eps_hi=eps_hi, delta_hi=delta_hi,
                                            assumptions=assumptions)
        # the engine's grid, then finer ones: an answer narrowed by halving the grid
        # (the router's default width) is re-derived only on a grid as fine
        # and the truncation the accountant uses for a δ this small (PLDAccountant.delta/epsilon)
        base = PLDAccountant().compose(mech)
        d = exact(delta, "delta") if delta is not None else (
            dyadic_to_fraction(delta_hi.hi) if delta_hi is not None and delta_hi.hi > 0 else None)
        tau = (base._tau_for(d) if d is not None else None) or base.tau
        # built when reached (stating a grid's one-step cut builds its one-step PLDs)
        evidences = [lambda j=j: {"pld": PLDAccountant(h=base.h / 2**j, tau=tau).compose(mech).discretisation()}
                     for j in range(4)]
        if pld is not None:  # the answer's own grid first (a width request may choose any)
            evidences.insert(0, {"pld": {k: pld[k] for k in ("h", "tau", "z", "bits", "cut") if k in pld}})
    for j, evidence in enumerate(evidences):
        check_budget("refining the certificate's grid", j, len(evidences))
        evidence = evidence() if callable(evidence) else evidence
        claims = _upper_dp_claims(eps, delta, eps_hi, delta_hi, assumptions)
        if "pld" in evidence:
            claims = proved_first(spec, evidence, claims)
        for claim in claims:
            doc = envelope(claim, spec, evidence, 128)
            if check(doc).valid:
                return doc
    raise InputError("the independent checker could not re-derive this bound; no certificate written")



#: profile-pair evidence: sample the profile until it is below this, on at most this many knots
PROFILE_TAIL = Fraction(1, 10**18)
PROFILE_BITS = 96
PROFILE_TAU = Fraction(1, 10**16)
#: ... or until it falls by less than this fraction over 256 grid steps (a profile with
#: mass at +∞ never falls below it; any stopping point is sound, the rest goes to +∞)
PROFILE_FLAT = Fraction(1, 10**6)


def profile_pld_evidence(spec: str, h: Fraction, tail: Fraction = PROFILE_TAIL) -> dict[str, Any] | None:
    """Evidence ``pld_profile`` for ``compose(M, k=n)`` with M closed-form in the checker's
    table: the knots of the certified lower convex hull of M's sampled profile on the grid
    h (:func:`certdp.analyses.accountants.discretise._hull_breakpoints`), computed from the
    checker's own samples so that it re-derives the same chain, sampled until the profile is
    below ``tail`` (what is left goes to +∞: a tiny δ needs a tiny tail).  None when M's profile
    pair cannot be built (the completion's mass at 0 is not proved >= 0)."""
    from certdp.analyses.accountants.discretise import _hull_breakpoints  # noqa: PLC0415
    from certdp.verifier.check_pld import MAX_GRID  # noqa: PLC0415
    from certdp.verifier.check_profile_pld import profile_samples, split  # noqa: PLC0415
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        base, _ = split(parse(spec, exclude=NOT_CHECKABLE))
    except (InputError, MalformedCertificate):
        return None
    with working_precision(128):
        D: list[Any] = []
        i = 0
        while True:
            check_budget("sampling the profile for the certificate", i, None)
            D += profile_samples(base, h, tuple(range(i, i + 256)))
            if D[-1] == 0 or upper_bound(D[-1]) <= to_ball(tail) or len(D) >= MAX_GRID // 2:
                break
            if len(D) > 256 and not upper_bound(D[-1]) < lower_bound(D[-257]) * (1 - to_ball(PROFILE_FLAT)):
                break  # flat over 256 grid steps: the mass at +∞ (δ0 > 0); the rest goes there
            i += 256
        last = next((j for j, v in enumerate(D) if v == 0 or v <= to_ball(tail)), len(D) - 1)
        chain = _hull_breakpoints(D[:last + 1], h)
        if chain is None:
            knots = _hull_breakpoints(D[:last + 1], h, check_zero=False)[0]
            # no mass at loss 0 (discrete Gaussian, Δ = 1: D_0 + 2S_0 = 1 exactly): a chord
            # from ε = 0 to a later knot lies above the convex profile and is less steep
            for _ in range(8):
                if len(knots) < 3:
                    return None
                knots = [knots[0], *knots[2:]]
                g = (knots[1] * to_ball(h)).exp()
                if D[0] + 2 * (D[0] - D[knots[1]]) / (g - 1) < 1:
                    chain = (knots,)
                    break
    if chain is None:
        return None
    return {"h": number(h), "bits": PROFILE_BITS, "tau": number(PROFILE_TAU), "knots": list(chain[0])}


def _law_grid(mech: Any, h: Fraction | None, tau: Fraction | None) -> tuple[dict[str, Any], dict[str, tuple]]:
    """The engine's discretisation of a loss-law composition — (h, bits, τ) as evidence
    states them — and per relation (its one-step law, i_lo, i_hi)."""
    from certdp.analyses.accountants.discretise import grid_range  # noqa: PLC0415
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

    acc = PLDAccountant(h=h) if tau is None else PLDAccountant(h=h, tau=tau)
    acc = acc.compose(mech)
    ((src, _),) = acc.items
    ev = acc.discretisation()
    tail = acc._tail()
    laws = {}
    for rel in ("remove", "add"):
        law = src.law(rel, acc.h, tail)
        laws[rel] = (law, *grid_range(law, acc.h, tail))
    return {"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"]}, laws


def law_pld_evidence(mech: Any, h: Fraction, tau: Fraction) -> dict[str, Any]:
    """Evidence ``pld_law`` (:mod:`certdp.verifier.check_law_pld`): the engine's
    discretisation on the grid h with truncation τ and each relation's grid range."""
    head, laws = _law_grid(mech, h, tau)
    return {**head, **{rel: [i_lo, i_hi] for rel, (_, i_lo, i_hi) in laws.items()}}


def law_lower_evidence(mech: Any, h: Fraction | None = None) -> dict[str, Any]:
    """Evidence ``pld_law_lower`` (:func:`certdp.verifier.check_law_pld.delta_lower`):
    the engine's grid, its cell shift, and per relation the grid range and the regions its
    lower discretisation merges the atoms with.  InputError unless the mechanism is a
    composition of a Poisson-subsampled mechanism in check_law_pld.BASES."""
    from certdp.analyses.accountants.discretise import LOWER_SHIFT, lower_regions  # noqa: PLC0415
    from certdp.verifier.check_law_pld import subsampled_base  # noqa: PLC0415
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    spec = mech.spec()
    try:
        subsampled_base(parse(spec, exclude=NOT_CHECKABLE))
    except MalformedCertificate:
        raise InputError(f"certificates refuting (eps, delta)-DP of {spec} (an accountant answer) are not "
                         "supported yet") from None
    head, laws = _law_grid(mech, h, None)
    out: dict[str, Any] = {**head, "shift": str(LOWER_SHIFT)}
    for rel, (law, i_lo, i_hi) in laws.items():
        regions = [[idx, str(u), str(v)] for idx, u, v, _ in lower_regions(law, Fraction(head["h"]), i_lo,
                                                                             i_hi - i_lo + 1)]
        out[rel] = {"range": [i_lo, i_hi], "regions": regions}
    return out


def _law_pld_certificate(mech: Any, spec: str, *, eps: object, delta: object, eps_hi: "Enclosure | None",
                         delta_hi: "Enclosure | None", assumptions: tuple[str, ...]) -> dict[str, Any] | None:
    """Kind ``dp`` with evidence ``pld_law`` for compositions of Poisson-subsampled Laplace
    (the engine's per-relation loss laws: the answer's own upper end), on the engine's
    grid or up to three halvings of it (an answer narrowed on a finer grid); None when
    the mechanism is of another form or no grid proves the answer."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.verifier.check_law_pld import subsampled_base  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        _, gamma, _ = subsampled_base(parse(spec, exclude=NOT_CHECKABLE))
    except (MalformedCertificate, InputError):
        return None
    if gamma == 1:
        return None  # plain Laplace: its profile pair is its own pair (pld_profile is as tight)
    base = PLDAccountant().compose(mech)
    d = exact(delta, "delta") if delta is not None else (
        dyadic_to_fraction(delta_hi.hi) if delta_hi is not None and delta_hi.hi > 0 else None)
    tau = (base._tau_for(d) if d is not None else None) or base.tau
    for j in range(4):
        check_budget("refining the certificate's grid", j, 4)
        evidence = law_pld_evidence(mech, base.h / 2**j, tau)
        for claim in _upper_dp_claims(eps, delta, eps_hi, delta_hi, assumptions):
            doc = envelope(claim, spec, {"pld_law": evidence}, 128)
            if check(doc).valid:
                return doc
    # an answer tighter than the finest grid's (the φ accountant's, for a finite pair):
    # certify what that grid proves
    weaker = _law_claim(spec, evidence, eps=eps, delta=delta, eps_hi=eps_hi, assumptions=assumptions)
    if weaker is not None:
        doc = envelope(weaker, spec, {"pld_law": evidence}, 128)
        if check(doc).valid:
            return doc
    return None


def _law_claim(spec: str, evidence: dict[str, Any], *, eps: object, delta: object,
               eps_hi: "Enclosure | None", assumptions: tuple[str, ...]) -> dict[str, Any] | None:
    """The ``dp`` claim the ``pld_law`` evidence itself proves (:func:`_weaker_claim`), from
    the checker's composed PLDs (built once)."""
    from certdp.analyses.accountants.pld import _amax  # noqa: PLC0415
    from certdp.verifier.check_law_pld import upper_plds  # noqa: PLC0415
    from certdp.verifier.check_pld import f_eps  # noqa: PLC0415
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        plds = upper_plds(parse(spec, exclude=NOT_CHECKABLE), evidence, 128)
    except PrecisionError:
        return None
    h, bits = Fraction(evidence["h"]), evidence["bits"]

    def bound(x: Fraction) -> arb | None:
        with working_precision(128):
            return _amax(upper_bound(f_eps(pld, h, bits, x)) for pld in plds.values())

    return _weaker_claim(bound, eps=eps, delta=delta, eps_hi=eps_hi, assumptions=assumptions)


def _profile_pld_certificate(mech: Any, spec: str, *, eps: object, delta: object, eps_hi: "Enclosure | None",
                             delta_hi: "Enclosure | None", assumptions: tuple[str, ...]) -> dict[str, Any]:
    """Kind ``dp`` with evidence ``pld_profile`` (:mod:`certdp.verifier.check_profile_pld`):
    the grid is refined (h, h/2, h/4 from the engine's h) until the checker proves the
    answer's upper end rounded up to 12, 10, 8 or 6 digits."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415

    h = Fraction(PLDAccountant().compose(mech).discretisation()["h"])
    evidence = None
    for refine in range(3):
        check_budget("refining the certificate's grid", refine, 3)
        evidence = profile_pld_evidence(spec, h / 2**refine)
        if evidence is None:
            break
        for claim in _upper_dp_claims(eps, delta, eps_hi, delta_hi, assumptions):
            doc = envelope(claim, spec, {"pld_profile": evidence}, 128)
            if check(doc).valid:
                return doc
    if evidence is not None:
        # the profile pair dominates both relations at once, so its composition can be
        # looser than the engine's per-relation answer: certify what the pair proves
        weaker = _profile_pair_claim(spec, evidence, eps=eps, delta=delta, eps_hi=eps_hi,
                                     assumptions=assumptions)
        if weaker is not None:
            doc = envelope(weaker, spec, {"pld_profile": evidence}, 128)
            if check(doc).valid:
                return doc
    raise InputError(f"certificates for {spec} are not supported: the independent checker re-derives "
                     "(subsampled) Gaussian PLDs and compositions of one mechanism with a closed-form "
                     "profile, and could not prove this answer from its profile pair")


def _profile_pair_claim(spec: str, evidence: dict[str, Any], *, eps: object, delta: object,
                        eps_hi: "Enclosure | None", assumptions: tuple[str, ...]) -> dict[str, Any] | None:
    """The ``dp`` claim the profile-pair evidence itself proves (:func:`_weaker_claim`)."""
    from certdp.verifier.check_profile_pld import delta_upper  # noqa: PLC0415
    from certdp.verifier.facts import NOT_CHECKABLE  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    checker_mech = parse(spec, exclude=NOT_CHECKABLE)

    def bound(x: Fraction) -> arb | None:
        v = delta_upper(spec, checker_mech, x, evidence, 128)
        return None if isinstance(v, str) else v

    return _weaker_claim(bound, eps=eps, delta=delta, eps_hi=eps_hi, assumptions=assumptions)


def _weaker_claim(bound: Any, *, eps: object, delta: object, eps_hi: "Enclosure | None",
                  assumptions: tuple[str, ...]) -> dict[str, Any] | None:
    """The ``dp`` claim an evidence's own upper bound δ̄ (``bound(ε)``: a ball, or None
    when not proved) establishes, weaker than the engine's answer: δ̄(ε) rounded up to 8
    digits, or the ε found by doubling then bisecting (16 steps) above the answer's
    upper end until δ̄(ε) <= δ.  None if not proved."""
    claim: dict[str, Any]
    if eps_hi is None:
        e = exact(eps, "eps")
        v = bound(e)
        if v is None:
            return None
        claim = {"kind": "dp", "eps": fraction_to_str(e), "delta": decimal_string(v, 8, "up")}
    else:
        d = exact(delta, "delta")
        lo = Fraction(decimal_string(eps_hi.hi, 12, "up"))
        step, hi = max(lo / 1000, Fraction(1, 10**6)), None
        for _ in range(40):
            check_budget("searching the epsilon the certificate's evidence proves")
            v = bound(lo + step)
            if v is not None and v <= to_ball(d):
                hi = lo + step
                break
            lo, step = lo + step, 2 * step
        if hi is None:
            return None
        for _ in range(16):
            mid = (lo + hi) / 2
            v = bound(mid)
            if v is not None and v <= to_ball(d):
                hi = mid
            else:
                lo = mid
        claim = {"kind": "dp", "eps": decimal_string(upper_bound(to_ball(hi)), 8, "up"), "delta": fraction_to_str(d)}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return claim


def composition_spec(items: list[tuple[Any, int]]) -> str:
    """The checker's spec ``compose_all(M1, ..., Mn)`` of a heterogeneous composition
    (each item ``compose(M, k)`` when k > 1)."""
    from certdp.mechanisms.transforms import Compose  # noqa: PLC0415

    return "compose_all(" + ", ".join((m if k == 1 else Compose(m, k)).spec() for m, k in items) + ")"


def composition_evidence(items: list[tuple[Any, int]], h: Fraction,
                         tau: Fraction | None = None) -> dict[str, Any] | None:
    """Evidence ``pld_items`` on the grid h (:func:`certdp.verifier.check_profile_pld.items_delta_upper`):
    null for an item the checker reads as (subsampled) Gaussians, "atoms" for pure or
    approximate DP (its exact pair), else the knots of its profile pair; None when an
    item's pair cannot be built.  ``tau``: the truncation a tiny δ needs (the engine's
    :meth:`~certdp.analyses.accountants.pld.PLDAccountant._tau_for`; its bits follow, and the
    profile pairs are sampled that far down)."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.verifier.check_pld import subsampled_gaussians  # noqa: PLC0415
    from certdp.verifier.check_profile_pld import split  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415
    from certdp.verifier.schema import MalformedCertificate  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose  # noqa: PLC0415

    disc = (PLDAccountant(h=h) if tau is None else PLDAccountant(h=h, tau=tau)).compose_all(items).discretisation()
    tail = PROFILE_TAIL if tau is None else min(PROFILE_TAIL, tau)
    knots: list[list[int] | None] = []
    for m, k in items:
        spec = (m if k == 1 else Compose(m, k)).spec()
        try:
            subsampled_gaussians(parse(spec))
            knots.append(None)
            continue
        except (InputError, MalformedCertificate):
            pass
        try:
            if getattr(split(parse(spec))[0], "name", None) in ("pure_dp", "approx_dp"):
                knots.append("atoms")  # the exact two-point pair (check_profile_pld.atoms_one_step)
                continue
        except (InputError, MalformedCertificate):
            pass
        ev = profile_pld_evidence(spec, h, tail)
        if ev is None:
            return None
        knots.append(ev["knots"])
    return {"h": number(h), "bits": max(PROFILE_BITS, int(disc["bits"])),
            "tau": number(min(PROFILE_TAU, Fraction(disc["tau"]))), "z": disc["z"], "knots": knots}


def composition_certificate(items: list[tuple[Any, int]], *, eps: object = None, delta: object = None,
                            eps_hi: "Enclosure | None" = None, delta_hi: "Enclosure | None" = None) -> dict[str, Any]:
    """Certificate (kind ``dp``, evidence ``pld_items``) of a heterogeneous composition's
    answer (``certdp account`` with several mechanisms): the answer's upper end rounded
    up to 12, 10, 8 or 6 digits on the engine's grid or a finer one, else the weaker claim
    the evidence proves.  InputError when no claim can be certified."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.verifier.check_profile_pld import items_delta_upper  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    from certdp.certificates.equivalents import checker_items  # noqa: PLC0415

    items, _ = checker_items(items)  # e.g. tree_aggregation: stated for its d-fold Gaussian
    spec = composition_spec(items)
    refuse_uncheckable(spec)
    checker_mech = parse(spec)
    assumptions: list[str] = []
    for m, _ in items:
        assumptions += [a for a in m.assumptions if a not in assumptions]
    base = PLDAccountant().compose_all(items)
    h = base.h
    # a tiny δ (an answer's δ at a large ε) needs the truncation the engine used for it
    d = exact(delta, "delta") if delta is not None else (
        dyadic_to_fraction(delta_hi.hi) if delta_hi is not None and delta_hi.hi > 0 else None)
    tau = base._tau_for(d) if d is not None else None
    evidence = None
    for refine in range(3):
        check_budget("refining the certificate's grid", refine, 3)
        evidence = composition_evidence(items, h / 2**refine, tau)
        if evidence is None:
            break
        for claim in _upper_dp_claims(eps, delta, eps_hi, delta_hi, tuple(assumptions)):
            doc = envelope(claim, spec, {"pld_items": evidence}, 128)
            if check(doc).valid:
                return doc
    if evidence is not None:
        ev = evidence

        def bound(x: Fraction) -> arb | None:
            v = items_delta_upper(checker_mech, x, ev, 128)
            return None if isinstance(v, str) else v

        weaker = _weaker_claim(bound, eps=eps, delta=delta, eps_hi=eps_hi, assumptions=tuple(assumptions))
        if weaker is not None:
            doc = envelope(weaker, spec, {"pld_items": evidence}, 128)
            if check(doc).valid:
                return doc
    raise InputError(f"certificates for {spec} are not supported: the checker could not prove this answer "
                     "from the items' dominating pairs")


def written_note(doc: dict[str, Any], path: str, answer: Enclosure, answered: str) -> tuple[str, dict[str, Any]]:
    """(text, JSON record) saying what a ``dp`` certificate written for an answer
    claims; ``answered`` is "delta" or "eps", the quantity the answer encloses.  A claim
    above the answer's upper end rounded up to 6 digits is said to be weaker."""
    claim = doc["claim"]
    weaker = Fraction(claim[answered]) > Fraction(decimal_string(answer.hi, 6, "up"))
    text = f"certificate (ε = {claim['eps']}, δ = {claim['delta']}) written to {path}"
    if weaker:
        text += (f"\n  (the certificate's {answered} is weaker than the answer's upper end: the checker "
                 "re-derives it from the mechanism's profile pair, which dominates both neighbouring "
                 "relations at once)")
    return text, {"path": path, "eps": claim["eps"], "delta": claim["delta"], "weaker_than_answer": weaker}


def dpsgd_certificate(res: Any) -> dict[str, Any]:
    """Certificate of a :func:`certdp.analyses.accountants.dpsgd.dpsgd` answer: kind
    ``dp`` for compose(subsample(gaussian(σ), rate=q), k=T) (full batch: compose(gaussian(σ), k=T))
    at the answer's upper end (see :func:`upper_dp_certificate`)."""
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    inner = f"gaussian(sigma={number(res.noise)})"
    spec = f"compose({inner}, k={res.steps})" if res.rate == 1 else \
        f"compose(subsample({inner}, rate={number(res.rate)}), k={res.steps})"
    mech = parse_spec(spec)
    own = res.settings if res.rate < 1 and "h" in res.settings else None
    if res.eps is not None:
        return upper_dp_certificate(mech, delta=res.target, eps_hi=res.eps, pld=own)
    return upper_dp_certificate(mech, eps=res.target, delta_hi=res.delta, pld=own)


def gdp_except_certificate(res: Any) -> dict[str, Any]:
    """Certificate of the μ report of a :func:`certdp.analyses.accountants.dpsgd.dpsgd`
    answer (``mu=True``): kind ``gdp_except`` — δ(ε) <= δ_μ(ε) + η for all ε >= 0, both
    relations — with the PLD discretisation as evidence (re-derived by
    :mod:`certdp.verifier.check_fdp`); full batch (rate 1) is exactly (√T/σ)-GDP:
    kind ``gdp_exact``.  μ and η are rounded up to 12, 10, 8 or 6 significant digits — the
    first claim the checker proves.  InputError when none is."""
    from certdp.verifier.checker import check  # noqa: PLC0415

    if res.mu is None:
        raise InputError("no GDP report to certify (run with mu=True / --mu)")
    inner = f"gaussian(sigma={number(res.noise)})"
    if res.rate == 1:
        return exact_gdp_certificate(f"compose({inner}, k={res.steps})", res.mu.hi_str(CLAIM_DIGITS),
                                     res.mu.lo_str(CLAIM_DIGITS))
    spec = f"compose(subsample({inner}, rate={number(res.rate)}), k={res.steps})"
    evidence = {"pld": {k: res.settings[k] for k in ("h", "tau", "z", "bits", "cut") if k in res.settings}}
    eta = res.settings.get("residual")
    eta_str = number(Fraction(eta)) if eta is not None else None
    for digits in (12, 10, 8, 6):
        claim = {"kind": "gdp_except", "mu": decimal_string(res.mu.hi, digits, "up"),
                 "residual": eta_str or decimal_string(res.residual.hi, digits, "up")}
        doc = envelope(claim, spec, evidence, 128)
        if check(doc).valid:
            return doc
    raise InputError("the independent checker could not re-derive this GDP report; no certificate written")


def is_dpsgd(spec: str) -> bool:
    """Is ``spec`` compose(subsample(gaussian(...), rate=q), k=T) for the checker (PLD evidence)?"""
    from certdp.verifier.check_pld import subsampled_gaussians  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        s, q, T = subsampled_gaussians(parse(spec))
    except InputError:
        return False
    return q < 1


def _lower_evidence(s: Fraction, q: Fraction, T: int, h: object = None) -> tuple[Any, dict[str, Any]]:
    """(two-sided accountant, evidence ``pld_lower``): the accountant's discretisation
    and the x-axis cuts its float search chose for the merged (lower) one-step PLDs."""
    from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian, lower_boundaries  # noqa: PLC0415

    acc = PLDAccountant(h=h, lower=True).compose(SubsampledGaussian(s, q), T)
    ev = acc.discretisation(cut=False)
    cuts = {rel: [repr(x) for x in lower_boundaries(SubsampledGaussian(s, q).pair(rel), acc.h, float(ev["z"]))]
            for rel in ("remove", "add")}
    return acc, {"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"], **cuts}


def lower_dp_certificate(mech: Any, eps: object, delta: object, assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate (kind ``not_dp``) that a DP-SGD composition, or a composition of
    Poisson-subsampled Laplace, is not (ε, δ)-DP: the dominated PLDs of evidence
    ``pld_lower`` / ``pld_law_lower`` give δ_M(ε) > δ.  InputError otherwise."""
    from certdp.verifier.checker import check  # noqa: PLC0415
    from certdp.verifier.check_pld import subsampled_gaussians  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    spec = mech.spec()
    if is_dpsgd(spec):
        _, evidence = _lower_evidence(*subsampled_gaussians(parse(spec)))
        key = "pld_lower"
    else:
        evidence, key = law_lower_evidence(mech), "pld_law_lower"
    claim: dict[str, Any] = {"kind": "not_dp", "eps": fraction_to_str(exact(eps, "eps")),
                             "delta": fraction_to_str(exact(delta, "delta"))}
    if assumptions:
        claim["assumptions"] = list(assumptions)
    doc = envelope(claim, spec, {key: evidence}, 128)
    if not check(doc).valid:
        raise InputError("the independent checker could not re-derive this refutation; no certificate written")
    return doc


def gdp_except_claim_certificate(mech: Any, mu: object, residual: object) -> dict[str, Any]:
    """Certificate (kind ``gdp_except``) of the claim "μ-GDP except η" for a DP-SGD
    composition, with the default PLD discretisation as evidence; InputError when the
    checker does not prove it."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.verifier.checker import check  # noqa: PLC0415

    spec = mech.spec()
    claim = {"kind": "gdp_except", "mu": number(exact(mu, "mu")), "residual": number(exact(residual, "residual"))}
    doc = envelope(claim, spec, {"pld": PLDAccountant().compose(mech).discretisation()}, 128)
    if not check(doc).valid:
        raise InputError("the independent checker could not re-derive this GDP claim; no certificate written")
    return doc


def not_gdp_except_certificate(mech: Any, mu: object, residual: object = 0, *, h: object = None) -> dict[str, Any]:
    """Certificate (kind ``not_gdp_except``) that a DP-SGD composition ``mech`` is not
    μ-GDP except η: a witness ε* with δ_M(ε*) > δ_μ(ε*) + η, from the closed-form
    all-sampled lower bound (strict claims, large ε*) or from dominated PLDs whose
    one-step partitions the accountant's float search chose (floats only place the
    cuts; the checker certifies every atom).  Tries a few ε* (the checker decides);
    InputError when none is proved."""
    from certdp.verifier.checker import check  # noqa: PLC0415
    from certdp.verifier.check_pld import subsampled_gaussians  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    spec = mech.spec()
    s, q, T = subsampled_gaussians(parse(spec))
    m, r = exact(mu, "mu"), exact(residual, "residual")
    claim = {"kind": "not_gdp_except", "mu": number(m), "residual": number(r)}
    tried = 0
    if r == 0:  # the tail: q^T δ_{√T/s}(ε + T log(1/q)) beats δ_μ(ε) at some large ε when μ < √T/s
        for j in range(0, 21):
            doc = envelope(claim, spec, {"witness": {"eps": number(Fraction(2) ** j)}, "bound": "all_sampled"}, 64)
            tried += 1
            if check(doc).valid:
                return doc
    acc, lower = _lower_evidence(s, q, T, h)
    # candidate witnesses: where the accountant's certified lower delta beats delta_mu + eta most (floats guide)
    from certdp.numerics.gdp import delta_mu  # noqa: PLC0415

    best: list[tuple[float, Fraction]] = []
    for k in range(1, 129):
        e = Fraction(k, 8)
        lo = float(acc.delta_here(e).lo)  # the evidence's own discretisation, as the checker re-derives it
        gap = lo - float(delta_mu(m, e).hi) - float(r)
        best.append((gap, e))
    best.sort(reverse=True)
    for gap, e in best[:4]:
        if gap <= 0:
            break
        doc = envelope(claim, spec, {"witness": {"eps": number(e)}, "pld_lower": lower}, 128)
        if check(doc).valid:
            return doc
    raise InputError(f"no witness proved that {spec} is not {number(m)}-GDP except {number(r)}; no certificate written")


def exact_gdp_certificate(spec: str, mu_hi: str, mu_lo: str | None = None,
                          assumptions: tuple[str, ...] = ()) -> dict[str, Any]:
    """Certificate of kind ``gdp_exact`` (checked by :mod:`certdp.verifier.check_exact`);
    ``mu_hi``/``mu_lo`` are decimal strings rounded outward (up/down)."""
    claim: dict[str, Any] = {"kind": "gdp_exact", "mu": mu_hi}
    if mu_lo is not None:
        claim["mu_lower"] = mu_lo
    if assumptions:
        claim["assumptions"] = list(assumptions)
    return envelope(claim, spec, {"argument": EXACT_ARGUMENT}, precision=64)


def gdp_certificate(answer: "GDPAnswer") -> dict[str, Any]:
    """Certificate of what :func:`certdp.analyses.dispatch.gdp_of` proved:
    ``gdp_exact`` for the exact route, the measurement's ``gdp``/``gdp_head``
    otherwise.  Accountant-based reports cannot be certified yet (InputError)."""
    if answer.exact:
        return exact_gdp_certificate(answer.spec, answer.mu.hi_str(CLAIM_DIGITS), answer.mu.lo_str(CLAIM_DIGITS),
                                     answer.assumptions)
    if answer.measurement is not None:
        return measurement_certificate(answer.measurement)  # type: ignore[arg-type]
    raise InputError("certificates for accountant-based GDP reports are not supported yet")


def not_gdp_certificate(mechanism: Any, mu: object, *, eps_max: object = 256) -> dict[str, Any]:
    """Certificate (kind ``not_gdp``) that the mechanism is not μ-GDP, from a
    witness found by :func:`certdp.analyses.gdpt.find_not_gdp_witness`;
    InputError if the profile cannot bound from below or no witness is found."""
    from certdp.analyses.gdpt import find_not_gdp_witness  # noqa: PLC0415

    if not mechanism.profile_kind.bounds_from_below:
        raise InputError(f"{mechanism!r}: its profile is {mechanism.profile_kind.value}, "
                         "which cannot show that the mechanism is not μ-GDP")
    p = find_not_gdp_witness(mechanism, mu, eps_max=eps_max)
    if p is None:
        raise InputError(f"no witness found that {mechanism!r} is not {mu}-GDP on [0, {eps_max}]")
    return not_gdp_document(mechanism.spec(), exact(mu, "mu"), p, tuple(mechanism.assumptions))
